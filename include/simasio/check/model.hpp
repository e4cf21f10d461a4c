// simasio/check/model.hpp — a protocol's design as an explicit-state model: checked exhaustively, and held to the real code
#ifndef SIMASIO_CHECK_MODEL_HPP
#define SIMASIO_CHECK_MODEL_HPP

#include <simasio/detail/format.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace simasio {

/// How liveness treats an action. Weak: one that stays enabled is
/// eventually taken (a process that can go, goes). Strong: one that is
/// enabled again and again is eventually taken (a channel that is tried
/// again and again eventually delivers: fair delivery over a lossy link).
enum class fairness { weak, strong };

/// A protocol's design: initial states, named actions (each a function from
/// a state to its successors; none means the action is not enabled there),
/// invariants that every reachable state must satisfy, and liveness goals
/// ("always eventually"), checked under weak fairness. States are values
/// ordered by operator< (`auto operator<=>(const S&) const = default;`);
/// no hashing of pointers or std::hash, so exploration order and the
/// counterexample are the same on every run.
///
/// @code
/// simasio::model<push_state> m("route push");
/// m.initial({}).action("push", push).action("deliver", deliver).action("lose", lose)
///  .invariant("version never goes back", monotonic)
///  .eventually("every replica has the latest route", converged)
///  .describe(show);
/// const auto r = simasio::check_model(m);   // r.trace: the shortest counterexample
/// @endcode
template <class State>
class model {
 public:
  /// An action's effect: the states one step of it leads to from a state
  /// (none: the action is not enabled there).
  using successors = std::function<std::vector<State>(const State&)>;
  /// A condition on a state: an invariant, a goal, or final_states.
  using predicate = std::function<bool(const State&)>;

  /// A model with nothing in it yet.
  /// @param name the model's name, shown in failures and reports.
  explicit model(std::string name) : name_(std::move(name)) {}

  /// Adds @p s to the initial states (check_model needs at least one).
  model& initial(State s) {
    initial_.push_back(std::move(s));
    return *this;
  }
  /// An action: the states one step of it leads to from a state (empty:
  /// not enabled there).
  model& action(std::string name, successors next, fairness f = fairness::weak) {
    actions_.push_back({std::move(name), std::move(next), f});
    return *this;
  }
  /// Must hold in every reachable state.
  model& invariant(std::string name, predicate holds) {
    invariants_.push_back({std::move(name), std::move(holds)});
    return *this;
  }
  /// Liveness: on every fair behaviour (see fairness; each action's own),
  /// goal holds again and again (a behaviour that stops must stop in a
  /// goal state).
  model& eventually(std::string name, predicate goal) {
    goals_.push_back({std::move(name), std::move(goal)});
    return *this;
  }
  /// States where having no enabled action is a proper end, not a
  /// deadlock (default: none; every state without a successor deadlocks).
  model& final_states(predicate ok_to_stop) {
    final_ = std::move(ok_to_stop);
    return *this;
  }
  /// How a state is shown in counterexamples (default: "state #n").
  model& describe(std::function<std::string(const State&)> show) {
    describe_ = std::move(show);
    return *this;
  }

  /// The model's name.
  const std::string& name() const noexcept { return name_; }
  /// The initial states, in the order given.
  const std::vector<State>& initial_states() const noexcept { return initial_; }
  /// How many actions there are; they are numbered from 0 in the order added.
  std::size_t action_count() const noexcept { return actions_.size(); }
  /// The name of action @p a.
  /// @throws std::out_of_range if @p a is not below action_count().
  const std::string& action_name(std::size_t a) const { return actions_.at(a).name; }
  /// The fairness of action @p a.
  /// @throws std::out_of_range if @p a is not below action_count().
  fairness action_fairness(std::size_t a) const { return actions_.at(a).fair; }
  /// The states action @p a (below action_count(), unchecked) leads to from
  /// @p s; empty when it is not enabled there.
  std::vector<State> next(std::size_t a, const State& s) const { return actions_[a].next(s); }
  /// True if @p s is a proper end (final_states); false without final_states.
  bool is_final(const State& s) const { return final_ && final_(s); }
  /// @p s as the describe function shows it, "(a state)" without one.
  std::string show(const State& s) const { return describe_ ? describe_(s) : std::string("(a state)"); }
  /// The invariants, as (name, predicate) pairs in the order added.
  const std::vector<std::pair<std::string, predicate>>& invariants() const noexcept { return invariants_; }
  /// The liveness goals, as (name, predicate) pairs in the order added.
  const std::vector<std::pair<std::string, predicate>>& goals() const noexcept { return goals_; }

