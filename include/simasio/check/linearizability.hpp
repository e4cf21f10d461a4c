// simasio/check/linearizability.hpp — is a recorded history linearizable against a sequential model?
#ifndef SIMASIO_CHECK_LINEARIZABILITY_HPP
#define SIMASIO_CHECK_LINEARIZABILITY_HPP

#include <simasio/check/history.hpp>
#include <simasio/detail/format.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace simasio {

/// What check_linearizable found: one of three exact states.
///
/// | ok    | decided | meaning |
/// |-------|---------|---------|
/// | true  | true    | linearizable: every partition has an order |
/// | false | true    | not linearizable: some partition has none (window, culprit and explanation say where) |
/// | true  | false   | undecided: no partition failed, and the search gave up (linearizability_options::max_steps or max_time; explanation says which) |
///
/// `ok == false` always comes with `decided == true`: a violation in any
/// partition decides the whole history, whatever the others did.
struct linearizability_result {
  bool ok = true;  ///< false when the history is not linearizable (then decided is true)
  /// False when the search gave up on some partition before deciding and
  /// none failed; ok is then true and says nothing.
  bool decided = true;
  /// On failure: operations that are not linearizable by themselves (a
  /// history of just these, cut at the culprit's response with those still
  /// pending then indeterminate, has no order either), in invocation order:
  /// the operation whose response made the history fail, those concurrent
  /// with it, each client's last one before it, and, when those alone have
  /// an order, as many earlier ones as it takes (at most the whole history
  /// up to that response). Empty when linearizability_options::window is
  /// off.
  std::vector<std::size_t> window;
  /// The operation whose response made the history non-linearizable (the
  /// earliest such response found; with the window search off or out of
  /// steps, a later one of the failing partition).
  std::size_t culprit = 0;
  /// On failure, the window, one operation a line: client, input, output,
  /// times. Undecided: which partition gave up, and on what budget.
  std::string explanation;
  /// Search steps taken: deciding, and finding the window.
  std::uint64_t steps = 0;
  std::uint64_t window_steps = 0;  ///< of which finding the window
  /// ok.
  explicit operator bool() const noexcept { return ok; }
};

/// How check_linearizable searches.
struct linearizability_options {
  /// Search steps per partition before giving up on it (decided = false).
  /// Partitions take turns, so that one that is hard does not hold up a
  /// violation another shows quickly.
  std::uint64_t max_steps = 100'000'000;
  /// On failure, look for the earliest response at which the history
  /// fails, and a window of operations that fail by themselves. Off: the
  /// result says only that it fails, and which partition (explanation).
  bool window = true;
  /// Steps the window may take, at most: 0 (the default) allows as many as
  /// the decision took (at least 1,000,000), so that explaining a failure
  /// costs at most about as much again as finding it. When they run out,
  /// the window is the failing history cut at the earliest response known
  /// to fail.
  std::uint64_t window_max_steps = 0;
  /// Wall-clock time the whole check may take, at most (zero, the default:
  /// no limit). Past it, a check that has not found a violation returns
  /// undecided, and a failure's window is the history cut at the earliest
  /// response known to fail. Unlike max_steps, the verdict it gives then
  /// depends on the machine's speed: use it to bound a CI job, and
  /// max_steps where a result must replay.
  std::chrono::nanoseconds max_time{0};
};

