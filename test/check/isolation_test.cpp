// isolation_test.cpp — seeds in processes of their own: a fresh program each, and a death that is the seed's failure
#undef NDEBUG  // the assert below must fire in every build
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <cassert>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <string>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

simasio::check_options isolated(std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.print = false;
  o.artifacts_dir = "isolation-artifacts";
  o.isolation = simasio::isolation::on;
  return o;
}

// A handler of seed `bad` (and only that one) dies the way `how` says.
void dies_on(simasio::world& w, std::uint64_t bad, void (*how)()) {
  auto& h = w.add_host("h");
  const std::uint64_t when = w.random().below(5);
  asio::post(h.context(), [&w, bad, how, when] {
    (void)when;
    if (w.seed() == bad) how();
  });
  w.run();
}

// What a C program keeps in a global: each process of a fresh program sees 0.
int program_global = 0;

// A process that reads and bumps the global; its result decides how long
// the scenario then runs, so what it saw shows in the trace.
void reads_a_global(simasio::world& w) {
  auto& h = w.add_host("h");
  auto seen = std::make_shared<int>(-1);
  h.spawn([seen] { *seen = program_global++; });
  w.run();
  if (*seen < 0) throw std::runtime_error("the process did not run");
  w.run_for(std::chrono::milliseconds(1 + *seen));
  if (*seen != 0) throw std::runtime_error("the process saw " + std::to_string(*seen) + " left by an earlier seed");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(isolation)

BOOST_AUTO_TEST_CASE(a_seed_that_aborts_is_that_seeds_failure_with_the_signal_named_shrunk_and_traced) {
  const auto r = simasio::check([](simasio::world& w) { dies_on(w, 3, [] { std::abort(); }); }, isolated(10));
  BOOST_REQUIRE(!r.ok());
  const auto& f = *r.failure;
  BOOST_TEST(f.seed == 3u);
  BOOST_TEST(r.runs == 4u);
  BOOST_TEST(f.type == "simasio::fatal_signal");
  BOOST_TEST(f.what.find("SIGABRT") != std::string::npos, f.what);
  BOOST_TEST(f.replay.find("SIMASIO_SEED=3 ") == 0u);
  BOOST_TEST(f.step > 0u);  // the dying run's last words: where it was
  BOOST_TEST(!f.tape_path.empty(), f.not_shrunk);
  BOOST_TEST(!f.trace_path.empty());
  BOOST_TEST(std::ifstream(f.trace_path + ".jsonl").good());
}

BOOST_AUTO_TEST_CASE(a_failed_assert_names_its_condition_in_the_failure) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        dies_on(w, 1, [] {
          const int replies = 0;
          assert(replies == 1 && "one reply per request");
        });
      },
      isolated(4));
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->seed == 1u);
  BOOST_TEST(r.failure->what.find("SIGABRT") != std::string::npos);
  BOOST_TEST(r.failure->what.find("one reply per request") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_CASE(a_segfault_and_std_terminate_are_failures_of_their_seeds) {
  const auto segv = simasio::check([](simasio::world& w) { dies_on(w, 2, [] { std::raise(SIGSEGV); }); }, isolated(5));
  BOOST_REQUIRE(!segv.ok());
  BOOST_TEST(segv.failure->seed == 2u);
  BOOST_TEST(segv.failure->what.find("SIGSEGV") != std::string::npos, segv.failure->what);
  const auto term = simasio::check([](simasio::world& w) { dies_on(w, 0, [] { std::terminate(); }); }, isolated(5));
  BOOST_REQUIRE(!term.ok());
  BOOST_TEST(term.failure->seed == 0u);
  BOOST_TEST(term.failure->what.find("SIGABRT") != std::string::npos, term.failure->what);
}

BOOST_AUTO_TEST_CASE(exit_outside_a_process_is_a_failure_naming_the_status) {
  const auto r = simasio::check([](simasio::world& w) { dies_on(w, 1, [] { std::exit(7); }); }, isolated(3));
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->seed == 1u);
  BOOST_TEST(r.failure->what.find("exit status 7") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_CASE(each_isolated_seed_starts_from_the_program_as_it_was_before_the_sweep) {
  program_global = 0;
  const auto r = simasio::check(reads_a_global, isolated(20));
  BOOST_TEST(r.ok(), (r.failure ? r.failure->what : ""));
  BOOST_TEST(r.runs == 20u);
  BOOST_TEST(r.isolated);
  BOOST_TEST(program_global == 0);  // no seed ran in this process
  // Without isolation the second seed already sees what the first left.
  simasio::check_options off = isolated(20);
  off.isolation = simasio::isolation::off;
  const auto polluted = simasio::check(reads_a_global, off);
  BOOST_REQUIRE(!polluted.ok());
  BOOST_TEST(polluted.failure->seed == 1u);
  program_global = 0;
}

BOOST_AUTO_TEST_CASE(a_seed_traces_the_same_in_a_sweep_alone_with_jobs_and_in_a_shard) {
  program_global = 0;
  simasio::check_options o = isolated(12);
  o.shrink = false;
  const auto sweep = simasio::check(reads_a_global, o);
  BOOST_REQUIRE(sweep.ok());
  BOOST_REQUIRE(sweep.trace_hashes.size() == 12u);
  o.jobs = 2;
  o.jobs_from_environment = false;
  const auto parallel = simasio::check(reads_a_global, o);
  BOOST_TEST(parallel.trace_hashes == sweep.trace_hashes);
  o.jobs = 1;
  o.shard = simasio::shard_spec{1, 3, "test"};
  const auto shard = simasio::check(reads_a_global, o);
  BOOST_REQUIRE(shard.trace_hashes.size() == 4u);
  for (const auto& [seed, hash] : shard.trace_hashes) BOOST_TEST(hash == sweep.trace_hashes.at(seed).second);
  o.shard.reset();
  o.shard_seeds = false;
  for (std::uint64_t seed : {0u, 5u, 11u}) {
    simasio::check_options alone = o;
    alone.first_seed = seed;
    alone.seeds = 1;
    const auto one = simasio::check(reads_a_global, alone);
    BOOST_REQUIRE(one.trace_hashes.size() == 1u);
    BOOST_TEST(one.trace_hashes[0].second == sweep.trace_hashes.at(seed).second);
  }
  BOOST_CHECK_NO_THROW(simasio::replay(reads_a_global, 5));
}

BOOST_AUTO_TEST_CASE(automatic_isolation_starts_when_a_seed_spawns_and_not_before) {
  // A scenario that never spawns runs in this process: what it writes here stays.
  int runs_here = 0;
  simasio::check_options o;
  o.seeds = 10;
  o.print = false;
  const auto plain = simasio::check(
      [&](simasio::world& w) {
        w.add_host("h");
        ++runs_here;
      },
      o);
  BOOST_TEST(plain.ok());
  BOOST_TEST(!plain.isolated);
  BOOST_TEST(runs_here == 10);
  // One that spawns from its seventh seed on: the first six ran here, the
  // seventh stopped at its spawn (before the process ran) and ran again in
  // a process of its own, as every later seed did.
  runs_here = 0;
  program_global = 0;
  const auto spawning = simasio::check(
      [&](simasio::world& w) {
        ++runs_here;
        if (w.seed() >= 6) reads_a_global(w);
      },
      o);
  BOOST_TEST(spawning.ok(), (spawning.failure ? spawning.failure->what : ""));
  BOOST_TEST(spawning.isolated);
  BOOST_TEST(spawning.runs == 10u);
  BOOST_TEST(runs_here == 7);
  BOOST_TEST(program_global == 0);
}

BOOST_AUTO_TEST_CASE(counts_cross_from_isolated_seeds_to_the_result) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        reads_a_global(w);
        simasio::count_in_run(w.seed() % 2 == 0 ? "even" : "odd");
      },
      isolated(9));
  BOOST_TEST(r.ok());
  BOOST_TEST(r.counts.at("even") == 5u);
  BOOST_TEST(r.counts.at("odd") == 4u);
}

