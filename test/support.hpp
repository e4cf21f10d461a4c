// support.hpp — small helpers shared by simasio's tests
#ifndef SIMASIO_TEST_SUPPORT_HPP
#define SIMASIO_TEST_SUPPORT_HPP

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace simasio_test {

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

}  // namespace simasio_test

#endif  // SIMASIO_TEST_SUPPORT_HPP
