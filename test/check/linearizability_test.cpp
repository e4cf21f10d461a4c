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
  std::vector<std::size_t> maybe;  // indeterminate: may be left out
  for (std::size_t i = 0; i < n; ++i)
    if (ops[i].indeterminate || ops[i].return_ns == reg_history::operation::never_returned) maybe.push_back(i);
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
        else if (o.output && !o.indeterminate && out != *o.output) ok = false;  // no output: any
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

// A read returned, its value unknown, between a write of 1 and a read of 1.
reg_history unknown_read() {
  reg_history h;
  op(h, 0, write_of(1), 0, 0, 5);
  h.complete_unknown(h.invoke(1, read_of(), 10), 20);
  op(h, 1, read_of(), 1, 30, 40);
  return h;
}

// Jepsen records a timed-out read as returned, output unknown: unlike a
// timeout, such an operation took effect before it returned.
BOOST_AUTO_TEST_CASE(an_operation_returned_with_an_unknown_output_took_effect_before_it_returned) {
  for (int seen : {0, 7}) {
    reg_history unknown, timed_out;
    unknown.complete_unknown(unknown.invoke(0, write_of(7), 10), 20);
    op(unknown, 1, read_of(), seen, 30, 40);
    timed_out.timeout(timed_out.invoke(0, write_of(7), 10));
    op(timed_out, 1, read_of(), seen, 30, 40);
    BOOST_TEST(simasio::check_linearizable(unknown, register_model{}).ok == (seen == 7));
    BOOST_TEST(simasio::check_linearizable(timed_out, register_model{}).ok);  // it may never have happened
  }
  BOOST_TEST(simasio::check_linearizable(unknown_read(), register_model{}).ok);  // it fits any value
  reg_history stale = unknown_read();
  op(stale, 0, write_of(2), 0, 21, 25);
  const auto r = simasio::check_linearizable(stale, register_model{});  // 1 read after 2 was written
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.explanation.find("read() -> ?") != std::string::npos, r.explanation);
  // Recorded on the world's clock, as complete() is.
  simasio::world w;
  w.run_for(std::chrono::milliseconds(3));
  reg_history g;
  const auto id = g.invoke(0, read_of());
  w.run_for(std::chrono::milliseconds(2));
  g.complete_unknown(id);
  BOOST_TEST(g.operations()[id].return_ns == 5'000'000);
  BOOST_TEST(!g.operations()[id].output.has_value());
  BOOST_TEST(!g.operations()[id].indeterminate);
  BOOST_CHECK_THROW(g.complete_unknown(id + 1), simasio::usage_error);
}

// ---- a set whose take() may answer any member: a model that judges outputs --------------
struct bag_input {
  bool put = false;
  int value = 0;
};
struct bag_model {
  using state = std::vector<int>;  // sorted
  using input = bag_input;
  using output = int;  // take(): the member taken, or -1 when empty
  static state init() { return {}; }
  static std::size_t hash(const state& s) {
    std::size_t h = s.size();
    for (int v : s) h = h * 31 + static_cast<std::size_t>(v);
    return h;
  }
  static std::pair<bool, state> step(const state& s, const input& in, const output* out) {
    state n = s;
    if (in.put) {
      n.insert(std::upper_bound(n.begin(), n.end(), in.value), in.value);
      return {true, n};
    }
    if (out == nullptr) {  // unknown: it took some member (the smallest, as good as any here)
      if (!n.empty()) n.erase(n.begin());
      return {true, n};
    }
    if (*out == -1) return {n.empty(), n};
    const auto it = std::find(n.begin(), n.end(), *out);
    if (it == n.end()) return {false, n};
    n.erase(it);
    return {true, n};
  }
};

BOOST_AUTO_TEST_CASE(a_model_may_judge_outputs_instead_of_computing_one) {
  auto bag = [](std::vector<int> taken) {
    simasio::history<bag_input, int> h;
    h.complete(h.invoke(0, {true, 1}, 0), 0, 1);
    h.complete(h.invoke(0, {true, 2}, 2), 0, 3);
    std::int64_t t = 10;
    for (int v : taken) {
      h.complete(h.invoke(1, {false, 0}, t), v, t + 1);
      t += 10;
    }
    return simasio::check_linearizable(h, bag_model{});
  };
  BOOST_TEST(bag({2, 1, -1}).ok);  // any order of the members
  BOOST_TEST(bag({1, 2, -1}).ok);
  BOOST_TEST(!bag({2, 2}).ok);      // taken twice
  BOOST_TEST(!bag({3}).ok);         // never put
  BOOST_TEST(!bag({1, -1}).ok);     // 2 is still there
  // A take() that returned, its member unknown, took one: after a single
  // put, a later take() of it fails; had it timed out, it may not have.
  for (bool unknown : {true, false}) {
    simasio::history<bag_input, int> h;
    h.complete(h.invoke(0, {true, 1}, 0), 0, 1);
    const auto id = h.invoke(1, {false, 0}, 10);
    if (unknown) h.complete_unknown(id, 20);
    else h.timeout(id);
    h.complete(h.invoke(1, {false, 0}, 30), 1, 40);
    BOOST_TEST(simasio::check_linearizable(h, bag_model{}).ok == !unknown);
  }
}