BOOST_AUTO_TEST_CASE(the_test_program_does_not_grow_with_what_isolated_seeds_leak) {
  // Each seed's process leaks 4 MiB it has touched: isolated, none of it
  // stays in the test program.
  const std::size_t before = simasio_test::resident_kib();
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        h.spawn([] {
          auto* leak = static_cast<char*>(std::malloc(4 << 20));
          for (std::size_t i = 0; i < (4u << 20); i += 4096) leak[i] = 1;
        });
        w.run();
      },
      isolated(100));
  BOOST_TEST(r.ok());
  BOOST_TEST(simasio_test::resident_kib() < before + 16 * 1024, before << " KiB before, " << simasio_test::resident_kib() << " after");
}

BOOST_AUTO_TEST_CASE(a_malformed_isolation_setting_is_a_config_error) {
  ::setenv("SIMASIO_ISOLATION", "sometimes", 1);
  BOOST_CHECK_EXCEPTION(simasio::check([](simasio::world&) {}, isolated(1)), simasio::config_error,
                        [](const simasio::config_error& e) {
                          return std::string(e.what()).find("SIMASIO_ISOLATION='sometimes'") != std::string::npos;
                        });
  ::unsetenv("SIMASIO_ISOLATION");
}

BOOST_AUTO_TEST_SUITE_END()
