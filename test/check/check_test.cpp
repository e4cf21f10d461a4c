// check_test.cpp — sweeps find the first failing seed; replay reproduces it
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cmath>
#include <filesystem>
#include <set>
#include <unistd.h>
#include <malloc.h>
#include <array>
#include <simasio/asio.hpp>
#include <memory>
#include <sstream>
#include <random>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// Two hosts race to set a flag; the scenario fails when "b" wins, which
// happens on some seeds only.
void race(simasio::world& w) {
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  std::string winner;
  asio::post(a.context(), [&] {
    if (winner.empty()) winner = "a";
  });
  asio::post(b.context(), [&] {
    if (winner.empty()) winner = "b";
  });
  w.run();
  if (winner == "b") throw std::runtime_error("b won the race");
}

// One seed, run twice and compared (SIMASIO_VERIFY), reporting nothing.
simasio::check_options verify_one_seed() {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 1;
  opts.verify_determinism = true;
  return opts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(check)

BOOST_AUTO_TEST_CASE(sweep_reports_the_first_failing_seed_and_replay_reproduces_it) {
  simasio::check_options opts;
  opts.seeds = 100;
  opts.name = "race";
  opts.print = false;
  const auto result = simasio::check(race, opts);
  BOOST_REQUIRE(!result.ok());
  const auto& f = *result.failure;
  BOOST_TEST(f.what == "b won the race");
  BOOST_TEST(f.type == "std::runtime_error");
  BOOST_TEST(result.runs == f.seed + 1);
  BOOST_TEST(f.replay.find("SIMASIO_SEED=" + std::to_string(f.seed) + " ") == 0u);
  // Every earlier seed passes; replaying the failing one fails the same way.
  for (std::uint64_t s = 0; s < f.seed; ++s) BOOST_CHECK_NO_THROW(simasio::replay(race, s));
  try {
    simasio::replay(race, f.seed);
    BOOST_FAIL("replay should fail");
  } catch (const simasio::scenario_failure& e) {
    BOOST_TEST(std::string(e.what()).find("b won the race") != std::string::npos);
    BOOST_TEST(e.seed() == f.seed);
    BOOST_CHECK_THROW(std::rethrow_if_nested(e), std::runtime_error);
  }
}

BOOST_AUTO_TEST_CASE(simasio_seed_runs_exactly_that_seed) {
  simasio::check_options opts;
  opts.print = false;
  const auto first = simasio::check(race, opts);
  BOOST_REQUIRE(!first.ok());
  simasio_test::scoped_env env("SIMASIO_SEED", std::to_string(first.failure->seed).c_str());
  const auto again = simasio::check(race, opts);
  BOOST_TEST(again.runs == 1u);
  BOOST_REQUIRE(!again.ok());
  BOOST_TEST(again.failure->seed == first.failure->seed);
  BOOST_TEST(again.failure->step == first.failure->step);
}

BOOST_AUTO_TEST_CASE(simasio_seeds_sets_the_sweep_size_and_malformed_is_an_error) {
  simasio::check_options opts;
  opts.print = false;
  {
    simasio_test::scoped_env env("SIMASIO_SEEDS", "7");
    BOOST_TEST(simasio::check([](simasio::world&) {}, opts).runs == 7u);
  }
  simasio_test::scoped_env env("SIMASIO_SEEDS", "seven");
  BOOST_CHECK_THROW(simasio::check([](simasio::world&) {}, opts), simasio::config_error);
}

BOOST_AUTO_TEST_CASE(invariant_handler_exception_and_runaway_are_failures) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 3;
  auto inv = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        int n = 0;
        w.always("n below 2", [&] { return n < 2; });
        for (int i = 0; i < 3; ++i) asio::post(a.context(), [&] { ++n; });
        w.run();
      },
      opts);
  BOOST_REQUIRE(!inv.ok());
  BOOST_TEST(inv.failure->seed == 0u);
  BOOST_TEST(inv.failure->what.find("invariant 'n below 2' violated") != std::string::npos);

  auto thrown = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        asio::post(a.context(), [] { throw std::logic_error("handler blew up"); });
        w.run();
      },
      opts);
  BOOST_REQUIRE(!thrown.ok());
  BOOST_TEST(thrown.failure->what == "handler blew up");
  BOOST_TEST(thrown.failure->step == 1u);

  opts.world.max_steps = 500;
  auto runaway = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        std::function<void()> spin = [&] { asio::post(a.context(), spin); };
        spin();
        w.run();
      },
      opts);
  BOOST_REQUIRE(!runaway.ok());
  BOOST_TEST(runaway.failure->what.find("runaway scenario") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(stall_fails_only_when_asked) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 2;
  auto deadlock = [](simasio::world& w) {
    auto& a = w.add_host("a");
    auto t = std::make_shared<simasio::steady_timer>(a.context(), simasio::steady_clock::time_point::max());
    t->async_wait([t](auto) {});
    w.run();
  };
  BOOST_TEST(simasio::check(deadlock, opts).ok());
  opts.fail_on_stall = true;
  const auto r = simasio::check(deadlock, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what.find("deadlock") != std::string::npos);
  BOOST_TEST(r.failure->what.find("steady_timer::async_wait") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(failure_lines_follow_the_design) {
  simasio::check_options opts;
  opts.name = "race";
  // Capture stderr in a temporary file.
  std::FILE* tmp = std::tmpfile();
  BOOST_REQUIRE(tmp != nullptr);
  std::fflush(stderr);
  const int saved = ::dup(::fileno(stderr));
  ::dup2(::fileno(tmp), ::fileno(stderr));
  const auto r = simasio::check(race, opts);
  std::fflush(stderr);
  ::dup2(saved, ::fileno(stderr));
  ::close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, tmp) != nullptr) out += buf;
  std::fclose(tmp);
  BOOST_REQUIRE(!r.ok());
  std::ostringstream expect;
  expect << "simasio: FAILED race seed=" << r.failure->seed << " t=0.000s step=" << r.failure->step
         << ": b won the race\nsimasio: replay: SIMASIO_SEED=" << r.failure->seed << " ";
  BOOST_TEST(out.find(expect.str()) == 0u);
}

