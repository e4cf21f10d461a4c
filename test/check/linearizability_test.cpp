// linearizability_test.cpp — check_linearizable on hand-made histories, and against a brute-force checker
#include <simasio/check/history.hpp>
#include <simasio/check/linearizability.hpp>
#include <simasio/check/models.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <deque>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace {

// ---- a register: write(v) -> 0, read() -> v -------------------------------------------
using reg_input = simasio::models::register_op<>;
using register_model = simasio::models::register_model<>;
using reg_history = simasio::history<reg_input, int>;

reg_input write_of(int v) { return {true, v}; }
reg_input read_of() { return {false, 0}; }

// Adds an operation [call, ret] with its output.
std::size_t op(reg_history& h, std::uint32_t client, reg_input in, int out, std::int64_t call, std::int64_t ret) {
  const auto id = h.invoke(client, in, call);
  h.complete(id, out, ret);
  return id;
}

// ---- a key-value map, partitioned by key -----------------------------------------------
struct kv_input {
  std::string key;
  bool put = false;
  int value = 0;
};
struct kv_model {
  using state = int;  // one key's value: partitions are checked apart
  using input = kv_input;
  using output = int;
  static state init() { return -1; }
  static std::string key(const input& in) { return in.key; }
  static std::tuple<bool, output, state> step(const state& s, const input& in) {
    if (in.put) return {true, 0, in.value};
    return {true, s, s};
  }
};

// ---- a FIFO queue ---------------------------------------------------------------------------
struct queue_input {
  bool enqueue = false;
  int value = 0;
};
struct queue_model {
  using state = std::vector<int>;
  using input = queue_input;
  using output = int;  // dequeue: the value, or -1 when empty
  static state init() { return {}; }
  static std::size_t hash(const state& s) {
    std::size_t h = s.size();
    for (int v : s) h = h * 31 + static_cast<std::size_t>(v);
    return h;
  }
  static std::tuple<bool, output, state> step(const state& s, const input& in) {
    state n = s;
    if (in.enqueue) {
      n.push_back(in.value);
      return {true, 0, n};
    }
    if (n.empty()) return {true, -1, n};
    const int v = n.front();
    n.erase(n.begin());
    return {true, v, n};
  }
};