namespace detail::lin {

template <class M, class = void>
struct has_key : std::false_type {};
template <class M>
struct has_key<M, std::void_t<decltype(M::key(std::declval<const typename M::input&>()))>> : std::true_type {};

template <class M, class = void>
struct has_hash : std::false_type {};
template <class M>
struct has_hash<M, std::void_t<decltype(M::hash(std::declval<const typename M::state&>()))>> : std::true_type {};

template <class M, class = void>
struct has_describe : std::false_type {};
template <class M>
struct has_describe<M, std::void_t<decltype(M::describe(std::declval<const typename M::input&>(),
                                                         std::declval<const typename M::output*>()))>>
    : std::true_type {};

// A model that judges a given output (std::pair<bool, state> step(state,
// input, const output*)) rather than computing one: for a system that may
// answer one input several ways.
template <class M, class = void>
struct judges_output : std::false_type {};
template <class M>
struct judges_output<M, std::void_t<decltype(M::step(std::declval<const typename M::state&>(),
                                                      std::declval<const typename M::input&>(),
                                                      std::declval<const typename M::output*>()))>>
    : std::true_type {};

// Applies an operation to s: (fits, next state). out is its recorded
// output, or null when unknown; an indeterminate operation always fits
// (it took effect if the model accepts it, else nothing changed).
template <class M>
std::pair<bool, typename M::state> apply(const typename M::state& s, const typename M::input& in,
                                         const typename M::output* out, bool indeterminate) {
  bool fits;
  typename M::state next;
  if constexpr (judges_output<M>::value) {
    std::tie(fits, next) = M::step(s, in, out);
  } else {
    auto [accepted, computed, after] = M::step(s, in);
    fits = accepted && (out == nullptr || computed == *out);
    next = std::move(after);
  }
  if (indeterminate && !fits) return {true, s};
  return {fits, std::move(next)};
}

template <class M>
std::size_t hash_state(const typename M::state& s) {
  if constexpr (has_hash<M>::value) return M::hash(s);
  else return std::hash<typename M::state>{}(s);
}

// One operation as the search sees it.
template <class M>
struct op {
  std::size_t id;  // in the history
  const typename M::input* input;
  // null: unknown (any output the model allows); with ret never_returned, also
  // indeterminate (may not have happened at all)
  const typename M::output* output;
  std::int64_t call, ret;
};

// Wing & Gong's search with Lowe's memoisation (as Porcupine does it):
// walk the events in time order; at a call, try to linearize that
// operation now (the model must accept it with its recorded output) and
// remember (set of linearized operations, state) so no configuration is
// explored twice; at a return whose operation is not yet linearized, undo
// the last choice. Resumable: run() goes on where the last call stopped,
// so that partitions can take turns.
template <class M>
class search {
 public:
  explicit search(const std::vector<op<M>>& ops) : ops_(ops), state_(M::init()) {
    const std::size_t n = ops_.size();
    ev_.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      ev_.push_back({ops_[i].call, false, i, -1, -1, -1});
      ev_.push_back({ops_[i].ret, true, i, -1, -1, -1});
    }
    // Calls before returns at equal times: such operations count as concurrent.
    std::stable_sort(ev_.begin(), ev_.end(), [](const event& a, const event& b) {
      return a.time != b.time ? a.time < b.time : (!a.is_return && b.is_return);
    });
    std::vector<int> call_of(n), ret_of(n);
    for (std::size_t k = 0; k < ev_.size(); ++k)
      (ev_[k].is_return ? ret_of : call_of)[ev_[k].index] = static_cast<int>(k);
    for (std::size_t k = 0; k < ev_.size(); ++k) {
      ev_[k].prev = static_cast<int>(k) - 1;
      ev_[k].next = k + 1 < ev_.size() ? static_cast<int>(k) + 1 : -1;
      ev_[k].match = ev_[k].is_return ? call_of[ev_[k].index] : ret_of[ev_[k].index];
    }
    head_ = ev_.empty() ? -1 : 0;
    k_ = head_;
    linearized_.assign((n + 63) / 64, 0);
  }

  // Searches for at most `budget` steps (taking them off it): 1 yes, 0 no,
  // -1 not decided yet (call again to go on).
  int run(std::uint64_t& budget) {
    if (verdict_ >= 0) return verdict_;
    while (head_ >= 0) {
      if (budget == 0) return -1;
      --budget;
      ++steps_;
      if (k_ < 0) return verdict_ = 0;  // defensive: nothing left to try
      const event& e = ev_[k_];
      if (!e.is_return) {
        const op<M>& o = ops_[e.index];
        auto [fits, next_state] =
            apply<M>(state_, *o.input, o.output, o.ret == history_operation<typename M::input, typename M::output>::never_returned);
        bool fresh = false;
        if (fits) {
          set(e.index, true);
          key kk{linearized_, next_state, bits_hash() ^ (hash_state<M>(next_state) * 0x9E3779B97F4A7C15ULL)};
          fresh = seen_.insert(std::move(kk)).second;
          if (!fresh) set(e.index, false);
        }
        if (fresh) {
          stack_.push_back({k_, state_});
          state_ = std::move(next_state);
          unlink(k_);
          unlink(e.match);
          k_ = head_;
        } else {
          k_ = e.next;
        }
      } else {
        if (stack_.empty()) return verdict_ = 0;
        const frame f = std::move(stack_.back());
        stack_.pop_back();
        state_ = f.state;
        set(ev_[f.call].index, false);
        relink(ev_[f.call].match);
        relink(f.call);
        k_ = ev_[f.call].next;
      }
    }
    return verdict_ = 1;
  }

