// report_test.cpp — failure reports a user can trust: settings read up
// front, shards that cover every seed once, signatures that ignore numbers,
// runaways reported fast with bounded artifacts, replay lines that replay
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

simasio::check_options quiet(std::uint64_t seeds) {
  simasio::check_options opts;
  opts.print = false;
  opts.seeds = seeds;
  return opts;
}

// A handler that posts itself forever: a runaway.
void spin_forever(simasio::world& w) {
  auto& a = w.add_host("a");
  std::function<void()> spin = [&] { asio::post(a.context(), spin); };
  spin();
  w.run();
}

// Which seeds a sweep ran, under the environment the caller set.
std::vector<std::uint64_t> seeds_run(simasio::check_options opts) {
  std::vector<std::uint64_t> seen;
  simasio::check([&](simasio::world& w) { seen.push_back(w.seed()); }, opts);
  return seen;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reports)

BOOST_AUTO_TEST_CASE(a_bad_log_level_is_a_config_error_before_any_seed_runs) {
  simasio_test::scoped_env env("SIMASIO_LOG", "loud");
  int runs = 0;
  const std::string what =
      simasio_test::what_of<simasio::config_error>([&] { simasio::check([&](simasio::world&) { ++runs; }, quiet(5)); });
  BOOST_TEST(what.find("SIMASIO_LOG='loud' is not a level") != std::string::npos, what);
  BOOST_TEST(runs == 0);
}

