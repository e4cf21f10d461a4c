// simasio/check/linearizability.hpp — is a recorded history linearizable against a sequential model?
#ifndef SIMASIO_CHECK_LINEARIZABILITY_HPP
#define SIMASIO_CHECK_LINEARIZABILITY_HPP

#include <simasio/check/history.hpp>
#include <simasio/detail/format.hpp>

#include <algorithm>
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

/// What check_linearizable found.
struct linearizability_result {
  bool ok = true;  ///< false when the history is not linearizable
  /// False when the search gave up (linearizability_options::max_steps)
  /// before deciding; ok is then true and says nothing.
  bool decided = true;
  /// On failure: the ids of the operations around the earliest point where
  /// the history stops being linearizable (the operation whose response
  /// made it so, every operation concurrent with it, and each client's
  /// last operation before it), in invocation order.
  std::vector<std::size_t> window;
  /// The operation whose response made the history non-linearizable.
  std::size_t culprit = 0;
  /// The window, one operation a line: client, input, output, times.
  std::string explanation;
  /// ok.
  explicit operator bool() const noexcept { return ok; }
};

/// How check_linearizable searches.
struct linearizability_options {
  /// Search steps per partition before giving up (decided = false).
  std::uint64_t max_steps = 100'000'000;
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
  const typename M::output* output;  // null: indeterminate (any output, may not have happened)
  std::int64_t call, ret;
};