  // Steps taken so far.
  std::uint64_t steps() const noexcept { return steps_; }

 private:
  struct event {
    std::int64_t time;
    bool is_return;
    std::size_t index;
    int prev, next;
    int match;  // the call's return event, or the return's call event
  };
  struct key {
    std::vector<std::uint64_t> bits;
    typename M::state state;
    std::size_t hash;
    bool operator==(const key& o) const { return hash == o.hash && bits == o.bits && state == o.state; }
  };
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept { return k.hash; }
  };
  struct frame {
    int call;
    typename M::state state;
  };

  void unlink(int k) {
    if (ev_[k].prev >= 0) ev_[ev_[k].prev].next = ev_[k].next;
    else head_ = ev_[k].next;
    if (ev_[k].next >= 0) ev_[ev_[k].next].prev = ev_[k].prev;
  }
  void relink(int k) {
    if (ev_[k].prev >= 0) ev_[ev_[k].prev].next = k;
    else head_ = k;
    if (ev_[k].next >= 0) ev_[ev_[k].next].prev = k;
  }
  void set(std::size_t i, bool on) {
    if (on) linearized_[i / 64] |= std::uint64_t{1} << (i % 64);
    else linearized_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  }
  std::size_t bits_hash() const {
    std::size_t h = 0xCBF29CE484222325ULL;
    for (std::uint64_t w : linearized_) h = (h ^ w) * 0x100000001B3ULL;
    return h;
  }

  std::vector<op<M>> ops_;
  std::vector<event> ev_;
  int head_ = -1;
  int k_ = -1;
  std::vector<std::uint64_t> linearized_;
  std::unordered_set<key, key_hash> seen_;
  std::vector<frame> stack_;
  typename M::state state_;
  std::uint64_t steps_ = 0;
  int verdict_ = -1;
};

// linearizability_options::max_time, checked between slices of steps.
class deadline {
 public:
  explicit deadline(std::chrono::nanoseconds limit)
      : on_(limit.count() > 0), at_(on_ ? std::chrono::steady_clock::now() + limit : std::chrono::steady_clock::time_point{}) {}
  bool passed() const { return on_ && std::chrono::steady_clock::now() >= at_; }
  // Steps between two looks at the clock (about a millisecond's worth).
  std::uint64_t slice(std::uint64_t steps) const { return on_ ? std::min<std::uint64_t>(steps, 1 << 14) : steps; }

 private:
  bool on_;
  std::chrono::steady_clock::time_point at_;
};

template <class M, class Input, class Output>
std::string describe_op(const history_operation<Input, Output>& o) {
  std::ostringstream s;
  s << "client " << o.client << ": ";
  const typename M::output* out = o.output ? &*o.output : nullptr;
  if constexpr (has_describe<M>::value) s << M::describe(o.input, out);
  else s << "operation";
  s << "  [" << detail::format_time(duration(o.call_ns)) << ", "
    << (o.return_ns == history_operation<Input, Output>::never_returned ? std::string("never returned")
                                                                         : detail::format_time(duration(o.return_ns)))
    << "]";
  return s.str();
}

}  // namespace detail::lin