BOOST_AUTO_TEST_CASE(sometimes_counts_reachability_and_fails_a_sweep_that_never_reaches) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 50;
  auto scenario = [](bool impossible) {
    return [impossible](simasio::world& w) {
      auto& a = w.add_host("a");
      auto& b = w.add_host("b");
      std::string winner;
      w.sometimes("b wins the race", [&] { return winner == "b"; });
      if (impossible) w.sometimes("nobody wins", [&] { return winner == "nobody"; });
      asio::post(a.context(), [&] { if (winner.empty()) winner = "a"; });
      asio::post(b.context(), [&] { if (winner.empty()) winner = "b"; });
      w.run();
    };
  };
  const auto fine = simasio::check(scenario(false), opts);
  BOOST_TEST(fine.ok());
  BOOST_TEST(fine.reached.at("b wins the race") > 0u);
  BOOST_TEST(fine.reached.at("b wins the race") < 50u);
  const auto bad = simasio::check(scenario(true), opts);
  BOOST_REQUIRE(!bad.ok());
  BOOST_TEST(bad.failure->what.find("sometimes 'nobody wins' was never reached in 50 seed(s)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(buggify_is_off_outside_and_seeded_inside) {
  BOOST_TEST(!simasio::buggify("anything"));  // no world
  int fired = 0, calls = 0;
  std::set<std::uint64_t> seeds_that_fired;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    for (int i = 0; i < 10; ++i)
      asio::post(a.context(), [&, seed] {
        ++calls;
        if (simasio::buggify("slow path")) {
          ++fired;
          seeds_that_fired.insert(seed);
        }
      });
    w.run();
  }
  // A quarter of the seeds enable the site; it then fires a quarter of the time.
  BOOST_TEST(std::abs(static_cast<double>(seeds_that_fired.size()) / 400 - 0.25 * (1 - std::pow(0.75, 10))) < 0.07);
  BOOST_TEST(std::abs(static_cast<double>(fired) / calls - 0.0625) < 0.03);
  simasio::world_options off;
  off.buggify = false;
  simasio::world w(off);
  auto& a = w.add_host("a");
  bool any = false;
  for (int i = 0; i < 100; ++i) asio::post(a.context(), [&] { any |= simasio::buggify("slow path"); });
  w.run();
  BOOST_TEST(!any);
}