// Wing & Gong's search with Lowe's memoisation (as Porcupine does it):
// walk the events in time order; at a call, try to linearize that
// operation now (the model must accept it with its recorded output) and
// remember (set of linearized operations, state) so no configuration is
// explored twice; at a return whose operation is not yet linearized, undo
// the last choice.
template <class M>
int search(const std::vector<op<M>>& ops, std::uint64_t& budget) {  // 1 yes, 0 no, -1 gave up
  const std::size_t n = ops.size();
  if (n == 0) return 1;
  struct event {
    std::int64_t time;
    bool is_return;
    std::size_t index;
    int prev, next;
    int match;  // the call's return event, or the return's call event
  };
  std::vector<event> ev;
  ev.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    ev.push_back({ops[i].call, false, i, -1, -1, -1});
    ev.push_back({ops[i].ret, true, i, -1, -1, -1});
  }
  // Calls before returns at equal times: such operations count as concurrent.
  std::stable_sort(ev.begin(), ev.end(), [](const event& a, const event& b) {
    return a.time != b.time ? a.time < b.time : (!a.is_return && b.is_return);
  });
  std::vector<int> call_of(n), ret_of(n);
  for (std::size_t k = 0; k < ev.size(); ++k) (ev[k].is_return ? ret_of : call_of)[ev[k].index] = static_cast<int>(k);
  for (std::size_t k = 0; k < ev.size(); ++k) {
    ev[k].prev = static_cast<int>(k) - 1;
    ev[k].next = k + 1 < ev.size() ? static_cast<int>(k) + 1 : -1;
    ev[k].match = ev[k].is_return ? call_of[ev[k].index] : ret_of[ev[k].index];
  }
  int head = 0;
  auto unlink = [&](int k) {
    if (ev[k].prev >= 0) ev[ev[k].prev].next = ev[k].next;
    else head = ev[k].next;
    if (ev[k].next >= 0) ev[ev[k].next].prev = ev[k].prev;
  };
  auto relink = [&](int k) {
    if (ev[k].prev >= 0) ev[ev[k].prev].next = k;
    else head = k;
    if (ev[k].next >= 0) ev[ev[k].next].prev = k;
  };
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> linearized(words, 0);
  struct key {
    std::vector<std::uint64_t> bits;
    typename M::state state;
    std::size_t hash;
    bool operator==(const key& o) const { return hash == o.hash && bits == o.bits && state == o.state; }
  };
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept { return k.hash; }
  };
  std::unordered_set<key, key_hash> seen;
  auto bits_hash = [&] {
    std::size_t h = 0xCBF29CE484222325ULL;
    for (std::uint64_t w : linearized) h = (h ^ w) * 0x100000001B3ULL;
    return h;
  };
  struct frame {
    int call;
    typename M::state state;
  };
  std::vector<frame> stack;
  typename M::state state = M::init();
  int k = head;
  while (head >= 0) {
    if (budget-- == 0) return -1;
    if (k < 0) return 0;  // defensive: nothing left to try
    const event& e = ev[k];
    if (!e.is_return) {
      const op<M>& o = ops[e.index];
      auto [accepted, out, next_state] = M::step(state, *o.input);
      bool fits;
      if (o.output == nullptr) {  // indeterminate: took effect (if the model accepts it) or not
        fits = true;
        if (!accepted) next_state = state;
      } else {
        fits = accepted && out == *o.output;
      }
      bool fresh = false;
      if (fits) {
        linearized[e.index / 64] |= std::uint64_t{1} << (e.index % 64);
        key kk{linearized, next_state, bits_hash() ^ (hash_state<M>(next_state) * 0x9E3779B97F4A7C15ULL)};
        fresh = seen.insert(std::move(kk)).second;
        if (!fresh) linearized[e.index / 64] &= ~(std::uint64_t{1} << (e.index % 64));
      }
      if (fresh) {
        stack.push_back({k, state});
        state = std::move(next_state);
        unlink(k);
        unlink(e.match);
        k = head;
      } else {
        k = e.next;
      }
    } else {
      if (stack.empty()) return 0;
      const frame f = std::move(stack.back());
      stack.pop_back();
      state = f.state;
      const std::size_t idx = ev[f.call].index;
      linearized[idx / 64] &= ~(std::uint64_t{1} << (idx % 64));
      relink(ev[f.call].match);
      relink(f.call);
      k = ev[f.call].next;
    }
  }
  return 1;
}

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
/// have taken effect at any moment after its invocation, or never.
///
/// M is a small struct:
/// @code
/// struct register_model {
///   using state = int; using input = reg_op; using output = int;
///   static state init() { return 0; }
///   // (accepted, what the model outputs, the next state)
///   static std::tuple<bool, output, state> step(const state& s, const input& in);
///   // optional: static std::string key(const input&);   per-key partitions, checked apart
///   // optional: static std::size_t hash(const state&);  when std::hash<state> does not exist
///   // optional: static std::string describe(const input&, const output*);  for the report
/// };
/// @endcode
/// The search is Wing & Gong's with Lowe's memoisation, per partition
/// (P-compositionality, as Porcupine does). On failure it finds the
/// earliest moment the history stops being linearizable (cutting the
/// history there, with the operations still pending treated as
/// indeterminate) and reports the operations around it.
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
  // The operations of a partition as seen at time cut: those invoked
  // before it; one not returned by then is indeterminate.
  auto view = [&](const std::vector<std::size_t>& ids, std::int64_t cut) {
    std::vector<detail::lin::op<M>> ops;
    for (std::size_t i : ids) {
      const hop& o = all[i];
      if (o.call_ns > cut) continue;
      const bool done = o.output.has_value() && !o.indeterminate && o.return_ns <= cut;
      ops.push_back({i, &o.input, done ? &*o.output : nullptr, o.call_ns, done ? o.return_ns : hop::never_returned});
    }
    return ops;
  };
  linearizability_result result;
  for (const auto& [name, ids] : parts) {
    std::uint64_t budget = opts.max_steps;
    const int whole = detail::lin::search<M>(view(ids, hop::never_returned), budget);
    if (whole == 1) continue;
    if (whole < 0) {
      result.decided = false;
      continue;
    }
    // The earliest cut (a response time) at which it already fails: a
    // shorter history is linearizable whenever a longer one is, so search
    // the responses in order.
    std::vector<std::int64_t> cuts;
    for (std::size_t i : ids)
      if (all[i].output && !all[i].indeterminate) cuts.push_back(all[i].return_ns);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::size_t lo = 0, hi = cuts.size();  // fails at cuts[hi - 1]... find the first failing
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      std::uint64_t b = opts.max_steps;
      if (detail::lin::search<M>(view(ids, cuts[mid]), b) == 0) hi = mid;
      else lo = mid + 1;
    }
    const std::int64_t cut = lo < cuts.size() ? cuts[lo] : hop::never_returned;
    std::size_t culprit = ids.front();
    for (std::size_t i : ids)
      if (all[i].output && !all[i].indeterminate && all[i].return_ns == cut) culprit = i;
    const hop& c = all[culprit];
    std::vector<std::size_t> window;
    std::map<std::uint32_t, std::size_t> last_before;  // client -> its latest operation done before the culprit
    for (std::size_t i : ids) {
      const hop& o = all[i];
      if (o.call_ns > cut) continue;
      if (o.call_ns <= c.return_ns && o.return_ns >= c.call_ns) {
        window.push_back(i);  // concurrent with it
      } else if (o.return_ns < c.call_ns) {
        const auto it = last_before.find(o.client);
        if (it == last_before.end() || all[it->second].return_ns < o.return_ns) last_before[o.client] = i;
      }
    }
    for (const auto& [client, i] : last_before) window.push_back(i);
    std::sort(window.begin(), window.end(), [&](std::size_t a, std::size_t b) {
      return all[a].call_ns != all[b].call_ns ? all[a].call_ns < all[b].call_ns : a < b;
    });
    result.ok = false;
    result.culprit = culprit;
    result.window = window;
    std::ostringstream s;
    s << "not linearizable" << (name.empty() ? std::string() : " (key " + name + ")") << ": no order of these "
      << window.size() << " operations explains the response at " << detail::format_time(duration(cut)) << "\n";
    for (std::size_t i : window)
      s << (i == culprit ? "  > " : "    ") << "#" << i << " " << detail::lin::describe_op<M>(all[i]) << "\n";
    result.explanation = s.str();
    return result;
  }
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
