// support.hpp — small helpers shared by simasio's tests
#ifndef SIMASIO_TEST_SUPPORT_HPP
#define SIMASIO_TEST_SUPPORT_HPP

#include <simasio/check/check.hpp>
#include <simasio/error.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <sys/single_threaded.h>

namespace simasio_test {

// This program's resident memory (VmRSS), in KiB.
inline std::size_t resident_kib() {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == "VmRSS:") {
      std::size_t kib = 0;
      in >> kib;
      return kib;
    }
  return 0;
}

// A folder @p name under the system's temporary folder, emptied of what an
// earlier run left there (not created).
inline std::string temp_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

// The what() of the Error that @p f throws, or "no error" when it throws
// none (an assertion on the message then fails, quoting it).
template <class Error, class F>
std::string what_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Runs w, a handler of which starts a std::thread of its own: in a program
// that had no other thread yet (glibc's __libc_single_threaded) the run
// fails with the escape_error naming it, after that handler; otherwise it
// runs to its end. Throws if it did the other.
template <class World>
void run_starting_a_thread(World& w) {
  const bool watched = __libc_single_threaded != 0;
  bool named = false;
  try {
    w.run();
  } catch (const simasio::escape_error& e) {
    named = std::string(e.what()).find("a thread was started while a simulated world runs") != std::string::npos;
    if (!named) throw;
  }
  if (named != watched)
    throw std::runtime_error(watched ? "a thread started in a run of a single-threaded program was not named"
                                     : "a run failed for a thread though the program already had threads");
}

// Sets (or unsets) an environment variable for the scope's lifetime.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~scoped_env() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// A quiet sweep of @p seeds isolated seeds (no shrinking, no artifacts) whose
// seeds are reported hung after 30 s of wall-clock time: for a test whose
// defect would hang the seed (a real wait on the test program's thread), so
// that it fails instead of hanging the suite.
inline simasio::check_options watched_sweep(std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.shrink = false;
  o.artifacts = false;
  o.print = false;
  o.isolation = simasio::isolation::on;
  o.seed_timeout = std::chrono::seconds(30);
  return o;
}

}  // namespace simasio_test

#endif  // SIMASIO_TEST_SUPPORT_HPP
