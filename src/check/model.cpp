// model.cpp — the model checker's graph algorithms that need no state type
#include <simasio/check/model.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace simasio::detail::mc {

// Strongly connected components of the states where keep[s] (Tarjan, iterative).
std::vector<std::vector<std::size_t>> components(const std::vector<std::vector<edge>>& out,
                                                 const std::vector<char>& keep) {
  const std::size_t n = out.size();
  constexpr std::size_t unseen = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> index(n, unseen), low(n, 0), stack;
  std::vector<char> on_stack(n, 0);
  std::vector<std::vector<std::size_t>> sccs;
  std::size_t counter = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (!keep[root] || index[root] != unseen) continue;
    std::vector<std::pair<std::size_t, std::size_t>> frames{{root, 0}};  // (state, next edge)
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      auto& [v, e] = frames.back();
      if (e < out[v].size()) {
        const std::size_t w = out[v][e++].to;
        if (!keep[w]) continue;
        if (index[w] == unseen) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          frames.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::size_t done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] == index[done]) {
        std::vector<std::size_t> scc;
        std::size_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          scc.push_back(w);
        } while (w != done);
        std::sort(scc.begin(), scc.end());
        sccs.push_back(std::move(scc));
      }
    }
  }
  return sccs;
}

// Shortest path inside `inside` from a to b (as edges); a == b: empty.
std::vector<edge> path_inside(const std::vector<std::vector<edge>>& out, const std::vector<char>& inside,
                              std::size_t a, std::size_t b) {
  if (a == b) return {};
  std::map<std::size_t, edge> via;  // state -> the edge that reached it
  std::vector<std::size_t> frontier{a};
  via.emplace(a, edge{0, a});
  for (std::size_t i = 0; i < frontier.size() && via.count(b) == 0; ++i) {
    for (const edge& e : out[frontier[i]]) {
      if (!inside[e.to] || via.count(e.to) != 0) continue;
      via.emplace(e.to, edge{e.action, frontier[i]});  // here: .to holds the predecessor
      frontier.push_back(e.to);
    }
  }
  std::vector<edge> rev;
  for (std::size_t at = b; at != a;) {
    const edge& e = via.at(at);
    rev.push_back({e.action, at});
    at = e.to;
  }
  return {rev.rbegin(), rev.rend()};
}

}  // namespace simasio::detail::mc