  /// The name of an action that leads from @p from to @p to, if any.
  std::optional<std::string> step_between(const State& from, const State& to) const {
    for (const auto& a : actions_)
      for (const State& s : a.next(from))
        if (!(s < to) && !(to < s)) return a.name;
    return std::nullopt;
  }

 private:
  struct named_action {
    std::string name;
    successors next;
    fairness fair = fairness::weak;
  };
  std::string name_;
  std::vector<State> initial_;
  std::vector<named_action> actions_;
  std::vector<std::pair<std::string, predicate>> invariants_;
  std::vector<std::pair<std::string, predicate>> goals_;
  predicate final_;
  std::function<std::string(const State&)> describe_;
};

/// Bounds on check_model's exploration.
struct model_options {
  std::size_t max_states = 1'000'000;                             ///< stop exploring beyond this many states
  std::size_t max_depth = std::numeric_limits<std::size_t>::max();  ///< stop beyond this many steps from an initial state
};

/// One step of a counterexample: the action taken (empty for an initial
/// state) and the state it led to.
struct model_step {
  std::string action;  ///< the action's name; empty for an initial state
  std::string state;   ///< the state, as model::show gives it
};

/// What check_model found.
struct model_result {
  bool ok = true;  ///< false when a violation was found
  /// False when a bound stopped exploration: ok then speaks only of the
  /// states explored, and liveness was not checked.
  bool complete = true;
  std::size_t states = 0;       ///< distinct reachable states explored
  std::size_t transitions = 0;  ///< edges between them
  std::size_t depth = 0;        ///< longest shortest path from an initial state
  /// On failure: "invariant '<name>'", "deadlock" or "liveness '<name>'".
  std::string violation;
  /// On failure: the shortest path from an initial state to the violation;
  /// for liveness, that path to a cycle, then the cycle (from cycle_start),
  /// which a weakly fair behaviour can repeat for ever without the goal.
  std::vector<model_step> trace;
  /// Liveness: the index in trace of the cycle's first state (the cycle
  /// ends back in it); trace.size() when the behaviour stops.
  std::size_t cycle_start = 0;
  /// Liveness: the behaviour stops (no action enabled) short of the goal;
  /// the trace has no cycle then.
  bool stops = false;
  /// The violation and the trace, one step a line.
  std::string explanation() const {
    if (ok) return complete ? "no violation" : "no violation within the bounds";
    std::string out = violation + ":\n";
    const bool cycle = violation.rfind("liveness", 0) == 0 && !stops;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      out += "  " + std::to_string(i) + ". " + (trace[i].action.empty() ? std::string("initial") : trace[i].action) +
             " -> " + trace[i].state + "\n";
      if (cycle && i == cycle_start) out += "  -- from here, for ever:\n";
    }
    if (stops) out += "  -- and no action is enabled there\n";
    return out;
  }
  /// ok.
  explicit operator bool() const noexcept { return ok; }
};

namespace detail::mc {

struct edge {
  std::size_t action;
  std::size_t to;
};

template <class State>
struct graph {
  std::vector<State> states;
  std::vector<std::size_t> parent, parent_action, depth;
  std::vector<std::vector<edge>> out;
  std::map<State, std::size_t> index;
};

// The path from an initial state to s, as steps.
template <class State>
std::vector<model_step> path_to(const model<State>& m, const graph<State>& g, std::size_t s) {
  std::vector<model_step> rev;
  for (std::size_t at = s;;) {
    const bool root = g.parent[at] == at;
    rev.push_back({root ? std::string() : m.action_name(g.parent_action[at]), m.show(g.states[at])});
    if (root) break;
    at = g.parent[at];
  }
  return {rev.rbegin(), rev.rend()};
}

// Strongly connected components of the states where keep[s] (Tarjan,
// iterative), each sorted (src/check/model.cpp).
std::vector<std::vector<std::size_t>> components(const std::vector<std::vector<edge>>& out,
                                                 const std::vector<char>& keep);

// Shortest path inside `inside` from a to b (as edges); a == b: empty.
std::vector<edge> path_inside(const std::vector<std::vector<edge>>& out, const std::vector<char>& inside,
                              std::size_t a, std::size_t b);

}  // namespace detail::mc