BOOST_AUTO_TEST_CASE(parallel_sweep_reports_the_same_seed_as_the_serial_one) {
  // Fails on a handful of seeds; with 4 workers the smallest must win.
  auto flaky = [](simasio::world& w) {
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    std::string order;
    for (int i = 0; i < 4; ++i) {
      asio::post(a.context(), [&] { order += 'a'; });
      asio::post(b.context(), [&] { order += 'b'; });
    }
    w.run();
    if (order.rfind("bbbb", 0) == 0) throw std::runtime_error("b ran four times first: " + order);
  };
  simasio::check_options opts;
  opts.seeds = 400;
  opts.print = false;
  const auto serial = simasio::check(flaky, opts);
  BOOST_REQUIRE(!serial.ok());
  for (unsigned jobs : {2u, 4u}) {
    opts.jobs = jobs;
    for (int repeat = 0; repeat < 5; ++repeat) {
      const auto parallel = simasio::check(flaky, opts);
      BOOST_REQUIRE(!parallel.ok());
      BOOST_TEST(parallel.failure->seed == serial.failure->seed);
      BOOST_TEST(parallel.failure->what == serial.failure->what);
      BOOST_TEST(parallel.runs == serial.runs);
    }
  }
  opts.jobs = 3;
  const auto passing = simasio::check([](simasio::world& w) { w.add_host("x"); }, opts);
  BOOST_TEST(passing.ok());
  BOOST_TEST(passing.runs == 400u);
}

BOOST_AUTO_TEST_CASE(simasio_jobs_and_malformed_jobs) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 10;
  {
    simasio_test::scoped_env env("SIMASIO_JOBS", "3");
    BOOST_TEST(simasio::check([](simasio::world&) {}, opts).runs == 10u);
  }
  for (const char* bad : {"0", "lots", "5000"}) {
    simasio_test::scoped_env env("SIMASIO_JOBS", bad);
    BOOST_CHECK_THROW(simasio::check([](simasio::world&) {}, opts), simasio::config_error);
  }
}

BOOST_AUTO_TEST_CASE(verifying_without_a_trace_hash_is_refused) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 3;
  opts.verify_determinism = true;
  opts.world.hash_trace = false;
  try {
    simasio::check([](simasio::world&) {}, opts);
    BOOST_FAIL("expected config_error");
  } catch (const simasio::config_error& e) {
    BOOST_TEST(std::string(e.what()).find("hash_trace") != std::string::npos);
  }
  // Without verification, hashing off is allowed, and the hash stays put.
  opts.verify_determinism = false;
  std::uint64_t hash = 0;
  const auto r = simasio::check([&](simasio::world& w) {
    auto& h = w.add_host("x");
    boost::asio::post(h.context(), [] {});
    w.run();
    hash = w.trace_hash();
  }, opts);
  BOOST_TEST(r.ok());
  simasio::world untouched;
  BOOST_TEST(hash == untouched.trace_hash());
}