/// Checks that the operations of @p h are linearizable with respect to the
/// sequential model M: some order of them, consistent with real time (an
/// operation that returned before another was invoked comes first), in
/// which M, applied one by one from M::init(), gives every recorded output.
/// An indeterminate operation (history::timeout, or never completed) may
/// have taken effect at any moment after its invocation, or never; one
/// that returned with an unknown output (history::complete_unknown) took
/// effect before it returned, with any output the model allows.
///
/// M is a small struct:
/// @code
/// struct register_model {
///   using state = int; using input = reg_op; using output = int;
///   static state init() { return 0; }
///   // (accepted, what the model outputs, the next state)
///   static std::tuple<bool, output, state> step(const state& s, const input& in);
///   // or, for a system that may answer one input several ways, judge the
///   // recorded output (null: unknown) instead of computing one:
///   //   static std::pair<bool, state> step(const state& s, const input& in, const output* out);
///   // optional: static std::string key(const input&);   per-key partitions, checked apart
///   // optional: static std::size_t hash(const state&);  when std::hash<state> does not exist
///   // optional: static std::string describe(const input&, const output*);  for the report
/// };
/// @endcode
/// The search is Wing & Gong's with Lowe's memoisation, per partition
/// (P-compositionality, as Porcupine does); the partitions take turns, and
/// the first that fails decides. On failure it finds (within
/// linearizability_options::window_max_steps) the earliest moment the
/// history stops being linearizable (cutting the history there, with the
/// operations still pending treated as indeterminate) and a window of
/// operations around it that fail by themselves.
template <class M, class Input, class Output>
linearizability_result check_linearizable(const history<Input, Output>& h, M = {},
                                          const linearizability_options& opts = {}) {
  static_assert(std::is_same_v<typename M::input, Input> && std::is_same_v<typename M::output, Output>,
                "simasio::check_linearizable: the model's input and output types must be the history's");
  using hop = history_operation<Input, Output>;
  const auto& all = h.operations();
  // Partitions: by the model's key, else one.
  std::map<std::string, std::vector<std::size_t>> parts;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if constexpr (detail::lin::has_key<M>::value) parts[std::string(M::key(all[i].input))].push_back(i);
    else parts[""].push_back(i);
  }
  // Returned by time cut (its output known or not).
  auto returned = [&](const hop& o, std::int64_t cut) {
    return !o.indeterminate && o.return_ns != hop::never_returned && o.return_ns <= cut;
  };
  // The operations of a partition as seen at time cut: those invoked
  // before it; one not returned by then is indeterminate.
  auto view = [&](const std::vector<std::size_t>& ids, std::int64_t cut) {
    std::vector<detail::lin::op<M>> ops;
    for (std::size_t i : ids) {
      const hop& o = all[i];
      if (o.call_ns > cut) continue;
      const bool done = returned(o, cut);
      ops.push_back({i, &o.input, done && o.output ? &*o.output : nullptr, o.call_ns,
                     done ? o.return_ns : hop::never_returned});
    }
    return ops;
  };
  const detail::lin::deadline deadline(opts.max_time);
  auto partition_name = [](const std::string& name) { return name.empty() ? std::string() : " (key " + name + ")"; };
  linearizability_result result;
  // The partitions take turns, each a slice of steps that doubles every
  // round, until one fails (which decides the history), all pass, or those
  // left have spent max_steps.
  struct part {
    const std::string* name;
    const std::vector<std::size_t>* ids;
    detail::lin::search<M> search;
    std::uint64_t left;
    bool done = false;
  };
  std::vector<part> open;
  open.reserve(parts.size());
  for (const auto& [name, ids] : parts)
    open.push_back({&name, &ids, detail::lin::search<M>(view(ids, hop::never_returned)), opts.max_steps});
  const part* failed = nullptr;
  std::uint64_t slice = 1 << 12;
  while (!open.empty() && failed == nullptr) {
    for (part& p : open) {
      std::uint64_t budget = deadline.slice(std::min(slice, p.left));
      const std::uint64_t given = budget;
      const int v = p.search.run(budget);
      p.left -= given - budget;
      result.steps += given - budget;
      if (v == 0) {
        failed = &p;
        break;
      }
      if (v == 1 || p.left == 0) {
        if (v != 1) {
          result.decided = false;
          result.explanation += "undecided" + partition_name(*p.name) + ": gave up after " +
                                std::to_string(opts.max_steps) + " steps (linearizability_options::max_steps)\n";
        }
        p.done = true;
      }
      if (v < 0 && deadline.passed()) {
        result.decided = false;
        result.explanation += "undecided" + partition_name(*p.name) + ": out of time after " +
                              std::to_string(result.steps) + " steps in all (linearizability_options::max_time)\n";
        return result;
      }
    }
    if (failed == nullptr) open.erase(std::remove_if(open.begin(), open.end(), [](const part& p) { return p.done; }), open.end());
    if (slice < (std::uint64_t{1} << 62)) slice *= 2;
  }
  if (failed == nullptr) return result;  // linearizable, or undecided
  result.ok = false;
  result.decided = true;  // a violation decides the whole history
  const std::string& name = *failed->name;
  const std::vector<std::size_t>& ids = *failed->ids;
  if (!opts.window) {
    result.explanation = "not linearizable" + partition_name(name) + ": no order of its operations explains their responses (window search off)\n";
    return result;
  }
  std::uint64_t window_budget =
      opts.window_max_steps != 0 ? opts.window_max_steps : std::max<std::uint64_t>(failed->search.steps(), 1'000'000);
  auto fails = [&](const std::vector<std::size_t>& some, std::int64_t cut) {
    detail::lin::search<M> probe(view(some, cut));
    int v = -1;
    while (v < 0 && window_budget > 0) {
      std::uint64_t b = deadline.slice(window_budget);
      const std::uint64_t given = b;
      v = probe.run(b);
      result.steps += given - b;
      result.window_steps += given - b;
      window_budget -= given - b;
      if (v < 0 && deadline.passed()) window_budget = 0;
    }
    return v == 0;  // out of steps or time: not known to fail
  };
  // The earliest cut (a response time) at which it already fails: a
  // shorter history is linearizable whenever a longer one is, so search
  // the responses in order. hi is always a cut known to fail (the whole
  // history at first); a probe that runs out of steps counts as passing.
  std::vector<std::int64_t> cuts;
  for (std::size_t i : ids)
    if (returned(all[i], hop::never_returned)) cuts.push_back(all[i].return_ns);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::size_t lo = 0, hi = cuts.size();
  while (lo < hi && window_budget > 0) {
    const std::size_t mid = (lo + hi) / 2;
    if (fails(ids, cuts[mid])) hi = mid;
    else lo = mid + 1;
  }
  const std::int64_t cut = hi < cuts.size() ? cuts[hi] : hop::never_returned;
  std::size_t culprit = ids.front();
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i : ids) {
    const hop& o = all[i];
    if (!returned(o, cut)) continue;
    if (o.return_ns >= latest) {
      latest = o.return_ns;
      culprit = i;
    }
  }
  const hop& c = all[culprit];
  // The window: the culprit, the operations concurrent with it and each
  // client's last one before it; while those have an order by themselves,
  // the earlier operations closest to the culprit join, twice as many each
  // time, up to the whole history at the cut (known to fail).
  std::vector<std::size_t> window, earlier, later;
  std::map<std::uint32_t, std::size_t> last_before;  // client -> its latest operation done before the culprit
  for (std::size_t i : ids) {
    const hop& o = all[i];
    if (o.call_ns > cut) continue;
    if (o.call_ns <= c.return_ns && o.return_ns >= c.call_ns) {
      window.push_back(i);  // concurrent with it
    } else if (o.return_ns < c.call_ns) {
      earlier.push_back(i);
      const auto it = last_before.find(o.client);
      if (it == last_before.end() || all[it->second].return_ns < o.return_ns) last_before[o.client] = i;
    } else {
      later.push_back(i);  // invoked after it (pending at the end of a history cut nowhere)
    }
  }
  for (const auto& [client, i] : last_before) window.push_back(i);
  std::sort(earlier.begin(), earlier.end(), [&](std::size_t a, std::size_t b) {
    return all[a].return_ns != all[b].return_ns ? all[a].return_ns > all[b].return_ns : a > b;
  });
  auto in_window = [&](std::size_t i) { return std::find(window.begin(), window.end(), i) != window.end(); };
  earlier.erase(std::remove_if(earlier.begin(), earlier.end(), in_window), earlier.end());
  earlier.insert(earlier.end(), later.begin(), later.end());  // ids are in invocation order
  std::size_t added = 0, step = 1;
  while (!fails(window, cut)) {
    if (added == earlier.size() || window_budget == 0) {  // the whole history at the cut: it fails
      for (std::size_t i = added; i < earlier.size(); ++i) window.push_back(earlier[i]);
      break;
    }
    for (std::size_t k = 0; k < step && added < earlier.size(); ++k) window.push_back(earlier[added++]);
    step *= 2;
  }
  std::sort(window.begin(), window.end(), [&](std::size_t a, std::size_t b) {
    return all[a].call_ns != all[b].call_ns ? all[a].call_ns < all[b].call_ns : a < b;
  });
  result.culprit = culprit;
  result.window = window;
  std::ostringstream s;
  s << "not linearizable" << partition_name(name) << ": no order of these "
    << window.size() << " operations explains the response at " << detail::format_time(duration(c.return_ns)) << "\n";
  for (std::size_t i : window)
    s << (i == culprit ? "  > " : "    ") << "#" << i << " " << detail::lin::describe_op<M>(all[i]) << "\n";
  result.explanation = s.str();
  return result;
}

