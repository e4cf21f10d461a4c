// scheduler_test.cpp — strategies, interleavings between contexts, equal-time order
#include <simasio/simasio.hpp>

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// A handler that logs its host's name and posts the next one.
struct chain {
  std::string* out;
  simasio::host* host;
  int left;
  void operator()() const {
    *out += host->name();
    if (left > 1) asio::post(host->context(), chain{out, host, left - 1});
  }
};

// Three hosts each post a chain of 4 handlers; returns the interleaving.
std::string interleaving(simasio::world_options opts) {
  simasio::world w(opts);
  std::string out;
  for (const char* name : {"a", "b", "c"}) {
    auto& h = w.add_host(name);
    asio::post(h.context(), chain{&out, &h, 4});
  }
  w.run();
  return out;
}

// Timers on three hosts expiring at the same instant; returns firing order.
std::string equal_time_order(simasio::world_options opts) {
  simasio::world w(opts);
  std::string out;
  std::vector<std::unique_ptr<simasio::steady_timer>> timers;
  for (char name : std::string("abcde")) {
    auto& h = w.add_host(std::string(1, name));
    timers.push_back(std::make_unique<simasio::steady_timer>(h.context(), 10ms));
    timers.back()->async_wait([&out, name](auto) { out += name; });
  }
  w.run();
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler)

BOOST_AUTO_TEST_CASE(fifo_runs_the_oldest_ready_handler_across_contexts) {
  simasio::world_options opts;
  opts.strategy = simasio::strategy::fifo;
  BOOST_TEST(interleaving(opts) == "abcabcabcabc");
  BOOST_TEST(equal_time_order(opts) == "abcde");
}

BOOST_AUTO_TEST_CASE(random_walk_explores_many_interleavings_over_seeds) {
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const std::string s = interleaving({.seed = seed});
    BOOST_REQUIRE(s.size() == 12u);
    // Each host's own handlers keep their order (one thread per context).
    seen.insert(s);
  }
  BOOST_TEST(seen.size() > 100u);
}

BOOST_AUTO_TEST_CASE(equal_time_events_are_released_in_seed_order) {
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const std::string s = equal_time_order({.seed = seed});
    BOOST_REQUIRE(s.size() == 5u);
    seen.insert(s);
    BOOST_TEST(equal_time_order({.seed = seed}) == s);  // and replayed exactly
  }
  BOOST_TEST(seen.size() > 50u);
}

BOOST_AUTO_TEST_CASE(pct_is_deterministic_and_explores) {
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    simasio::world_options opts{.seed = seed, .strategy = simasio::strategy::pct, .pct_depth = 3, .pct_horizon = 12};
    const std::string s = interleaving(opts);
    BOOST_TEST(interleaving(opts) == s);
    seen.insert(s);
  }
  BOOST_TEST(seen.size() > 5u);
}

BOOST_AUTO_TEST_CASE(pct_with_depth_one_runs_one_context_to_completion_first) {
  // Depth 1: no change points, so the highest-priority context runs until
  // it has nothing ready.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world_options opts{.seed = seed, .strategy = simasio::strategy::pct, .pct_depth = 1};
    const std::string s = interleaving(opts);
    BOOST_TEST((s.substr(0, 4) == std::string(4, s[0])));
  }
}

BOOST_AUTO_TEST_CASE(single_context_draws_nothing) {
  simasio::world w(1);
  simasio::io_context ioc;
  for (int i = 0; i < 100; ++i) asio::post(ioc, [] {});
  ioc.run();
  BOOST_TEST(w.tape().choices() == 0u);
}

BOOST_AUTO_TEST_CASE(bad_pct_depth_is_rejected) {
  simasio::world_options opts{.strategy = simasio::strategy::pct, .pct_depth = 0};
  BOOST_CHECK_THROW(simasio::world w(opts), simasio::config_error);
}

BOOST_AUTO_TEST_SUITE_END()