BOOST_AUTO_TEST_CASE(shards_split_the_seeds_between_processes) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 10;
  opts.first_seed = 100;
  std::vector<std::uint64_t> seen;
  auto record = [&](simasio::world& w) { seen.push_back(w.seed()); };
  {
    simasio_test::scoped_env total("TEST_TOTAL_SHARDS", "3");
    simasio_test::scoped_env index("TEST_SHARD_INDEX", "1");
    const std::string status = (std::filesystem::temp_directory_path() / "simasio_shard_status").string();
    std::filesystem::remove(status);
    simasio_test::scoped_env file("TEST_SHARD_STATUS_FILE", status.c_str());
    BOOST_TEST(simasio::check(record, opts).runs == 3u);
    BOOST_TEST(std::filesystem::exists(status));  // Bazel's "sharding supported" handshake
  }
  BOOST_TEST(seen == std::vector<std::uint64_t>({101, 104, 107}), boost::test_tools::per_element());
  seen.clear();
  {
    simasio_test::scoped_env total("GTEST_TOTAL_SHARDS", "2");
    simasio_test::scoped_env index("GTEST_SHARD_INDEX", "0");
    simasio::check(record, opts);
  }
  BOOST_TEST(seen == std::vector<std::uint64_t>({100, 102, 104, 106, 108}), boost::test_tools::per_element());
  simasio_test::scoped_env total("TEST_TOTAL_SHARDS", "2");
  simasio_test::scoped_env index("TEST_SHARD_INDEX", "2");
  BOOST_CHECK_THROW(simasio::check(record, opts), simasio::config_error);
}

BOOST_AUTO_TEST_CASE(determinism_self_check_names_the_first_diverging_event) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = 100;
  opts.verify_determinism = true;
  const auto ordinary = simasio::check(race, opts);  // ordinary failures still show as themselves
  BOOST_REQUIRE(!ordinary.ok());
  BOOST_TEST(ordinary.failure->what == "b won the race");
  opts.seeds = 3;
  // A scenario that leaks state between runs: the second run of a seed
  // takes another path.
  int calls = 0;
  const auto r = simasio::check(
      [&](simasio::world& w) {
        auto& a = w.add_host("a");
        const int extra = calls++ % 2;
        for (int i = 0; i < 2 + extra; ++i) asio::post(a.context(), [] {});
        w.run();
      },
      opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->seed == 0u);
  BOOST_TEST(r.failure->what.find("nondeterminism") != std::string::npos);
  BOOST_TEST(r.failure->what.find("first difference at event #2") != std::string::npos);
  // Its report: no tape (none replays it), and a replay line that verifies.
  const std::string report = simasio::failure_report(*r.failure, "leaky");
  BOOST_TEST(report.find("simasio: shrunk:") == std::string::npos, report);
  BOOST_TEST(report.find("not shrunk: a nondeterministic run") != std::string::npos, report);
  BOOST_TEST(r.failure->replay.find("SIMASIO_SEED=0 SIMASIO_VERIFY=1 ") == 0u, r.failure->replay);
}

// Without simasio::interpose, std::chrono::steady_clock::now() is the real
// clock even inside a run: a deadline computed from it differs between the
// two runs of a seed, and the self-check names the first event that moved.
// (simasio_interpose_tests runs the same scenario deterministically.)
BOOST_AUTO_TEST_CASE(determinism_self_check_names_the_event_a_real_clock_read_moved) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        auto t = std::make_shared<simasio::steady_timer>(a.context());
        asio::post(a.context(), [t] {
          t->expires_at(std::chrono::steady_clock::now() + std::chrono::seconds(1));
          t->async_wait([t](auto) {});
        });
        w.run();
      },
      verify_one_seed());
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what.find("nondeterminism") != std::string::npos, r.failure->what);
  // Event #0 is the handler that read the clock; #1 is the time advance to its deadline.
  BOOST_TEST(r.failure->what.find("first difference at event #1: step 1") != std::string::npos, r.failure->what);
  BOOST_TEST(r.failure->what.find(" time_advance ") != std::string::npos, r.failure->what);
}

