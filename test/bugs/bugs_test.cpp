// bugs_test.cpp — small pthread programs with known bugs, run unmodified as simulated processes
//
// Each program in test/bugs/ is built twice, as it is and with -DFIXED,
// its main() renamed (the one change). A seed runs it as a process of a
// host; the seed fails when the program deadlocks (the world stalls), ends
// abnormally (a failed assert) or returns, or exits, with a status other
// than 0. Every bug is found within 1,000 seeds by the random walk and by
// PCT, every fixed version passes them all, and the first failing seed
// replays in a fresh OS process with the same trace.
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

// The programs' main()s, renamed by their build (test/CMakeLists.txt).
#define SIMASIO_BUG(name)                \
  extern "C" int name##_main(void);       \
  extern "C" int name##_fixed_main(void);
SIMASIO_BUG(deadlock_abba)
SIMASIO_BUG(philosophers)
SIMASIO_BUG(lost_wakeup)
SIMASIO_BUG(atomicity_split)
SIMASIO_BUG(order_violation)
SIMASIO_BUG(assert_in_thread)
SIMASIO_BUG(pthread_exit_locked)
SIMASIO_BUG(exit_from_thread)
#undef SIMASIO_BUG
int cv_if_not_while_main();
int cv_if_not_while_fixed_main();
int future_split_update_main();
int future_split_update_fixed_main();

namespace {

struct program {
  const char* name;
  const char* bug;
  int (*buggy)();
  int (*fixed)();
};

const std::array<program, 10> programs{{
    {"deadlock_abba", "deadlock: two locks taken in opposite orders", deadlock_abba_main, deadlock_abba_fixed_main},
    {"philosophers", "lock-order inversion over three threads", philosophers_main, philosophers_fixed_main},
    {"lost_wakeup", "lost wake-up: a wait without a predicate", lost_wakeup_main, lost_wakeup_fixed_main},
    {"atomicity_split", "atomicity violation: check-then-act in two critical sections", atomicity_split_main,
     atomicity_split_fixed_main},
    {"order_violation", "order violation: used before it is set up (assert)", order_violation_main,
     order_violation_fixed_main},
    {"assert_in_thread", "an assert in a thread sees a half-done transfer", assert_in_thread_main,
     assert_in_thread_fixed_main},
    {"pthread_exit_locked", "pthread_exit with a lock held", pthread_exit_locked_main, pthread_exit_locked_fixed_main},
    {"exit_from_thread", "exit() from a thread that sees a half-published record", exit_from_thread_main,
     exit_from_thread_fixed_main},
    {"cv_if_not_while", "C++: a condition variable waited with if, not while", cv_if_not_while_main,
     cv_if_not_while_fixed_main},
    {"future_split_update", "C++: std::async tasks lose updates", future_split_update_main,
     future_split_update_fixed_main},
}};

// One seed: the program as a process of host "h".
void run_program(simasio::world& w, int (*main_fn)()) {
  const simasio::process p = w.add_host("h").spawn_main([main_fn](int, char**) { return main_fn(); }, {"program"});
  w.run_for(std::chrono::seconds(10));
  if (w.stalled()) throw std::runtime_error("deadlock: " + w.pending_report());
  if (!p.ended()) throw std::runtime_error("the program did not end within 10 s of virtual time");
  if (p.exit_code().value_or(0) != 0)
    throw std::runtime_error("the program ended with status " + std::to_string(*p.exit_code()));
}

simasio::check_options sweep(simasio::strategy s, std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.print = false;
  o.shrink = false;
  o.artifacts = false;
  o.world.strategy = s;
  return o;
}

// How many of a sweep's seeds fail (it goes on past each), and the first.
std::pair<std::uint64_t, std::uint64_t> failures(const program& prog, const simasio::check_options& o) {
  const auto all = simasio::check(
      [&](simasio::world& w) {
        try {
          run_program(w, prog.buggy);
        } catch (const std::exception&) {
          simasio::count_in_run("failed");
          simasio::count_in_run("failed at seed " + std::to_string(1'000'000'000 + w.seed()));  // sorts by seed
        }
      },
      o);
  if (!all.ok() || all.counts.count("failed") == 0) return {0, 0};
  const std::uint64_t first = std::stoull(all.counts.upper_bound("failed at seed ")->first.substr(15)) - 1'000'000'000;
  return {all.counts.at("failed"), first};
}

// Seeds per sweep: 1,000, or SIMASIO_BUG_SEEDS (the sanitizer build runs fewer).
std::uint64_t seeds_per_sweep() {
  const char* n = std::getenv("SIMASIO_BUG_SEEDS");
  return n != nullptr ? std::strtoull(n, nullptr, 10) : 1000;
}

const char* name_of(simasio::strategy s) { return s == simasio::strategy::pct ? "pct" : "random_walk"; }

// The same seed in a fresh OS process: this program again, asked for that
// one seed of that one program; it prints the run's trace hash.
std::uint64_t hash_in_a_fresh_process(const std::string& name, simasio::strategy s, std::uint64_t seed) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw std::runtime_error("no /proc/self/exe");
  self[n] = '\0';
  const std::string command = "SIMASIO_BUG=" + name + " SIMASIO_BUG_STRATEGY=" + name_of(s) +
                              " SIMASIO_SEED=" + std::to_string(seed) + " '" + self +
                              "' --run_test=bugs/one_seed_of_one_program --log_level=message 2>&1";
  FILE* out = ::popen(command.c_str(), "r");
  if (out == nullptr) throw std::runtime_error("popen failed");
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, out) != nullptr) text += buf;
  ::pclose(out);
  const auto at = text.find("trace_hash=");
  if (at == std::string::npos) throw std::runtime_error("the fresh process said: " + text);
  return std::strtoull(text.c_str() + at + 11, nullptr, 10);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bugs)