// ---- brute force: every order consistent with real time, every subset of indeterminate ops ----
bool brute_force(const reg_history& h) {
  const auto& ops = h.operations();
  const std::size_t n = ops.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::size_t> maybe;  // indeterminate
  for (std::size_t i = 0; i < n; ++i)
    if (!ops[i].output || ops[i].indeterminate) maybe.push_back(i);
  for (std::uint32_t mask = 0; mask < (1u << maybe.size()); ++mask) {
    std::vector<bool> skip(n, false);
    for (std::size_t j = 0; j < maybe.size(); ++j) skip[maybe[j]] = ((mask >> j) & 1u) != 0;
    std::sort(order.begin(), order.end());
    do {
      bool ok = true;
      // Real time: a before b in the order whenever a returned before b was invoked.
      for (std::size_t x = 0; x < n && ok; ++x)
        for (std::size_t y = x + 1; y < n && ok; ++y)
          if (!skip[order[x]] && !skip[order[y]] && ops[order[y]].return_ns < ops[order[x]].call_ns) ok = false;
      int state = register_model::init();
      for (std::size_t x = 0; x < n && ok; ++x) {
        const auto& o = ops[order[x]];
        if (skip[order[x]]) continue;
        auto [accepted, out, next] = register_model::step(state, o.input);
        if (!accepted) ok = false;
        else if (o.output && !o.indeterminate && out != *o.output) ok = false;
        state = next;
      }
      if (ok) return true;
    } while (std::next_permutation(order.begin(), order.end()));
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(linearizability)

BOOST_AUTO_TEST_CASE(a_read_concurrent_with_a_write_may_see_either_value) {
  for (int seen : {0, 1}) {
    reg_history h;
    op(h, 0, write_of(1), 0, 10, 30);
    op(h, 1, read_of(), seen, 20, 25);
    BOOST_TEST(simasio::check_linearizable(h, register_model{}).ok);
  }
}

BOOST_AUTO_TEST_CASE(a_stale_read_after_a_completed_write_is_not_linearizable_and_is_named) {
  reg_history h;
  op(h, 0, write_of(1), 0, 10, 20);
  op(h, 0, write_of(2), 0, 30, 40);
  const auto stale = op(h, 1, read_of(), 1, 50, 60);  // 2 was written before it started
  op(h, 1, read_of(), 2, 70, 80);
  const auto r = simasio::check_linearizable(h, register_model{});
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.decided);
  BOOST_TEST(r.culprit == stale);
  BOOST_TEST((std::find(r.window.begin(), r.window.end(), stale) != r.window.end()));
  BOOST_TEST(r.explanation.find("read() -> 1") != std::string::npos, r.explanation);
  BOOST_TEST(r.explanation.find("write(2)") != std::string::npos, r.explanation);
}

BOOST_AUTO_TEST_CASE(an_indeterminate_write_may_or_may_not_have_happened) {
  for (int seen : {0, 7}) {
    reg_history h;
    const auto w = h.invoke(0, write_of(7), 10);
    h.timeout(w);
    op(h, 1, read_of(), seen, 100, 110);
    BOOST_TEST(simasio::check_linearizable(h, register_model{}).ok);
  }
  // But it cannot be seen before it was invoked, nor undone once seen.
  reg_history h;
  op(h, 1, read_of(), 7, 0, 5);
  h.timeout(h.invoke(0, write_of(7), 10));
  BOOST_TEST(!simasio::check_linearizable(h, register_model{}).ok);
  reg_history g;
  g.timeout(g.invoke(0, write_of(7), 10));
  op(g, 1, read_of(), 7, 20, 30);
  op(g, 1, read_of(), 0, 40, 50);
  BOOST_TEST(!simasio::check_linearizable(g, register_model{}).ok);
}

BOOST_AUTO_TEST_CASE(keys_are_checked_apart_and_the_report_names_the_key) {
  simasio::history<kv_input, int> h;
  auto kv = [&](std::uint32_t c, kv_input in, int out, std::int64_t a, std::int64_t b) {
    h.complete(h.invoke(c, std::move(in), a), out, b);
  };
  for (int i = 0; i < 50; ++i) {
    const std::string key = "k" + std::to_string(i);
    kv(0, {key, true, i}, 0, 10 * i, 10 * i + 5);
    kv(1, {key, false, 0}, i, 10 * i + 6, 10 * i + 8);
  }
  BOOST_TEST(simasio::check_linearizable(h, kv_model{}).ok);
  kv(2, {"k7", false, 0}, -1, 1000, 1001);  // k7 was put long before
  const auto r = simasio::check_linearizable(h, kv_model{});
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.explanation.find("(key k7)") != std::string::npos, r.explanation);
}

BOOST_AUTO_TEST_CASE(a_queue_that_reorders_is_caught) {
  simasio::history<queue_input, int> h;
  auto q = [&](std::uint32_t c, queue_input in, int out, std::int64_t a, std::int64_t b) {
    h.complete(h.invoke(c, in, a), out, b);
  };
  q(0, {true, 1}, 0, 0, 10);
  q(0, {true, 2}, 0, 20, 30);
  q(1, {false, 0}, 1, 40, 50);
  q(1, {false, 0}, 2, 60, 70);
  BOOST_TEST(simasio::check_linearizable(h, queue_model{}).ok);
  simasio::history<queue_input, int> bad;
  bad.complete(bad.invoke(0, {true, 1}, 0), 0, 10);
  bad.complete(bad.invoke(0, {true, 2}, 20), 0, 30);
  bad.complete(bad.invoke(1, {false, 0}, 40), 2, 50);  // 2 before 1
  BOOST_TEST(!simasio::check_linearizable(bad, queue_model{}).ok);
}