// Many concurrent writes and a read of a value none wrote: the search has
// to rule out every order. A time budget gives up, undecided, and says so.
BOOST_AUTO_TEST_CASE(a_time_budget_gives_up_undecided_and_says_which_budget) {
  reg_history h;
  for (int i = 0; i < 40; ++i) op(h, static_cast<std::uint32_t>(i), write_of(i + 1), 0, i, 1000 + i);
  op(h, 40, read_of(), 999, 50, 2000);
  simasio::linearizability_options timed;
  timed.max_time = std::chrono::milliseconds(20);
  timed.max_steps = std::numeric_limits<std::uint64_t>::max();
  const auto r = simasio::check_linearizable(h, register_model{}, timed);
  BOOST_TEST(r.ok);
  BOOST_TEST(!r.decided);
  BOOST_TEST(r.explanation.find("linearizability_options::max_time") != std::string::npos, r.explanation);
  BOOST_TEST(r.steps > 0U);
  simasio::linearizability_options few;
  few.max_steps = 1000;
  const auto s = simasio::check_linearizable(h, register_model{}, few);
  BOOST_TEST(!s.decided);
  BOOST_TEST(s.steps == 1000U);
  BOOST_TEST(s.explanation.find("linearizability_options::max_steps") != std::string::npos, s.explanation);
  // A time budget leaves a quick verdict alone.
  reg_history g;
  op(g, 0, write_of(1), 0, 0, 10);
  op(g, 1, read_of(), 0, 20, 30);
  const auto quick = simasio::check_linearizable(g, register_model{}, timed);
  BOOST_TEST(!quick.ok);
  BOOST_TEST(quick.decided);
  BOOST_TEST(quick.window.size() == 2U);
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
      const auto how = r.below(12);
      if (how < 2) h.timeout(id);
      else if (how == 2) h.complete_unknown(id, ret);
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

// The history of just the window's operations, as recorded.
template <class Input, class Output>
simasio::history<Input, Output> window_alone(const simasio::history<Input, Output>& h, const std::vector<std::size_t>& window) {
  simasio::history<Input, Output> w;
  for (std::size_t i : window) {
    const auto& o = h.operations()[i];
    const auto id = w.invoke(o.client, o.input, o.call_ns);
    if (o.indeterminate || o.return_ns == simasio::history_operation<Input, Output>::never_returned) w.timeout(id);
    else if (o.output) w.complete(id, *o.output, o.return_ns);
    else w.complete_unknown(id, o.return_ns);
  }
  return w;
}

// A random register history of 6 to 40 operations by 2 to 5 clients.
reg_history random_history(simasio::rng& r) {
  reg_history h;
  const int clients = 2 + static_cast<int>(r.below(4));
  const int n = 6 + static_cast<int>(r.below(35));
  std::vector<std::int64_t> free_at(static_cast<std::size_t>(clients), 0);
  for (int i = 0; i < n; ++i) {
    const auto client = static_cast<std::uint32_t>(r.below(static_cast<std::uint64_t>(clients)));
    const std::int64_t call = free_at[client] + static_cast<std::int64_t>(r.below(20));
    const std::int64_t ret = call + 1 + static_cast<std::int64_t>(r.below(30));
    free_at[client] = ret + 1;  // a client's operations do not overlap
    const bool write = r.below(2) == 0;
    const int value = static_cast<int>(r.below(4));
    const auto id = h.invoke(client, write ? write_of(value) : read_of(), call);
    const auto how = r.below(24);
    if (how < 2) h.timeout(id);
    else if (how == 2) h.complete_unknown(id, ret);
    else h.complete(id, write ? 0 : value, ret);
  }
  return h;
}

// The window printed on failure fails by itself: a history of just its
// operations has no order either; and so with the window's steps cut to
// nothing (it is then the history up to the earliest response known to
// fail).
BOOST_AUTO_TEST_CASE(the_window_of_a_failure_is_not_linearizable_by_itself) {
  simasio::rng r(39, simasio::choice_purpose::user);
  int failing = 0, grew = 0;
  simasio::linearizability_options starved;
  starved.window_max_steps = 1;
  for (int trial = 0; trial < 4000; ++trial) {
    const reg_history h = random_history(r);
    const auto got = simasio::check_linearizable(h, register_model{});
    BOOST_TEST_REQUIRE(got.decided);
    if (got.ok) continue;
    ++failing;
    BOOST_TEST_REQUIRE((std::find(got.window.begin(), got.window.end(), got.culprit) != got.window.end()));
    const auto alone = simasio::check_linearizable(window_alone(h, got.window), register_model{});
    BOOST_TEST_REQUIRE(!alone.ok, "trial " << trial << ": the window has an order by itself\n" << got.explanation);
    // The rule alone (the culprit, its concurrent operations and each
    // client's last one before it) would not always have done.
    const auto& c = h.operations()[got.culprit];
    std::vector<std::size_t> rule;
    std::map<std::uint32_t, std::size_t> last;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const auto& o = h.operations()[i];
      if (o.call_ns > c.return_ns) continue;
      if (o.return_ns >= c.call_ns) rule.push_back(i);
      else if (!last.count(o.client) || h.operations()[last[o.client]].return_ns < o.return_ns) last[o.client] = i;
    }
    for (const auto& [client, i] : last) rule.push_back(i);
    std::sort(rule.begin(), rule.end());
    if (simasio::check_linearizable(window_alone(h, rule), register_model{}).ok) ++grew;
    const auto starved_result = simasio::check_linearizable(h, register_model{}, starved);
    BOOST_TEST_REQUIRE(!starved_result.ok);
    BOOST_TEST_REQUIRE(starved_result.window_steps <= 1U);
    BOOST_TEST_REQUIRE(!simasio::check_linearizable(window_alone(h, starved_result.window), register_model{}).ok);
  }
  BOOST_TEST(failing > 1000);
  BOOST_TEST(grew > 0);  // failures whose rule window has an order by itself arose, and were mended
}