BOOST_AUTO_TEST_CASE(every_bug_is_found_within_1000_seeds_by_random_walk_and_pct_and_replays_in_a_fresh_process) {
  std::ostringstream table, old_table;
  table << "| program | bug | random_walk: first failing seed, seeds of 1,000 that fail | pct: likewise | pct over "
           "10,000 steps (the old default): likewise |\n"
        << "|---|---|---|---|---|\n";
  for (const program& prog : programs) {
    table << "| " << prog.name << " | " << prog.bug << " |";
    {
      // For the record: change points spread over 10,000 steps, as before
      // the horizon was derived, in runs of a few dozen steps.
      simasio::check_options old = sweep(simasio::strategy::pct, seeds_per_sweep());
      old.world.pct_horizon = 10'000;
      old_table << " " << failures(prog, old).first << " |";
    }
    for (const auto s : {simasio::strategy::random_walk, simasio::strategy::pct}) {
      const auto [failing, seed] = failures(prog, sweep(s, seeds_per_sweep()));
      BOOST_TEST_REQUIRE(failing > 0u, prog.name << " under " << name_of(s) << ": no seed of 1,000 failed");
      // That seed fails as a sweep's first failure, and traces the same in a fresh OS process.
      simasio::check_options one = sweep(s, 1);
      one.first_seed = seed;
      const auto again = simasio::check([&](simasio::world& w) { run_program(w, prog.buggy); }, one);
      BOOST_TEST_REQUIRE(!again.ok(), prog.name << " seed " << seed << " passed when run again");
      BOOST_TEST(hash_in_a_fresh_process(prog.name, s, seed) == again.trace_hashes.back().second,
                 prog.name << " seed " << seed << " traced otherwise in a fresh process");
      table << " " << seed << ", " << failing << " |";
    }
    table << old_table.str() << "\n";
    old_table.str("");
  }
  BOOST_TEST_MESSAGE("\n" << table.str());
}

BOOST_AUTO_TEST_CASE(every_fixed_version_passes_1000_seeds_under_both) {
  for (const program& prog : programs)
    for (const auto s : {simasio::strategy::random_walk, simasio::strategy::pct}) {
      const auto r = simasio::check([&](simasio::world& w) { run_program(w, prog.fixed); }, sweep(s, seeds_per_sweep()));
      BOOST_TEST(r.ok(), prog.name << " (fixed) under " << name_of(s) << ": "
                                   << (r.failure ? "seed " + std::to_string(r.failure->seed) + ": " + r.failure->what
                                                 : ""));
      BOOST_TEST(r.isolated);
    }
}

// Run by the replay check above, in a process of its own.
BOOST_AUTO_TEST_CASE(one_seed_of_one_program) {
  const char* name = std::getenv("SIMASIO_BUG");
  if (name == nullptr) return;  // only when asked
  const char* strategy = std::getenv("SIMASIO_BUG_STRATEGY");
  const auto s = strategy != nullptr && std::string(strategy) == "pct" ? simasio::strategy::pct
                                                                        : simasio::strategy::random_walk;
  for (const program& prog : programs) {
    if (prog.name != std::string(name)) continue;
    const auto r = simasio::check([&](simasio::world& w) { run_program(w, prog.buggy); }, sweep(s, 1));
    BOOST_REQUIRE(!r.trace_hashes.empty());
    BOOST_TEST_MESSAGE("trace_hash=" << r.trace_hashes.back().second);
  }
}

BOOST_AUTO_TEST_SUITE_END()
