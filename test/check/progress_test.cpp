// progress_test.cpp — a long sweep says how it is doing: a live line on a
// terminal (a real pseudo-terminal here), the summary alone elsewhere
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/test/unit_test.hpp>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

enum class stderr_to { terminal, pipe };

// Runs body in a child whose stderr is a pseudo-terminal or a pipe, with
// the CI variables unset and `env` set; returns what it wrote there.
std::string stderr_of(stderr_to where, const std::vector<std::pair<const char*, const char*>>& env,
                      const std::function<void()>& body) {
  int fds[2] = {-1, -1};
  pid_t pid = -1;
  int reader = -1;
  if (where == stderr_to::terminal) {
    winsize ws{};
    ws.ws_col = 200;
    ws.ws_row = 40;
    pid = ::forkpty(&reader, nullptr, nullptr, &ws);
  } else {
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid = ::fork();
    reader = fds[0];
  }
  BOOST_REQUIRE(pid >= 0);
  if (pid == 0) {
    if (where == stderr_to::pipe) {
      ::dup2(fds[1], STDERR_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
    }
    for (const char* ci : {"CI", "CONTINUOUS_INTEGRATION", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI",
                           "TRAVIS", "JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION", "SIMASIO_PROGRESS",
                           "SIMASIO_SEEDS", "SIMASIO_SEED", "SIMASIO_JOBS"})
      ::unsetenv(ci);
    ::setenv("TERM", "xterm", 1);
    for (const auto& [name, value] : env) ::setenv(name, value, 1);
    try {
      body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "EXCEPTION: %s\n", e.what());
    }
    std::fflush(stderr);
    ::_exit(0);
  }
  if (where == stderr_to::pipe) ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(reader, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // end of file, or EIO once the terminal's last writer left
  }
  ::close(reader);
  int status = 0;
  ::waitpid(pid, &status, 0);
  BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return out;
}

// Each seed takes at least 2 ms of real time (a sleep before its world
// runs): 300 seeds last at least 0.6 s, so a line redrawn every 0.2 s is
// drawn at least twice whatever the machine.
simasio::check_options slow_sweep(std::uint64_t seeds) {
  simasio::check_options opts;
  opts.name = "progress";
  opts.seeds = seeds;
  opts.artifacts = false;
  opts.artifacts_dir = (std::filesystem::temp_directory_path() / "simasio-progress").string();
  return opts;
}