/// Explores every state of @p m reachable within the bounds, breadth first,
/// checking invariants and deadlocks as it goes (the counterexample is a
/// shortest one), then, if exploration was complete, each liveness goal
/// under weak fairness. Deterministic: the same model gives the same
/// result and the same trace.
template <class State>
model_result check_model(const model<State>& m, const model_options& opts = {}) {
  using namespace detail::mc;
  model_result r;
  graph<State> g;
  auto fail = [&](std::string what, std::size_t at) {
    r.ok = false;
    r.violation = std::move(what);
    r.trace = path_to(m, g, at);
  };
  auto add = [&](const State& s, std::size_t parent, std::size_t action, std::size_t depth) -> std::pair<std::size_t, bool> {
    auto [it, fresh] = g.index.emplace(s, g.states.size());
    if (!fresh) return {it->second, false};
    const std::size_t id = g.states.size();
    g.states.push_back(s);
    g.parent.push_back(parent == std::numeric_limits<std::size_t>::max() ? id : parent);
    g.parent_action.push_back(action);
    g.depth.push_back(depth);
    g.out.emplace_back();
    return {id, true};
  };
  auto check_state = [&](std::size_t id) {
    for (const auto& [name, holds] : m.invariants())
      if (!holds(g.states[id])) {
        fail("invariant '" + name + "'", id);
        return false;
      }
    return true;
  };
  if (m.initial_states().empty()) throw usage_error("simasio: model '" + m.name() + "' has no initial state: give one with initial()");
  for (const State& s : m.initial_states())
    if (auto [id, fresh] = add(s, std::numeric_limits<std::size_t>::max(), 0, 0); fresh && !check_state(id)) break;
  for (std::size_t i = 0; r.ok && i < g.states.size(); ++i) {
    r.depth = std::max(r.depth, g.depth[i]);
    if (g.depth[i] >= opts.max_depth) {
      r.complete = false;
      continue;
    }
    bool any = false;
    for (std::size_t a = 0; r.ok && a < m.action_count(); ++a) {
      for (const State& s : m.next(a, g.states[i])) {
        any = true;
        if (g.states.size() >= opts.max_states && g.index.count(s) == 0) {
          r.complete = false;
          continue;
        }
        auto [to, fresh] = add(s, i, a, g.depth[i] + 1);
        g.out[i].push_back({a, to});
        ++r.transitions;
        if (fresh && !check_state(to)) break;
      }
    }
    if (r.ok && !any && !m.is_final(g.states[i])) fail("deadlock", i);
  }
  r.states = g.states.size();
  if (!r.ok || !r.complete) return r;

  // Liveness: a non-goal state where the behaviour may stop, or a set of
  // non-goal states a fair behaviour can stay in for ever: a strongly
  // connected component where every weakly fair action enabled in all of
  // its states, and every strongly fair action enabled in any, has an edge
  // inside it (its every-state, every-edge tour is then fair; for weak
  // fairness no smaller cycle is fair if that one is not, and for strong
  // fairness the states that enable an action never taken are ruled out
  // and what remains is searched again).
  const std::size_t n = g.states.size();
  for (const auto& [goal_name, goal] : m.goals()) {
    std::vector<char> keep(n, 0);
    for (std::size_t s = 0; s < n; ++s) keep[s] = !goal(g.states[s]);
    std::optional<std::size_t> stop;
    for (std::size_t s = 0; s < n && !stop; ++s)
      if (keep[s] && g.out[s].empty()) stop = s;
    if (stop) {
      fail("liveness '" + goal_name + "'", *stop);
      r.stops = true;
      r.cycle_start = r.trace.size();
      return r;
    }
    // Components of non-goal states, refined for strong fairness: a
    // strongly fair action enabled somewhere in a component but never
    // taken inside it rules out the states where it is enabled.
    std::vector<std::vector<std::size_t>> work = components(g.out, keep);
    std::reverse(work.begin(), work.end());
    while (!work.empty()) {
      const std::vector<std::size_t> scc = std::move(work.back());
      work.pop_back();
      std::vector<char> inside(n, 0);
      for (std::size_t s : scc) inside[s] = 1;
      std::vector<char> internal(m.action_count(), 0), everywhere(m.action_count(), 1), somewhere(m.action_count(), 0);
      bool loop = false;
      for (std::size_t s : scc) {
        std::vector<char> enabled(m.action_count(), 0);
        for (const edge& e : g.out[s]) {
          enabled[e.action] = 1;
          if (inside[e.to]) {
            internal[e.action] = 1;
            loop = true;
          }
        }
        for (std::size_t a = 0; a < m.action_count(); ++a) {
          everywhere[a] &= enabled[a];
          somewhere[a] |= enabled[a];
        }
      }
      if (!loop) continue;  // a single state without a self-loop: passed through, not stayed in
      bool fair = true;
      std::vector<char> rule_out(n, 0);
      bool refine = false;
      for (std::size_t a = 0; a < m.action_count(); ++a) {
        if (internal[a]) continue;
        if (m.action_fairness(a) == fairness::weak && everywhere[a]) fair = false;  // no cycle of it is fair
        if (m.action_fairness(a) == fairness::strong && somewhere[a]) {
          refine = true;
          for (std::size_t s : scc)
            for (const edge& e : g.out[s])
              if (e.action == a) rule_out[s] = 1;
        }
      }
      if (!fair) continue;
      if (refine) {
        std::vector<char> rest(n, 0);
        for (std::size_t s : scc) rest[s] = !rule_out[s];
        for (auto& sub : components(g.out, rest)) work.push_back(std::move(sub));
        continue;
      }
      // The stem: a shortest path to the component's first-found state;
      // the cycle: through every state, taking an internal edge of each
      // action that has one, back to the start.
      std::size_t entry = scc.front();
      for (std::size_t s : scc)
        if (g.depth[s] < g.depth[entry]) entry = s;
      fail("liveness '" + goal_name + "'", entry);
      r.cycle_start = r.trace.size() - 1;
      std::size_t at = entry;
      std::vector<char> seen(n, 0), taken(m.action_count(), 0);
      seen[entry] = 1;
      auto walk = [&](const std::vector<edge>& path) {
        for (const edge& e : path) {
          r.trace.push_back({m.action_name(e.action), m.show(g.states[e.to])});
          at = e.to;
          seen[at] = 1;
          taken[e.action] = 1;
        }
      };
      for (std::size_t a = 0; a < m.action_count(); ++a) {
        if (!internal[a] || taken[a]) continue;
        for (std::size_t s : scc) {
          auto it = std::find_if(g.out[s].begin(), g.out[s].end(), [&](const edge& e) { return e.action == a && inside[e.to]; });
          if (it == g.out[s].end()) continue;
          walk(path_inside(g.out, inside, at, s));
          walk({*it});
          break;
        }
      }
      for (std::size_t s : scc)
        if (!seen[s]) walk(path_inside(g.out, inside, at, s));
      walk(path_inside(g.out, inside, at, entry));
      if (r.trace.size() == r.cycle_start + 1) {  // a self-loop only
        const edge& self = *std::find_if(g.out[entry].begin(), g.out[entry].end(), [&](const edge& e) { return e.to == entry; });
        walk({self});
      }
      return r;
    }
  }
  return r;
}