/// A self-contained HTML page: one lane per client, each operation a bar
/// from invocation to response (dashed to the right edge when it never
/// returned), the failure's window outlined and its culprit in red.
template <class M, class Input, class Output>
std::string history_html(const history<Input, Output>& h, const linearizability_result& r, M = {},
                         const std::string& title = "history") {
  using hop = history_operation<Input, Output>;
  const auto& ops = h.operations();
  std::int64_t t0 = std::numeric_limits<std::int64_t>::max(), t1 = 0;
  std::uint32_t clients = 0;
  for (const hop& o : ops) {
    t0 = std::min(t0, o.call_ns);
    t1 = std::max(t1, o.return_ns == hop::never_returned ? o.call_ns : o.return_ns);
    clients = std::max(clients, o.client + 1);
  }
  if (ops.empty()) t0 = 0;
  const double width = 1200, lane = 46, left = 90;
  const double span = static_cast<double>(std::max<std::int64_t>(t1 - t0, 1));
  auto x = [&](std::int64_t t) { return left + (width - left - 20) * static_cast<double>(t - t0) / span; };
  auto esc = [](const std::string& in) {
    std::string out;
    for (char c : in) out += c == '<' ? std::string("&lt;") : c == '>' ? std::string("&gt;") : c == '&' ? std::string("&amp;") : std::string(1, c);
    return out;
  };
  std::ostringstream s;
  s << "<!doctype html><html><head><meta charset=\"utf-8\"><title>" << esc(title) << "</title><style>"
    << "body{font:12px sans-serif;margin:8px} .op{fill:#cfe0fb;stroke:#2a6fdb} .win{fill:#fde7c3;stroke:#e90}"
    << " .bad{fill:#f7c5c5;stroke:#d22;stroke-width:2} .open{stroke-dasharray:4 3} text{font-size:10px}</style>"
    << "</head><body><h1 style=\"font-size:14px\">" << esc(title) << "</h1><p>"
    << (r.ok ? std::string("linearizable") : esc(r.explanation.substr(0, r.explanation.find('\n')))) << "</p>";
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << 40 + lane * clients << "\">";
  for (std::uint32_t c = 0; c < clients; ++c)
    s << "<text x=\"4\" y=\"" << 30 + lane * c + 14 << "\">client " << c << "</text>";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const hop& o = ops[i];
    const bool open = o.return_ns == hop::never_returned;
    const double a = x(o.call_ns), b = open ? width - 20 : std::max(x(o.return_ns), a + 2);
    const bool in_window = std::find(r.window.begin(), r.window.end(), i) != r.window.end();
    const char* cls = !r.ok && i == r.culprit ? "bad" : in_window ? "win" : "op";
    const double y = 30 + lane * o.client;
    s << "<g><title>#" << i << " " << esc(detail::lin::describe_op<M>(o)) << "</title><rect class=\"" << cls
      << (open ? " open" : "") << "\" x=\"" << a << "\" y=\"" << y << "\" width=\"" << b - a
      << "\" height=\"20\" rx=\"3\"/>";
    if (b - a > 40) {
      const typename M::output* out = o.output ? &*o.output : nullptr;
      std::string label = "#" + std::to_string(i);
      if constexpr (detail::lin::has_describe<M>::value) label = M::describe(o.input, out);
      s << "<text x=\"" << a + 3 << "\" y=\"" << y + 14 << "\">" << esc(label) << "</text>";
    }
    s << "</g>";
  }
  s << "</svg><pre>" << esc(r.explanation) << "</pre></body></html>\n";
  return s.str();
}

/// Thrown by require_linearizable: what() is the checker's explanation and
/// where its diagram was written.
class linearizability_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail::lin {
// require_linearizable's failure: writes html(title) to the artifacts
// directory and throws linearizability_error (src/check/linearizability.cpp).
[[noreturn]] void fail(const std::string& explanation, const std::string& name,
                       const std::function<std::string(const std::string& title)>& html);
}  // namespace detail::lin

/// check_linearizable, as a scenario's assertion: on failure writes
/// history_html to `<artifacts>/<name>-seed<seed>.html` (SIMASIO_ARTIFACTS,
/// else .simasio; the seed of the world running on this thread) and throws
/// linearizability_error with the explanation and the file's path.
template <class M, class Input, class Output>
void require_linearizable(const history<Input, Output>& h, M model = {}, const std::string& name = "history",
                          const linearizability_options& opts = {}) {
  const linearizability_result r = check_linearizable(h, model, opts);
  if (r.ok) return;
  detail::lin::fail(r.explanation, name,
                    [&](const std::string& title) { return history_html(h, r, model, title); });
}

}  // namespace simasio

#endif  // SIMASIO_CHECK_LINEARIZABILITY_HPP