// The checker agrees with a brute force over every real-time order (and
// every subset of indeterminate operations) on small random histories.
BOOST_AUTO_TEST_CASE(agrees_with_brute_force_on_random_small_histories) {
  simasio::rng r(2026, simasio::choice_purpose::user);
  int linearizable = 0, not_linearizable = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    reg_history h;
    const int n = 2 + static_cast<int>(r.below(5));  // 2..6 operations
    for (int i = 0; i < n; ++i) {
      const auto client = static_cast<std::uint32_t>(r.below(3));
      const std::int64_t call = static_cast<std::int64_t>(r.below(40));
      const std::int64_t ret = call + 1 + static_cast<std::int64_t>(r.below(15));
      const bool write = r.below(2) == 0;
      const int value = static_cast<int>(r.below(3));
      const auto id = h.invoke(client, write ? write_of(value) : read_of(), call);
      if (r.below(8) == 0) h.timeout(id);
      else h.complete(id, write ? 0 : value, ret);
    }
    const bool expected = brute_force(h);
    const auto got = simasio::check_linearizable(h, register_model{});
    BOOST_TEST_REQUIRE(got.ok == expected, "trial " << trial << ": checker " << got.ok << ", brute force " << expected
                                                    << "\n" << got.explanation);
    (expected ? linearizable : not_linearizable)++;
  }
  BOOST_TEST(linearizable > 300);
  BOOST_TEST(not_linearizable > 300);
}

BOOST_AUTO_TEST_CASE(a_long_linearizable_history_checks_quickly_and_a_budget_is_reported) {
  reg_history h;
  // 3 clients, 3,000 operations, overlapping in threes.
  int value = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t t = i * 100;
    op(h, 0, write_of(i + 1), 0, t, t + 50);
    op(h, 1, read_of(), value, t + 1, t + 40);  // before the write took effect
    op(h, 2, read_of(), i + 1, t + 60, t + 70);
    value = i + 1;
  }
  BOOST_TEST(simasio::check_linearizable(h, register_model{}).ok);
  simasio::linearizability_options tiny;
  tiny.max_steps = 10;
  const auto r = simasio::check_linearizable(h, register_model{}, tiny);
  BOOST_TEST(!r.decided);
}

BOOST_AUTO_TEST_CASE(history_reads_the_world_time_and_refuses_unknown_ids) {
  simasio::world w;
  w.run_for(std::chrono::milliseconds(5));
  reg_history h;
  const auto id = h.invoke(0, write_of(1));
  BOOST_TEST(h.operations()[id].call_ns == 5'000'000);
  BOOST_CHECK_THROW(h.complete(id + 1, 0), simasio::usage_error);
}

BOOST_AUTO_TEST_CASE(require_linearizable_throws_the_explanation_and_writes_a_lane_diagram) {
  const auto dir = std::filesystem::temp_directory_path() / ("simasio_lin_" + std::to_string(::getpid()));
  ::setenv("SIMASIO_ARTIFACTS", dir.c_str(), 1);
  reg_history h;
  op(h, 0, write_of(1), 0, 10, 20);
  op(h, 1, read_of(), 0, 30, 40);  // stale
  h.timeout(h.invoke(2, write_of(5), 35));
  std::string what;
  try {
    simasio::require_linearizable(h, register_model{}, "reg");
  } catch (const simasio::linearizability_error& e) {
    what = e.what();
  }
  ::unsetenv("SIMASIO_ARTIFACTS");
  BOOST_TEST(what.find("read() -> 0") != std::string::npos, what);
  const auto file = dir / "reg-seedunknown.html";
  BOOST_TEST(what.find(file.string()) != std::string::npos, what);
  std::ifstream in(file);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(html.find("class=\"bad\"") != std::string::npos);   // the culprit
  BOOST_TEST(html.find("class=\"win\"") != std::string::npos);   // the write it contradicts
  BOOST_TEST(html.find("open") != std::string::npos);            // the write that never returned
  BOOST_TEST(html.find("client 2") != std::string::npos);
  std::filesystem::remove_all(dir);
  reg_history fine;
  op(fine, 0, write_of(1), 0, 10, 20);
  BOOST_CHECK_NO_THROW(simasio::require_linearizable(fine, register_model{}));
}

BOOST_AUTO_TEST_SUITE_END()