BOOST_AUTO_TEST_CASE(zero_seeds_is_a_config_error_not_a_silent_pass) {
  {
    simasio_test::scoped_env env("SIMASIO_SEEDS", "0");
    const std::string what =
        simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(5)); });
    BOOST_TEST(what.find("SIMASIO_SEEDS='0' is out of range") != std::string::npos, what);
  }
  const std::string what =
      simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(0)); });
  BOOST_TEST(what.find("seeds is 0") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(jobs_and_verify_errors_quote_their_own_range) {
  {
    simasio_test::scoped_env env("SIMASIO_JOBS", "abc");
    const std::string what =
        simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(2)); });
    BOOST_TEST(what.find("SIMASIO_JOBS='abc' is not a number: expected worker threads, a whole number from 1 to 1024") !=
                   std::string::npos,
               what);
    BOOST_TEST(what.find("18446744073709551615") == std::string::npos, what);
  }
  simasio_test::scoped_env env("SIMASIO_VERIFY", "yes");
  const std::string what =
      simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(2)); });
  BOOST_TEST(what.find("SIMASIO_VERIFY='yes' is not a number: expected 0 (off) or 1") != std::string::npos, what);
  BOOST_TEST(what.find("18446744073709551615") == std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(half_of_a_shard_pair_is_a_config_error) {
  const std::pair<const char*, const char*> halves[] = {{"TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS"},
                                                         {"TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"},
                                                         {"SIMASIO_SHARD_INDEX", "SIMASIO_SHARD_COUNT"},
                                                         {"SIMASIO_SHARD_COUNT", "SIMASIO_SHARD_INDEX"},
                                                         {"GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS"}};
  for (const auto& [set, missing] : halves) {
    simasio_test::scoped_env env(set, "1");
    const std::string what =
        simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(4)); });
    BOOST_TEST(what.find(std::string(set) + " is set but " + missing + " is not") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(simasio_shard_variables_split_every_seed_into_exactly_one_shard) {
  std::multiset<std::uint64_t> all;
  for (int i = 0; i < 8; ++i) {
    simasio_test::scoped_env count("SIMASIO_SHARD_COUNT", "8");
    simasio_test::scoped_env index("SIMASIO_SHARD_INDEX", std::to_string(i).c_str());
    const auto seen = seeds_run(quiet(100));
    BOOST_TEST((seen.size() == 12u || seen.size() == 13u), "shard " << i << " ran " << seen.size());
    all.insert(seen.begin(), seen.end());
  }
  BOOST_TEST(all.size() == 100u);
  for (std::uint64_t s = 0; s < 100; ++s) BOOST_TEST(all.count(s) == 1u, "seed " << s);
  // The shard a process runs, as the README's rule gives it.
  simasio_test::scoped_env count("SIMASIO_SHARD_COUNT", "3");
  simasio_test::scoped_env index("SIMASIO_SHARD_INDEX", "2");
  const simasio::shard_spec shard = simasio::shard_from_environment();
  BOOST_TEST(shard.index == 2u);
  BOOST_TEST(shard.count == 3u);
  BOOST_TEST(shard.source == "SIMASIO_SHARD_INDEX/SIMASIO_SHARD_COUNT");
}

BOOST_AUTO_TEST_CASE(a_shard_count_near_the_top_of_the_range_does_not_wrap_into_other_shards) {
  simasio_test::scoped_env count("SIMASIO_SHARD_COUNT", "18446744073709551615");
  simasio_test::scoped_env index("SIMASIO_SHARD_INDEX", "1");
  BOOST_TEST(seeds_run(quiet(5)) == std::vector<std::uint64_t>({1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_huge_trace_limit_keeps_every_event) {
  simasio::world_options o;
  o.record_trace = true;
  o.record_trace_limit = static_cast<std::size_t>(-1) - 1;  // 2 * limit would wrap
  simasio::world w(o);
  auto& a = w.add_host("a");
  for (int i = 0; i < 100; ++i) asio::post(a.context(), [] {});
  w.run();
  BOOST_TEST(w.events().events().size() >= 100u);
  BOOST_TEST(w.events().events_omitted() == 0u);
}

BOOST_AUTO_TEST_CASE(a_trace_can_keep_its_first_events_or_its_last) {
  simasio::trace first, last;
  first.record_all(true, 10, true);
  last.record_all(true, 10);
  for (std::uint64_t i = 0; i < 100; ++i) {
    first.record(i, 0, 0, simasio::event_kind::user, i, 0);
    last.record(i, 0, 0, simasio::event_kind::user, i, 0);
  }
  BOOST_TEST(first.events().size() == 10u);
  BOOST_TEST(first.events().front().step == 0u);
  BOOST_TEST(first.events_omitted() == 90u);
  BOOST_TEST(last.events().back().step == 99u);
  BOOST_TEST(last.events().size() + last.events_omitted() == 100u);
  BOOST_TEST(first.hash() == last.hash());  // the hash covers every event either way
}

BOOST_AUTO_TEST_CASE(a_runaway_under_the_determinism_self_check_is_reported_as_a_runaway) {
  auto opts = quiet(2);
  opts.verify_determinism = true;
  opts.artifacts = false;
  opts.world.max_steps = 100'000;
  const auto r = simasio::check(spin_forever, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->type == "simasio::runaway_error");
}

BOOST_AUTO_TEST_CASE(shard_pairs_that_disagree_are_a_config_error_and_agreeing_ones_are_one_shard) {
  simasio_test::scoped_env count("SIMASIO_SHARD_COUNT", "2");
  simasio_test::scoped_env index("SIMASIO_SHARD_INDEX", "0");
  simasio_test::scoped_env total("TEST_TOTAL_SHARDS", "2");
  {
    simasio_test::scoped_env other("TEST_SHARD_INDEX", "1");
    const std::string what =
        simasio_test::what_of<simasio::config_error>([] { simasio::check([](simasio::world&) {}, quiet(4)); });
    BOOST_TEST(what.find("say shard 0 of 2 but TEST_SHARD_INDEX/TEST_TOTAL_SHARDS say 1 of 2") != std::string::npos,
               what);
  }
  simasio_test::scoped_env same("TEST_SHARD_INDEX", "0");
  BOOST_TEST(seeds_run(quiet(4)) == std::vector<std::uint64_t>({0, 2}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(failure_signatures_mask_numbers) {
  BOOST_TEST(simasio::failure_signature("std::runtime_error", "stalled at t=0.229s after 3 retries (0x1f)") ==
             "std::runtime_error: stalled at t=#.#s after # retries (#)");
  BOOST_TEST(simasio::failure_signature("E", "no numbers") == "E: no numbers");
}

// A deadlock that does not depend on timing: "a" waits forever, whatever
// the background chatter does; the message carries the time of the stall,
// which the chatter's seeded latencies decide.
void deadlock_among_chatter(simasio::world& w) {
  auto& a = w.add_host("a");
  for (int k = 0; k < 4; ++k) {
    auto& h = w.add_host("chatter" + std::to_string(k));
    for (int i = 0; i < 5; ++i) {
      auto t = std::make_shared<simasio::steady_timer>(h.context(), std::chrono::milliseconds(1 + w.random().below(900)));
      t->async_wait([t, &h](auto) { asio::post(h.context(), [] {}); });
    }
  }
  auto forever = std::make_shared<simasio::steady_timer>(a.context(), simasio::steady_clock::time_point::max());
  forever->async_wait([forever](auto) {});
  w.run();
  if (w.stalled())
    throw std::runtime_error("stalled at t=" + std::to_string(w.now().count()) + "ns after " +
                             std::to_string(w.steps()) + " steps");
}

BOOST_AUTO_TEST_CASE(a_timing_independent_deadlock_shrinks_to_zero_deviations) {
  auto opts = quiet(20);
  opts.artifacts = false;
  opts.artifacts_dir = simasio_test::temp_dir("simasio_report_deadlock");
  opts.shrink_budget = 1000;
  const auto r = simasio::check(deadlock_among_chatter, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->seed == 0u);
  BOOST_TEST(!r.failure->tape_path.empty());
  BOOST_TEST(r.failure->original_choices > 10u);
  BOOST_TEST(r.failure->deviations == 0u, "shrunk to " << r.failure->deviations << " deviations");
}

BOOST_AUTO_TEST_CASE(a_runaway_is_not_shrunk_and_its_trace_keeps_only_the_last_events) {
  auto opts = quiet(3);
  opts.name = "spin";
  opts.world.max_steps = 200'000;
  opts.max_trace_events = 1000;
  opts.artifacts_dir = simasio_test::temp_dir("simasio_report_runaway");
  int runs = 0;
  const auto r = simasio::check(
      [&](simasio::world& w) {
        ++runs;
        spin_forever(w);
      },
      opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->type == "simasio::runaway_error");
  BOOST_TEST(r.failure->tape_path.empty());
  BOOST_TEST(r.failure->not_shrunk.find("runaway") != std::string::npos, r.failure->not_shrunk);
  BOOST_TEST(runs == 2);  // the sweep's run and the artifact run: no shrinking replays
  const std::string report = simasio::failure_report(*r.failure, "spin");
  BOOST_TEST(report.find("simasio: not shrunk: a runaway") != std::string::npos, report);
  BOOST_REQUIRE(!r.failure->trace_path.empty());
  std::ifstream in(r.failure->trace_path + ".jsonl");
  std::string first, line;
  std::getline(in, first);
  std::size_t lines = 1;
  while (std::getline(in, line)) ++lines;
  BOOST_TEST(first.find("\"omitted_events\":") != std::string::npos, first);
  BOOST_TEST(lines <= 1001u);
  BOOST_TEST(lines > 900u);
  BOOST_TEST(std::filesystem::file_size(r.failure->trace_path + ".html") < 2'000'000u);
  std::ifstream html(r.failure->trace_path + ".html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  BOOST_TEST(page.find("events of this run are left out") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(replaying_a_tape_prints_a_line_that_replays_the_tape_by_its_absolute_path) {
  auto opts = quiet(100);
  opts.name = "race";
  const std::string dir = simasio_test::temp_dir("simasio_report_tape");
  opts.artifacts_dir = dir;
  opts.artifacts = false;
  auto race = [](simasio::world& w) {
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    std::string winner;
    asio::post(a.context(), [&] { if (winner.empty()) winner = "a"; });
    asio::post(b.context(), [&] { if (winner.empty()) winner = "b"; });
    w.run();
    if (winner == "b") throw std::runtime_error("b won the race");
  };
  const auto r = simasio::check(race, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_REQUIRE(!r.failure->tape_path.empty());
  // Replay the shrunk tape through a relative path.
  const auto relative = std::filesystem::relative(r.failure->tape_path);
  simasio_test::scoped_env tape("SIMASIO_TAPE", relative.c_str());
  const auto again = simasio::check(race, opts);
  BOOST_REQUIRE(!again.ok());
  const std::string expected = "SIMASIO_TAPE=" + std::filesystem::absolute(r.failure->tape_path).lexically_normal().string() + " ";
  BOOST_TEST(again.failure->replay.rfind(expected, 0) == 0u, again.failure->replay);
  BOOST_TEST(again.failure->replay.find("SIMASIO_SEED") == std::string::npos, again.failure->replay);
  // The program by an absolute path: the line works from any directory.
  BOOST_TEST(again.failure->replay.substr(expected.size(), 1) == "/", again.failure->replay);
}

// Two hosts exchange a datagram a seed draws; seed 3 fails. The scenario
// logs and installs a decoder: the trace page shows both.
void labelled_exchange(simasio::world& w) {
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  w.net().describe_packets([](const simasio::packet_view& p) {
    return "Greeting " + std::string(p.payload.data(), p.payload.size());
  });
  using boost::asio::ip::udp;
  simasio::ip::udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9000));
  simasio::ip::udp::socket tx(a.context(), udp::endpoint(udp::v4(), 0));
  const std::string text = "n=" + std::to_string(w.random().below(100));
  char buf[32];
  rx.async_receive(boost::asio::buffer(buf), [&](boost::system::error_code, std::size_t) {
    simasio::log::logger(b)->info("got the greeting");
  });
  tx.async_send_to(boost::asio::buffer(text), udp::endpoint(b.address(), 9000), [](auto, auto) {});
  w.run();
  if (w.seed() == 3) throw std::runtime_error("seed 3 fails");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

BOOST_AUTO_TEST_CASE(the_trace_page_labels_packets_shows_logs_and_marks_the_failure) {
  const std::string dir = simasio_test::temp_dir("simasio-trace-page");
  auto opts = quiet(10);
  opts.name = "labelled";
  opts.artifacts_dir = dir;
  const auto r = simasio::check(labelled_exchange, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_REQUIRE(!r.failure->trace_path.empty());
  const std::string page = read_file(r.failure->trace_path + ".html");
  BOOST_TEST(page.find(R"("udp )") != std::string::npos);
  BOOST_TEST(page.find("B: Greeting n=") != std::string::npos);        // the decoder's words on the label
  BOOST_TEST(page.find(R"("info","got the greeting")") != std::string::npos);  // the log line, at its instant
  BOOST_TEST(page.find(R"(const failure = {"step":)") != std::string::npos);
  BOOST_TEST(page.find("seed 3 fails") != std::string::npos);
  // The shrunk tape's run beside the seed's.
  BOOST_REQUIRE(!r.failure->comparison_path.empty());
  const std::string compare = read_file(r.failure->comparison_path);
  BOOST_TEST(compare.find("shrunk tape") != std::string::npos);
  BOOST_TEST(simasio::failure_report(*r.failure, "labelled").find("simasio: compare: " + r.failure->comparison_path) !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(labels_and_logs_leave_the_trace_hash_alone) {
  // A recorded run (with its labels and log lines) hashes as an unrecorded one.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world_options plain;
    plain.seed = seed;
    simasio::world_options recorded = plain;
    recorded.record_trace = true;
    std::uint64_t hashes[2] = {0, 0};
    int i = 0;
    for (const auto& o : {plain, recorded}) {
      simasio::world w(o);
      try {
        labelled_exchange(w);
      } catch (const std::runtime_error&) {
      }
      hashes[i++] = w.trace_hash();
      if (o.record_trace) BOOST_TEST(!w.events().annotations().packets.empty());
    }
    BOOST_TEST(hashes[0] == hashes[1], "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(a_seed_is_put_beside_another_on_request) {
  const std::string dir = simasio_test::temp_dir("simasio-compare-seeds");
  simasio_test::scoped_env seed("SIMASIO_SEED", "4");
  simasio_test::scoped_env other("SIMASIO_COMPARE_SEED", "5");
  auto opts = quiet(10);
  opts.name = "labelled";
  opts.artifacts_dir = dir;
  const auto r = simasio::check(labelled_exchange, opts);
  BOOST_TEST(r.ok());
  const std::string compare = read_file(dir + "/labelled-seed4-vs-seed5.compare.html");
  BOOST_TEST(compare.find(R"(const names = ["seed 4","seed 5"])") != std::string::npos);
  BOOST_TEST(compare.find("Greeting n=") != std::string::npos);
  {
    simasio_test::scoped_env no_seed("SIMASIO_SEED", nullptr);
    BOOST_CHECK_EXCEPTION(simasio::check(labelled_exchange, opts), simasio::config_error,
                          [](const simasio::config_error& e) {
                            return std::string(e.what()).find("SIMASIO_COMPARE_SEED is set but SIMASIO_SEED") !=
                                   std::string::npos;
                          });
  }
}

BOOST_AUTO_TEST_SUITE_END()
