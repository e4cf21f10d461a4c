// shrink.cpp — minimising a failing run's choice tape
#include "guard.hpp"
#include "sweep.hpp"
#include "progress.hpp"

#include <algorithm>

namespace simasio::check_impl {

namespace {

// What a replay of t needs: trailing polite draws and all-polite streams
// say nothing a polite replay would not do anyway.
// The swarm section stays, one draw at least: it says the tape was
// recorded under swarm testing (and replays only under it).
void trim(saved_tape& t) {
  for (tape_stream& s : t.streams) {
    const std::size_t keep = s.key == "swarm" ? 1 : 0;
    while (s.choices.size() > keep && s.choices.back().value == 0) s.choices.pop_back();
  }
  std::erase_if(t.streams, [](const tape_stream& s) { return s.choices.empty(); });
}

}  // namespace

// Minimises a failing run's choice tape toward the polite run (every draw
// 0: FIFO picks, minimum latency, no faults) while the same failure
// persists, within a budget of replays. Streams are independent, so
// zeroing one draw never moves another stream's draws: first whole
// streams go polite, in halving groups; then each stream's shortest
// failing prefix; then single deviations, in halving chunks (delta
// debugging); then, in a stream, one other value for its first deviation
// in place of the deviations after it. Replays answer draws beyond a
// stream's section, or past a divergence in it, politely.
std::optional<shrunk> shrink_failure(seed_runner& runner, const world_options& base, std::uint64_t seed,
                                     const std::string& signature, bool fail_on_stall, int budget,
                                     progress_line* progress) {
  run_request req{base, seed, fail_on_stall};
  req.tape = true;
  run_outcome first = runner.run(req, true);
  if (first.signature != signature) return std::nullopt;  // not reproducible: nothing to shrink
  saved_tape recorded = std::move(first.tape);
  shrunk result;
  result.original_choices = recorded.size();
  saved_tape best = std::move(recorded);
  trim(best);
  auto still_fails = [&](saved_tape candidate) {
    if (result.replays >= budget || guard::interrupted() != 0) return false;
    ++result.replays;
    if (progress != nullptr) progress->shrinking(seed, result.replays, budget, best.deviations());
    run_request again = req;
    again.opts.replay_tape = std::make_shared<const saved_tape>(std::move(candidate));
    again.opts.on_tape_mismatch = tape_mismatch::adapt;
    run_outcome out = runner.run(again, true);
    if (out.signature != signature) return false;
    saved_tape got = std::move(out.tape);
    // Keep what the program actually drew: later draws may have changed.
    trim(got);
    best = std::move(got);
    return true;
  };
  // Delta debugging over n items of best: drop(candidate, first, count)
  // makes items [first, first + count) polite; a success restarts with the
  // (re-recorded) best at the same chunk size.
  auto reduce = [&](auto count, auto drop) {
    for (std::size_t chunk = std::max<std::size_t>(count() / 2, 1); chunk >= 1 && result.replays < budget;) {
      bool progressed = false;
      for (std::size_t start = 0; start < count() && result.replays < budget; start += chunk) {
        saved_tape candidate = best;
        drop(candidate, start, std::min(chunk, count() - start));
        if (still_fails(std::move(candidate))) {
          progressed = true;
          break;
        }
      }
      if (!progressed) {
        if (chunk == 1) break;
        chunk /= 2;
      }
    }
  };
  // 1. Whole streams.
  reduce([&] { return best.streams.size(); },
         [](saved_tape& c, std::size_t first, std::size_t n) {
           c.streams.erase(c.streams.begin() + static_cast<std::ptrdiff_t>(first),
                           c.streams.begin() + static_cast<std::ptrdiff_t>(first + n));
         });
  // 2. Each stream's shortest failing prefix (the rest of it polite).
  std::vector<std::string> keys;
  for (const tape_stream& t : best.streams) keys.push_back(t.key);
  for (const std::string& key : keys) {
    const tape_stream* now = best.find(key);
    std::size_t lo = 0, hi = now != nullptr ? now->choices.size() : 0;
    while (lo < hi && result.replays < budget) {
      const std::size_t mid = lo + (hi - lo) / 2;
      saved_tape candidate = best;
      for (tape_stream& t : candidate.streams)
        if (t.key == key) t.choices.resize(std::min(mid, t.choices.size()));
      if (still_fails(std::move(candidate))) {
        now = best.find(key);
        hi = now != nullptr ? std::min(mid, now->choices.size()) : 0;  // gone: the whole stream went polite
      } else {
        lo = mid + 1;
      }
    }
  }
  // 3. Single deviations, stream after stream.
  auto deviation_positions = [&] {
    std::vector<std::pair<std::size_t, std::size_t>> pos;
    for (std::size_t s = 0; s < best.streams.size(); ++s)
      for (std::size_t i = 0; i < best.streams[s].choices.size(); ++i)
        if (best.streams[s].choices[i].value != 0) pos.emplace_back(s, i);
    return pos;
  };
  reduce([&] { return static_cast<std::size_t>(best.deviations()); },
         [&](saved_tape& c, std::size_t first, std::size_t n) {
           const auto pos = deviation_positions();
           for (std::size_t k = first; k < first + n; ++k) c.streams[pos[k].first].choices[pos[k].second].value = 0;
         });
  // 4. One deviation for several: zeroing only moves a draw toward 0, so
  // picks 4, 2, 3 that put one host first never become the single pick 5
  // that does it at once. For a stream's first deviation of a small bound,
  // try every other value with the rest of the stream polite; keep what
  // fails with fewer deviations.
  for (std::size_t k = 0; k < best.streams.size() && result.replays < budget; ++k) {
    const tape_stream& t = best.streams[k];
    std::size_t first = 0;
    while (first < t.choices.size() && t.choices[first].value == 0) ++first;
    if (first == t.choices.size() || t.choices[first].bound > 16) continue;
    std::uint64_t others = 0;
    for (std::size_t i = first + 1; i < t.choices.size(); ++i) others += t.choices[i].value != 0;
    if (others == 0) continue;
    const std::string key = t.key;
    const choice at = t.choices[first];
    const std::uint64_t before = best.deviations();
    for (std::uint64_t v = 1; v < at.bound && result.replays < budget; ++v) {
      if (v == at.value) continue;
      saved_tape candidate = best;
      candidate.streams[k].choices.resize(first + 1);
      candidate.streams[k].choices[first].value = v;
      const saved_tape kept = best;
      if (still_fails(std::move(candidate))) {
        if (best.deviations() < before) break;
        best = kept;  // no simpler
      }
    }
    if (best.find(key) == nullptr) k = static_cast<std::size_t>(-1);  // the streams moved: look again from the start
  }
  best.seed = seed;
  result.tape = std::move(best);
  return result;
}

}  // namespace simasio::check_impl