// ok == false always comes with decided == true: a partition that fails
// decides the history even when another (checked first) is out of steps.
BOOST_AUTO_TEST_CASE(a_violation_in_one_key_decides_while_another_key_is_out_of_steps) {
  simasio::history<kv_input, int> h;
  auto kv = [&](std::uint32_t c, kv_input in, int out, std::int64_t a, std::int64_t b) {
    h.complete(h.invoke(c, std::move(in), a), out, b);
  };
  for (int i = 0; i < 2000; ++i) kv(0, {"a", true, i}, 0, 10 * i, 10 * i + 5);  // long, linearizable
  simasio::linearizability_options few;
  few.max_steps = 500;
  const auto undecided = simasio::check_linearizable(h, kv_model{}, few);
  BOOST_TEST(undecided.ok);
  BOOST_TEST(!undecided.decided);
  kv(1, {"b", true, 1}, 0, 0, 1);
  kv(1, {"b", false, 0}, -1, 2, 3);  // b was put before
  const auto r = simasio::check_linearizable(h, kv_model{}, few);
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.decided);
  BOOST_TEST(r.explanation.find("(key b)") != std::string::npos, r.explanation);
  BOOST_TEST(r.steps < 2000U);  // key a did not take all its steps first
}

BOOST_AUTO_TEST_CASE(the_window_search_can_be_turned_off_and_is_bounded) {
  reg_history h;
  for (int i = 0; i < 300; ++i) op(h, static_cast<std::uint32_t>(i % 3), write_of(i), 0, 10 * i, 10 * i + 5);
  op(h, 3, read_of(), 7, 5000, 5001);  // 299 was written last
  simasio::linearizability_options off;
  off.window = false;
  const auto bare = simasio::check_linearizable(h, register_model{}, off);
  BOOST_TEST(!bare.ok);
  BOOST_TEST(bare.decided);
  BOOST_TEST(bare.window.empty());
  BOOST_TEST(bare.window_steps == 0U);
  BOOST_TEST(bare.explanation.find("window search off") != std::string::npos, bare.explanation);
  const auto full = simasio::check_linearizable(h, register_model{});
  BOOST_TEST(!full.ok);
  BOOST_TEST(full.window_steps <= std::max<std::uint64_t>(full.steps - full.window_steps, 1'000'000));
  BOOST_TEST(full.window.size() < 10U);
  BOOST_TEST(!simasio::check_linearizable(window_alone(h, full.window), register_model{}).ok);
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
