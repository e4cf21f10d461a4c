// trust_test.cpp — a sweep that did not reach its verdict is never green, and says which seed it was on
//
// Each case runs simasio_misbehave (misbehave.cpp) as a program of its own,
// whose seed 5 ends, kills or hangs its process, and reads what it printed
// and how it ended.
#include <boost/test/unit_test.hpp>

#include <simasio/random/tape_file.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

extern char** environ;

// Named, not anonymous: a unity build puts this file beside others.
namespace simasio_trust_test {

struct ran {
  std::string output;  // standard output and error together
  int status = -1;     // exit status, when it exited
  int signal = 0;      // the signal that ended it, when one did
  bool exited() const { return signal == 0; }
};

// How a program run from a test is set up in its own child before exec.
enum class sandbox { none, full_disk, read_only_disk };

// Runs simasio_misbehave @p which with @p env added, killing it after 120 s.
// With a sandbox, a small tmpfs (full, or read-only) is mounted at
// @p mount_at in a mount namespace of the child's own (root only).
ran misbehave(const std::string& which, std::vector<std::string> env, sandbox box = sandbox::none,
              const std::string& mount_at = "") {
  int out[2];
  BOOST_REQUIRE(::pipe(out) == 0);
  std::vector<std::string> all;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "SIMASIO_", 8) != 0) all.emplace_back(*e);
  for (auto& e : env) all.push_back(e);
  const pid_t pid = ::fork();
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::close(out[0]);
    ::close(out[1]);
    if (box != sandbox::none) {
      if (::unshare(CLONE_NEWNS) != 0 || ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount("tmpfs", mount_at.c_str(), "tmpfs", 0, "size=64k") != 0) {
        std::fprintf(stderr, "sandbox: %s\n", std::strerror(errno));
        ::_exit(77);
      }
      if (box == sandbox::full_disk) {
        // Fill it: every artifact write then meets ENOSPC.
        const int fd = ::open((mount_at + "/filler").c_str(), O_WRONLY | O_CREAT, 0644);
        char block[4096] = {};
        while (fd >= 0 && ::write(fd, block, sizeof block) > 0) {
        }
        ::close(fd);
      } else if (::mount(nullptr, mount_at.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
        ::_exit(77);
      }
    }
    std::vector<char*> envp;
    for (auto& e : all) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string prog = SIMASIO_MISBEHAVE;
    char* argv[] = {prog.data(), const_cast<char*>(which.c_str()), nullptr};
    if (box == sandbox::none) {
      ::execve(argv[0], argv, envp.data());
      ::_exit(127);
    }
    // In the sandbox: run it, then say which files it left on the small disk
    // (the namespace, and the disk with it, go when this child ends).
    const pid_t inner = ::fork();
    if (inner == 0) {
      ::execve(argv[0], argv, envp.data());
      ::_exit(127);
    }
    int status = 0;
    while (::waitpid(inner, &status, 0) < 0 && errno == EINTR) {
    }
    std::fflush(stdout);
    std::string left = "\nfiles left:";
    for (const auto& entry : std::filesystem::directory_iterator(mount_at))
      if (entry.path().filename() != "filler") left += " " + entry.path().filename().string();
    left += "\n";
    (void)!::write(1, left.data(), left.size());
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  ::close(out[1]);
  ran r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buf[4096];
  for (;;) {
    pollfd p{out[0], POLLIN, 0};
    const int n = ::poll(&p, 1, 1000);
    if (n < 0 && errno == EINTR) continue;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      r.output += "\n[killed by the test after 120 s]";
      break;
    }
    if (n == 0) continue;
    const ssize_t got = ::read(out[0], buf, sizeof buf);
    if (got <= 0) break;
    r.output.append(buf, static_cast<std::size_t>(got));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  else r.status = WEXITSTATUS(status);
  return r;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool under_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool under_asan = true;
#else
constexpr bool under_asan = false;
#endif
#else
constexpr bool under_asan = false;
#endif

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The directory the misbehaving sweeps write to, emptied.
std::string scratch(const char* name) {
  const std::string dir = simasio_test::temp_dir(name);
  std::filesystem::create_directories(dir);
  return dir;
}

std::vector<std::string> in(const std::string& dir, std::vector<std::string> more = {}, std::string artifacts = "") {
  more.push_back("SIMASIO_ARTIFACTS=" + (artifacts.empty() ? dir + "/artifacts" : artifacts));
  more.push_back("MISBEHAVE_DIR=" + dir);
  more.push_back("SIMASIO_PROGRESS=0");
  return more;
}

BOOST_AUTO_TEST_SUITE(trust)

BOOST_AUTO_TEST_CASE(exit_and_quick_exit_in_a_seed_fail_the_program_naming_the_seed) {
  const std::string dir = scratch("simasio_trust_exit");
  for (const char* which : {"exit0", "exit_in_handler", "quick_exit", "exit3"}) {
    const ran r = misbehave(which, in(dir));
    BOOST_TEST_CONTEXT(which << ":\n" << r.output) {
      BOOST_TEST(r.exited());
      BOOST_TEST(r.status != 0);
      if (std::string(which) == "exit3") BOOST_TEST(r.status == 3);
      BOOST_TEST(has(r.output, std::string("simasio: FAILED misbehave_") + which + " seed=5: the seed ended the test "
                               "program with " + (std::string(which) == "quick_exit" ? "quick_exit()" : "exit(")));
      BOOST_TEST(has(r.output, "simasio: replay: SIMASIO_SEED=5 SIMASIO_ISOLATION=1 "));
    }
  }
}

BOOST_AUTO_TEST_CASE(isolated_exit_and__exit_are_that_seeds_failure) {
  const std::string dir = scratch("simasio_trust_exit_isolated");
  for (const char* which : {"exit0", "_exit"}) {
    const ran r = misbehave(which, in(dir, {"SIMASIO_ISOLATION=1"}));
    BOOST_TEST_CONTEXT(which << ":\n" << r.output) {
      BOOST_TEST(r.exited());
      BOOST_TEST(r.status == 1);
      BOOST_TEST(has(r.output, std::string("simasio: FAILED misbehave_") + which +
                                   " seed=5 t=0.000s step=0: the run ended its process with exit status 0"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_fatal_signal_in_a_seed_in_the_program_prints_its_failed_and_replay_lines_then_dies_of_it) {
  const std::string dir = scratch("simasio_trust_signal");
  const std::pair<const char*, int> all[] = {{"stack_overflow", SIGSEGV}, {"sigbus", SIGBUS}, {"sigfpe", SIGFPE},
                                             {"sigill", SIGILL}, {"sigabrt", SIGABRT}};
  for (const auto& [which, sig] : all) {
    const ran r = misbehave(which, in(dir));
    BOOST_TEST_CONTEXT(which << ":\n" << r.output) {
      BOOST_TEST(!(r.exited() && r.status == 0));
      if (!under_asan) BOOST_TEST(r.signal == sig);  // (ASan reports SIGSEGV, SIGBUS and SIGFPE itself and exits 1)
      BOOST_TEST(has(r.output, std::string("simasio: FAILED misbehave_") + which +
                                   " seed=5: the seed killed the test program with SIG" + ::sigabbrev_np(sig) + " ("));
      BOOST_TEST(has(r.output, "simasio: replay: SIMASIO_SEED=5 SIMASIO_ISOLATION=1 "));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_replay_line_of_a_fatal_signal_reports_it_as_the_seeds_failure) {
  const std::string dir = scratch("simasio_trust_signal_replay");
  const ran r = misbehave("sigabrt", in(dir, {"SIMASIO_SEED=5", "SIMASIO_ISOLATION=1"}));
  BOOST_TEST(r.exited(), r.output);
  BOOST_TEST(r.status == 1, r.output);
  BOOST_TEST(has(r.output, "simasio: FAILED misbehave_sigabrt seed=5 "), r.output);
  BOOST_TEST(has(r.output, "the run killed its process with SIGABRT"), r.output);
}

BOOST_AUTO_TEST_CASE(an_isolated_seed_that_hangs_is_reported_hung_with_where_it_was_and_killed) {
  const std::string dir = scratch("simasio_trust_hang");
  const ran r = misbehave("hang", in(dir, {"SIMASIO_ISOLATION=1", "SIMASIO_SEED_TIMEOUT=2"}));
  BOOST_TEST(r.exited(), r.output);
  BOOST_TEST(r.status == 1, r.output);
  BOOST_TEST(has(r.output, "simasio: FAILED misbehave_hang seed=5 t=0.250s"), r.output);
  BOOST_TEST(has(r.output, "did not end within 2 s of wall-clock time"), r.output);
  BOOST_TEST(has(r.output, "at virtual time 0.250s, step 0"), r.output);
  BOOST_TEST(has(r.output, "simasio: replay: SIMASIO_SEED=5 "), r.output);
  BOOST_TEST(has(r.output, "not shrunk: a hung run is not shrunk"), r.output);
  // Killed by the watchdog, not by this test's own limit (its sleep is 600 s).
  BOOST_TEST(!has(r.output, "[killed by the test"), r.output);
}

BOOST_AUTO_TEST_CASE(a_sigkill_from_outside_is_told_apart_from_one_that_reproduces) {
  const std::string dir = scratch("simasio_trust_kill");
  const ran once = misbehave("killed_once", in(dir, {"SIMASIO_ISOLATION=1"}));
  BOOST_TEST(once.exited(), once.output);
  BOOST_TEST(once.status == 0, once.output);  // the seed ran again and passed: every seed passed
  BOOST_TEST(has(once.output, "simasio: seed 5: its process was killed with SIGKILL from outside the run (peak "
                              "resident memory "), once.output);
  BOOST_TEST(has(once.output, "it ran again and passed"), once.output);
  const ran always = misbehave("killed_always", in(dir, {"SIMASIO_ISOLATION=1"}));
  BOOST_TEST(always.status == 1, always.output);
  BOOST_TEST(has(always.output, "simasio: FAILED misbehave_killed_always seed=5 "), always.output);
  BOOST_TEST(has(always.output, "(twice: the seed ran again and its process was killed again"), always.output);
}

BOOST_AUTO_TEST_CASE(sigterm_to_a_sweep_reaps_its_children_and_prints_what_ran_and_how_to_run_the_rest) {
  for (const char* jobs : {"1", "2"}) {
    const std::string dir = scratch("simasio_trust_term");
    const ran r = misbehave("interrupt", in(dir, {"SIMASIO_ISOLATION=1", std::string("SIMASIO_JOBS=") + jobs,
                                                  "MISBEHAVE_INTERRUPT=parent", "MISBEHAVE_SLOW=1"}));
    BOOST_TEST_CONTEXT("jobs " << jobs << ":\n" << r.output) {
      BOOST_TEST(r.signal == SIGTERM);
      BOOST_TEST(has(r.output, "simasio: misbehave_interrupt: interrupted by SIGTERM"));
      BOOST_TEST(has(r.output, "seed(s) ran, none failed; every seed before "));
      BOOST_TEST(has(r.output, "simasio: the rest: SIMASIO_FIRST_SEED="));
      // No seed's process outlives the sweep.
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        if (file.rfind("pid-", 0) != 0) continue;
        const pid_t pid = std::stoi(file.substr(4));
        BOOST_TEST((::kill(pid, 0) != 0 && errno == ESRCH), "seed process " << pid << " is still running");
      }
    }
  }
  const std::string dir = scratch("simasio_trust_term_self");
  const ran self = misbehave("interrupt", in(dir, {"SIMASIO_ISOLATION=0", "MISBEHAVE_INTERRUPT=self"}));
  BOOST_TEST(self.signal == SIGTERM, self.output);
  BOOST_TEST(has(self.output,
                 "interrupted by SIGTERM (Terminated): 8 of 20 seed(s) ran, none failed; every seed before 8 ran"),
             self.output);
  BOOST_TEST(has(self.output, "simasio: the rest: SIMASIO_FIRST_SEED=8 SIMASIO_SEEDS=12 "), self.output);
  const ran ctrl_c = misbehave("interrupt", in(dir, {"SIMASIO_ISOLATION=0", "MISBEHAVE_INTERRUPT=self_int"}));
  BOOST_TEST(ctrl_c.signal == SIGINT, ctrl_c.output);
  BOOST_TEST(has(ctrl_c.output, "interrupted by SIGINT (Interrupt): 8 of 20 seed(s) ran"), ctrl_c.output);
}

BOOST_AUTO_TEST_CASE(artifacts_on_a_full_disk_are_named_as_not_written_and_leave_no_partial_file) {
  if (::geteuid() != 0) return;  // a mount namespace needs root
  const std::string dir = scratch("simasio_trust_full");
  const std::string disk = dir + "/disk";
  std::filesystem::create_directories(disk);
  const ran r = misbehave("throw_int", in(dir, {}, disk), sandbox::full_disk, disk);
  if (r.exited() && r.status == 77) return;  // no mount namespace here
  BOOST_TEST(r.status == 1, r.output);
  // The FAILED and replay lines come first and whole.
  BOOST_TEST(r.output.find("simasio: FAILED misbehave_throw_int seed=5 ") < r.output.find("not saved"), r.output);
  BOOST_TEST(r.output.find("simasio: replay: SIMASIO_SEED=5 ") < r.output.find("not saved"), r.output);
  BOOST_TEST(
      has(r.output, "simasio: shrunk tape not saved: simasio: artifact '" + disk + "/misbehave_throw_int-seed5.tape"),
      r.output);
  BOOST_TEST(has(r.output, "No space left on device (errno 28)"), r.output);
  BOOST_TEST(has(r.output, "simasio: trace not written: simasio: artifact '"), r.output);
  BOOST_TEST(!has(r.output, "simasio: shrunk: "), r.output);
  BOOST_TEST(!has(r.output, "simasio: trace: "), r.output);
  // Nothing cut short stays behind: an artifact is whole or absent.
  BOOST_TEST(has(r.output, "\nfiles left:\n"), r.output);
}

BOOST_AUTO_TEST_CASE(an_unwritable_artifact_directory_names_the_directory_and_errno_after_the_failed_line) {
  if (::geteuid() != 0) return;
  const std::string dir = scratch("simasio_trust_readonly");
  const std::string disk = dir + "/disk";
  std::filesystem::create_directories(disk);
  const ran r = misbehave("throw_int", in(dir, {}, disk), sandbox::read_only_disk, disk);
  if (r.exited() && r.status == 77) return;
  BOOST_TEST(r.status == 1, r.output);
  BOOST_TEST(has(r.output, "could not be created in directory '" + disk + "': Read-only file system (errno 30)"),
             r.output);
  BOOST_TEST(r.output.find("simasio: FAILED") < r.output.find("Read-only"), r.output);
}

BOOST_AUTO_TEST_CASE(a_thrown_int_is_named_by_its_type) {
  const std::string dir = scratch("simasio_trust_int");
  const ran r = misbehave("throw_int", in(dir));
  BOOST_TEST(has(r.output, "seed=5 t=0.000s step=0: an exception of type int, not derived from std::exception, was "
                           "thrown"),
             r.output);
}

BOOST_AUTO_TEST_CASE(misuse_fails_the_seed_without_shrinking_or_artifacts) {
  const std::string dir = scratch("simasio_trust_misuse");
  const ran r = misbehave("usage_error", in(dir));
  BOOST_TEST(r.status == 1, r.output);
  BOOST_TEST(has(r.output, "simasio: FAILED misbehave_usage_error seed=5 "), r.output);
  BOOST_TEST(has(r.output, "primray"), r.output);
  BOOST_TEST(has(r.output, "not shrunk: a simasio::usage_error is a mistake in the scenario"), r.output);
  BOOST_TEST(!has(r.output, "simasio: trace: "), r.output);
  BOOST_TEST(!std::filesystem::exists(dir + "/artifacts/misbehave_usage_error-seed5.html"));
}

BOOST_AUTO_TEST_CASE(a_config_error_nobody_catches_ends_the_program_with_its_message_and_status_2) {
  const std::string dir = scratch("simasio_trust_config");
  for (const char* bad :
       {"SIMASIO_SEEDS=many", "SIMASIO_ARTIFACTS=", "SIMASIO_SEEED=5", "SIMASIO_TAPE_MISMATCH=bogus"}) {
    std::vector<std::string> env = {"MISBEHAVE_DIR=" + dir, bad};
    const ran r = misbehave("pass", env);
    BOOST_TEST_CONTEXT(bad << ":\n" << r.output) {
      BOOST_TEST(r.exited());
      BOOST_TEST(r.status == 2);
      BOOST_TEST(!has(r.output, "terminate called"));
      BOOST_TEST(has(r.output, "simasio: SIMASIO_"));
    }
  }
}

BOOST_AUTO_TEST_CASE(too_many_jobs_for_the_descriptor_limit_name_the_setting_and_the_limit) {
  const std::string dir = scratch("simasio_trust_jobs");
  const ran r = misbehave("pass", in(dir, {"SIMASIO_ISOLATION=1", "SIMASIO_JOBS=100", "MISBEHAVE_NOFILE=40"}));
  BOOST_TEST(r.status == 2, r.output);
  BOOST_TEST(has(r.output, "lower SIMASIO_JOBS (check_options::jobs) or raise the limit"), r.output);
  BOOST_TEST(has(r.output, "this program may open 40 (ulimit -n)"), r.output);
}

BOOST_AUTO_TEST_CASE(an_unknown_setting_far_from_any_is_a_warning_before_the_sweep) {
  const std::string dir = scratch("simasio_trust_warn");
  const ran r = misbehave("pass", in(dir, {"SIMASIO_SEDS_EXTRA=1"}));
  BOOST_TEST(r.status == 0, r.output);
  BOOST_TEST(has(r.output, "simasio: warning: SIMASIO_SEDS_EXTRA is not a simasio setting"), r.output);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_input)

void fails_one_seed_in_four(simasio::world& w) {
  if (w.random().below(4) == 0) throw std::runtime_error("fails_one_seed_in_four");
  w.run_for(std::chrono::milliseconds(1));
}

std::string load_error(const std::string& path) {
  return simasio_test::what_of<simasio::tape_error>([&] { simasio::load_tape(path); });
}

BOOST_AUTO_TEST_CASE(a_tape_path_that_is_not_a_tape_file_is_refused_by_name_and_at_once) {
  const std::string dir = scratch("simasio_bad_tapes");
  const std::string big = dir + "/big.tape";
  {
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT, 0644);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE(::ftruncate(fd, 1LL << 30) == 0);  // 1 GiB, sparse
    ::close(fd);
  }
  BOOST_TEST(has(load_error(big), "is 1073741824 bytes, more than any tape holds"));
  const std::string junk = dir + "/junk.tape";
  {
    std::ofstream out(junk);
    for (int i = 0; i < 100000; ++i) out << "not a tape at all, line " << i << "\n";
  }
  BOOST_TEST(has(load_error(junk), "line 1: not a simasio tape"));
  BOOST_TEST(has(load_error("/dev/zero"), "is a character device, not a tape file"));
  BOOST_TEST(has(load_error(dir), "is a directory, not a tape file"));
  const std::string fifo = dir + "/fifo";
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  BOOST_TEST(has(load_error(fifo), "is a FIFO, not a tape file"));
}

BOOST_AUTO_TEST_CASE(a_tape_cut_short_is_refused_and_so_is_another_scenarios_tape) {
  const std::string dir = scratch("simasio_bad_cut");
  simasio::check_options opts;
  opts.print = false;
  opts.artifacts = false;
  opts.artifacts_dir = dir;
  opts.name = "planted_scenario";
  opts.seeds = 100;
  const auto r = simasio::check(fails_one_seed_in_four, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_REQUIRE(!r.failure->tape_path.empty());
  std::string text;
  {
    std::ifstream in(r.failure->tape_path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  BOOST_TEST(has(text, "scenario planted_scenario\n"), text);
  BOOST_TEST(has(text, "\nend "), text);
  // Cut at a line boundary before its end: every line on it parses.
  const std::string cut = dir + "/cut.tape";
  std::ofstream(cut) << text.substr(0, text.find("\nend ") + 1);
  BOOST_TEST(has(load_error(cut), "has no 'end' line after its"));
  {
    simasio_test::scoped_env tape("SIMASIO_TAPE", cut.c_str());
    BOOST_CHECK_THROW(simasio::check(fails_one_seed_in_four, opts), simasio::tape_error);
  }
  // The whole tape under another scenario's name: refused, or a warning.
  simasio_test::scoped_env tape("SIMASIO_TAPE", r.failure->tape_path.c_str());
  opts.name = "another_scenario";
  const std::string refused =
      simasio_test::what_of<simasio::config_error>([&] { simasio::check(fails_one_seed_in_four, opts); });
  BOOST_TEST(has(refused, "was recorded by scenario 'planted_scenario', and this sweep is 'another_scenario'"),
             refused);
  simasio_test::scoped_env lenient("SIMASIO_TAPE_MISMATCH", "adapt");
  const auto anyway = simasio::check(fails_one_seed_in_four, opts);
  BOOST_TEST(!anyway.ok());
  opts.name = "planted_scenario";
  simasio_test::scoped_env strict("SIMASIO_TAPE_MISMATCH", nullptr);
  BOOST_TEST(!simasio::check(fails_one_seed_in_four, opts).ok());  // its own scenario replays it
}

BOOST_AUTO_TEST_CASE(conflicting_and_misspelt_settings_are_config_errors_before_any_seed) {
  simasio::check_options opts;
  opts.print = false;
  int runs = 0;
  auto counting = [&](simasio::world&) { ++runs; };
  {
    simasio_test::scoped_env seed("SIMASIO_SEED", "3");
    simasio_test::scoped_env tape("SIMASIO_TAPE", "/nonexistent.tape");
    const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::check(counting, opts); });
    BOOST_TEST(has(what, "SIMASIO_SEED and SIMASIO_TAPE are both set"), what);
  }
  {
    simasio_test::scoped_env policy("SIMASIO_TAPE_MISMATCH", "bogus");
    const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::check(counting, opts); });
    BOOST_TEST(has(what, "SIMASIO_TAPE_MISMATCH='bogus' is not a policy"), what);
  }
  for (const auto& [typo, meant] :
       {std::pair{"SIMASIO_SEEED", "SIMASIO_SEED"}, std::pair{"SIMASIO_JOB", "SIMASIO_JOBS"},
        std::pair{"SIMASIO_ARTIFACT", "SIMASIO_ARTIFACTS"}}) {
    simasio_test::scoped_env bad(typo, "4");
    const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::check(counting, opts); });
    BOOST_TEST(has(what, std::string(typo) + " is not a simasio setting: did you mean " + meant + "?"), what);
  }
  {
    simasio_test::scoped_env empty("SIMASIO_ARTIFACTS", "");
    const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::check(counting, opts); });
    BOOST_TEST(has(what, "SIMASIO_ARTIFACTS is set but empty"), what);
  }
  BOOST_TEST(runs == 0);
  simasio_test::scoped_env first("SIMASIO_FIRST_SEED", "40");
  opts.seeds = 3;
  std::vector<std::uint64_t> seeds;
  simasio::check([&](simasio::world& w) { seeds.push_back(w.seed()); }, opts);
  BOOST_TEST((seeds == std::vector<std::uint64_t>{40, 41, 42}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace simasio_trust_test