/// A real step the model does not allow (world::refines).
class refinement_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Holds a simulated run to its design: @p abstraction maps the real state
/// (what the scenario can see of its hosts) to a model state, read now and
/// after every step of @p w. The first reading must be an initial state of
/// @p m; each later one must equal the one before (a stutter: the step did
/// nothing the model sees) or follow from it by one of the model's
/// actions. Otherwise the run fails with a refinement_error naming the
/// step, the time, both model states and the actions the model had.
template <class State>
void refines(world& w, std::shared_ptr<const model<State>> m, detail::non_deduced_t<std::function<State()>> abstraction) {
  auto prev = std::make_shared<State>(abstraction());
  const auto& init = m->initial_states();
  if (std::none_of(init.begin(), init.end(), [&](const State& s) { return !(s < *prev) && !(*prev < s); }))
    throw refinement_error("simasio: refinement of model '" + m->name() + "': the run starts in " + m->show(*prev) +
                           ", which is no initial state of the model");
  w.always("refines model '" + m->name() + "'", [&w, m, prev, abstraction] {
    State now = abstraction();
    if (!(now < *prev) && !(*prev < now)) return true;  // a stutter
    if (m->step_between(*prev, now)) {
      *prev = std::move(now);
      return true;
    }
    throw refinement_error("simasio: refinement of model '" + m->name() + "' failed at t=" +
                           detail::format_time(w.now()) + " step=" + std::to_string(w.steps()) + ": the run went from " +
                           m->show(*prev) + " to " + m->show(now) +
                           ", which no action of the model allows (and it is not a stutter)");
  });
}

/// The same, over a copy of @p m.
template <class State>
void refines(world& w, const model<State>& m, detail::non_deduced_t<std::function<State()>> abstraction) {
  refines(w, std::make_shared<const model<State>>(m), std::move(abstraction));
}

template <class State>
void world::refines(std::shared_ptr<const model<State>> m, detail::non_deduced_t<std::function<State()>> abstraction) {
  simasio::refines(*this, std::move(m), std::move(abstraction));
}

template <class State>
void world::refines(const model<State>& m, detail::non_deduced_t<std::function<State()>> abstraction) {
  simasio::refines(*this, m, std::move(abstraction));
}

}  // namespace simasio

#endif  // SIMASIO_CHECK_MODEL_HPP