void slow_seed(simasio::world& w) {
  std::this_thread::sleep_for(2ms);
  auto& a = w.add_host("a");
  simasio::steady_timer t(a.context(), 10ms);
  t.async_wait([](auto) {});
  w.run();
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The text after the last live line was cleared (a terminal turns \n into \r\n).
std::string after_last_clear(const std::string& s) {
  const auto at = s.rfind("\r\033[K");
  return at == std::string::npos ? s : s.substr(at + 4);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(progress)

BOOST_AUTO_TEST_CASE(on_a_terminal_a_sweep_redraws_one_live_line_then_leaves_a_summary) {
  const std::string out = stderr_of(stderr_to::terminal, {}, [] { simasio::check(slow_seed, slow_sweep(300)); });
  BOOST_TEST_INFO("stderr: " << out);
  BOOST_TEST(count(out, "\rsimasio: progress: ") >= 2u);  // redrawn in place
  BOOST_TEST(std::regex_search(out, std::regex(R"(\rsimasio: progress: [0-9]+/300 seeds, [0-9.]+ seeds/s, [0-9.]+ s left, no failures\x1b\[K)")));
  // The last live line is cleared; the summary stays, on its own line.
  BOOST_TEST(std::regex_match(after_last_clear(out),
                              std::regex(R"(simasio: progress: 300 seeds passed in [0-9.]+ s \([0-9.]+ seeds/s\)\r?\n)")));
  BOOST_TEST(!contains(out, "EXCEPTION"));
}

BOOST_AUTO_TEST_CASE(under_a_ci_system_a_terminal_gets_the_summary_alone) {
  for (const char* var : {"CI", "GITHUB_ACTIONS", "JENKINS_URL"}) {
    const std::string out =
        stderr_of(stderr_to::terminal, {{var, "true"}}, [] { simasio::check(slow_seed, slow_sweep(120)); });
    BOOST_TEST_INFO(var << "; stderr: " << out);
    BOOST_TEST(!contains(out, "\r\033[K"));
    BOOST_TEST(std::regex_match(out, std::regex(R"(simasio: progress: 120 seeds passed in [0-9.]+ s \([0-9.]+ seeds/s\)\r?\n)")));
  }
  // TERM=dumb is no terminal to redraw on either.
  const std::string dumb =
      stderr_of(stderr_to::terminal, {{"TERM", "dumb"}}, [] { simasio::check(slow_seed, slow_sweep(120)); });
  BOOST_TEST(!contains(dumb, "\r\033[K"));
  BOOST_TEST(contains(dumb, "120 seeds passed"));
}

BOOST_AUTO_TEST_CASE(off_a_terminal_only_the_summary_and_nothing_when_the_glue_reports) {
  const std::string piped = stderr_of(stderr_to::pipe, {}, [] { simasio::check(slow_seed, slow_sweep(120)); });
  BOOST_TEST_INFO("stderr: " << piped);
  BOOST_TEST(std::regex_match(piped, std::regex(R"(simasio: progress: 120 seeds passed in [0-9.]+ s \([0-9.]+ seeds/s\)\n)")));
  // The frameworks' glue turns print off and reports by itself: nothing here.
  const std::string quiet = stderr_of(stderr_to::pipe, {}, [] {
    auto opts = slow_sweep(50);
    opts.print = false;
    simasio::check(slow_seed, opts);
  });
  BOOST_TEST(quiet.empty(), "stderr: " << quiet);
  // ... but on a terminal the glue's sweep shows its live line and summary.
  const std::string glue_on_terminal = stderr_of(stderr_to::terminal, {}, [] {
    auto opts = slow_sweep(300);
    opts.print = false;
    simasio::check(slow_seed, opts);
  });
  BOOST_TEST(contains(glue_on_terminal, "\rsimasio: progress: "));
  BOOST_TEST(contains(glue_on_terminal, "300 seeds passed"));
}

BOOST_AUTO_TEST_CASE(the_setting_turns_it_off_or_draws_the_line_anywhere) {
  const std::string off = stderr_of(stderr_to::terminal, {{"SIMASIO_PROGRESS", "0"}},
                                    [] { simasio::check(slow_seed, slow_sweep(120)); });
  BOOST_TEST(off.empty(), "stderr: " << off);
  const std::string forced = stderr_of(stderr_to::pipe, {{"SIMASIO_PROGRESS", "1"}},
                                       [] { simasio::check(slow_seed, slow_sweep(300)); });
  BOOST_TEST(contains(forced, "\rsimasio: progress: "), "stderr: " << forced);
  BOOST_TEST(contains(forced, "300 seeds passed"));
  const std::string bad = stderr_of(stderr_to::pipe, {{"SIMASIO_PROGRESS", "yes"}},
                                    [] { simasio::check(slow_seed, slow_sweep(10)); });
  BOOST_TEST(contains(bad, "EXCEPTION: simasio: SIMASIO_PROGRESS='yes'"), "stderr: " << bad);
}

BOOST_AUTO_TEST_CASE(a_shard_says_its_share_of_the_sweep) {
  const std::string out = stderr_of(stderr_to::terminal, {{"SIMASIO_SHARD_INDEX", "1"}, {"SIMASIO_SHARD_COUNT", "2"}},
                                    [] { simasio::check(slow_seed, slow_sweep(600)); });
  BOOST_TEST_INFO("stderr: " << out);
  BOOST_TEST(std::regex_search(out, std::regex(R"(\rsimasio: progress: [0-9]+/300 seeds \(shard 1 of 2, 600 in all\), )")));
  BOOST_TEST(contains(after_last_clear(out), "300 seeds passed in "));
  BOOST_TEST(contains(after_last_clear(out), "; shard 1 of 2 of a 600-seed sweep"));
}

BOOST_AUTO_TEST_CASE(a_failure_ends_the_sweep_and_its_shrinking_shows_its_replays) {
  // Seed 200 fails, whatever its draws; its runs take 150 ms, so shrinking's
  // first replay comes well after the sweep's last redraw and is drawn.
  auto scenario = [](simasio::world& w) {
    std::this_thread::sleep_for(w.seed() == 200 ? 150ms : 2ms);
    std::vector<std::unique_ptr<simasio::steady_timer>> timers;
    for (const char* name : {"a", "b", "c"}) {
      auto& h = w.add_host(name);
      for (int i = 1; i <= 5; ++i) {
        timers.push_back(std::make_unique<simasio::steady_timer>(h.context(), i * 1ms));
        timers.back()->async_wait([](auto) {});
      }
    }
    w.run();  // three hosts' timers due at once: the scheduler draws
    for (int i = 0; i < 5; ++i) (void)w.random().below(1000);  // a second stream: shrinking replays more than once
    if (w.seed() == 200) throw std::runtime_error("seed 200 fails");
  };
  const std::string out = stderr_of(stderr_to::terminal, {}, [&] { simasio::check(scenario, slow_sweep(300)); });
  BOOST_TEST_INFO("stderr: " << out);
  BOOST_TEST(std::regex_search(out, std::regex(R"(simasio: progress: seed 200 failed; 201 of 300 seeds ran in [0-9.]+ s)")));
  BOOST_TEST(std::regex_search(
                 out, std::regex(R"(\rsimasio: progress: shrinking seed 200: [0-9]+ of at most 300 replays, [0-9]+ deviations left)")),
             "stderr: " << out);
  // The report comes first (DESIGN.md §6), the sweep's summary after it.
  const std::string rest = after_last_clear(out);
  BOOST_TEST(rest.find("simasio: FAILED progress seed=200") == 0u);
  BOOST_TEST(rest.find("simasio: FAILED progress seed=200") < rest.find("simasio: progress: seed 200 failed"));
  BOOST_TEST(!contains(out, "EXCEPTION"));
}

BOOST_AUTO_TEST_SUITE_END()