// A client whose bytes on the wire come from the real std::random_device
// (a websocket client's mask, say, without simasio::interpose): every event
// agrees between the two runs of a seed, the bytes do not, and the
// self-check says so.
BOOST_AUTO_TEST_CASE(determinism_self_check_sees_bytes_on_the_wire_that_differ_where_events_agree) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        auto& b = w.add_host("b");
        auto acceptor = std::make_shared<simasio::asio::ip::tcp::acceptor>(
            b.context(), simasio::asio::ip::tcp::endpoint(simasio::asio::ip::tcp::v4(), 80));
        auto peer = std::make_shared<simasio::asio::ip::tcp::socket>(b.context());
        acceptor->async_accept(*peer, [peer](auto) {});
        auto s = std::make_shared<simasio::asio::ip::tcp::socket>(a.context());
        s->async_connect({b.address(), 80}, [s](boost::system::error_code ec) {
          if (ec) return;
          std::random_device real;  // not the seed's
          auto mask = std::make_shared<std::array<std::uint32_t, 4>>();
          for (auto& m : *mask) m = real();
          asio::async_write(*s, asio::buffer(*mask), [s, mask](auto, std::size_t) {});
        });
        w.run();
      },
      verify_one_seed());
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what.find("nondeterminism") != std::string::npos, r.failure->what);
  BOOST_TEST(r.failure->what.find("the events agree") != std::string::npos, r.failure->what);
  BOOST_TEST(r.failure->what.find("bytes a socket sent or a file was written") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_CASE(determinism_self_check_sees_bytes_written_to_a_file_that_differ) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& a = w.add_host("a");
        asio::post(a.context(), [&a] {
          simasio::asio::random_access_file f(a.context(), "/data",
                                              simasio::asio::file_base::read_write | simasio::asio::file_base::create);
          std::random_device real;
          const std::uint32_t v = real();
          f.write_some_at(0, asio::buffer(&v, sizeof v));
        });
        w.run();
      },
      verify_one_seed());
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what.find("the events agree") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_SUITE_END()

// A long sweep must not accumulate memory: every seed's world is gone when
// the next begins. Measured as heap in use (mallinfo2) after 1,000 seeds and
// after 100,000; AddressSanitizer replaces malloc, so there the sweep runs
// but the heap is not read.
namespace {
// AddressSanitizer replaces malloc: mallinfo2 says nothing there.
constexpr bool heap_readable = !simasio::detail::under_address_sanitizer;
std::size_t heap_in_use() { return mallinfo2().uordblks; }
}  // namespace

BOOST_AUTO_TEST_SUITE(resources)

BOOST_AUTO_TEST_CASE(hundred_thousand_seeds_keep_the_heap_flat) {
  auto scenario = [](simasio::world& w) {
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    auto rx = std::make_shared<simasio::asio::ip::udp::socket>(
        b.context(), simasio::asio::ip::udp::endpoint(simasio::asio::ip::udp::v4(), 9));
    auto buf = std::make_shared<std::array<char, 8>>();
    rx->async_receive(boost::asio::buffer(*buf), [rx, buf](boost::system::error_code, std::size_t) {});
    simasio::asio::ip::udp::socket tx(a.context(), simasio::asio::ip::udp::v4());
    tx.send_to(boost::asio::buffer("12345678", 8), simasio::asio::ip::udp::endpoint(b.address(), 9));
    simasio::steady_timer t(a.context(), std::chrono::milliseconds(w.random().below(10)));
    t.async_wait([](boost::system::error_code) {});
    w.run();
  };
  simasio::check_options opts;
  opts.print = false;
  opts.artifacts = false;
  opts.seeds = 1000;
  BOOST_REQUIRE(simasio::check(scenario, opts).ok());
  const std::size_t after_1k = heap_in_use();
  opts.first_seed = 1000;
  opts.seeds = 99'000;
  const auto result = simasio::check(scenario, opts);
  BOOST_REQUIRE(result.ok());
  BOOST_TEST(result.runs == 99'000u);
  const std::size_t after_100k = heap_in_use();
  BOOST_TEST_MESSAGE("heap in use after 1,000 seeds: " << after_1k << " B, after 100,000: " << after_100k << " B");
  if (heap_readable) BOOST_TEST(after_100k <= after_1k + 16 * 1024);
}

BOOST_AUTO_TEST_SUITE_END()
