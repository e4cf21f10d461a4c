// harness.hpp — rows of figures, measured in one process, printed as a
// markdown table and written as JSON.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using clock_type = std::chrono::steady_clock;

/// One line of the table.
struct row {
  std::string scenario;   ///< what was measured, with its unit
  double simasio = 0;     ///< simasio's figure
  double reference = 0;   ///< the reference's figure, 0 when there is none
  std::string ratio;      ///< how the two compare ("3.1x", "+4%"), empty when there is no reference
  std::string target;     ///< the goal for this row, empty when there is none
  bool met = true;        ///< whether the goal is met
  std::string unit;       ///< unit of both figures: "/s" or "B"
};

/// Seconds f takes.
template <class F>
double seconds(F&& f) {
  const auto start = clock_type::now();
  f();
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Items per second of f, which returns how many items it processed.
template <class F>
double rate_of(F&& f) {
  const auto start = clock_type::now();
  const double n = static_cast<double>(f());
  return n / std::chrono::duration<double>(clock_type::now() - start).count();
}

/// Runs a and b alternately `reps` times, so that drift of the machine hits
/// both alike: the best rate of each, and the median of the per-repetition
/// ratios a/b (each pair runs back to back, so a change of the machine's
/// speed between repetitions does not move it).
struct paired {
  double a = 0, b = 0, ratio = 0;
};
/// For functions that measure and return their own rate.
template <class A, class B>
paired paired_measured(int reps, A&& a, B&& b) {
  paired out;
  std::vector<double> ratios;
  for (int i = 0; i < reps; ++i) {
    const double ra = a(), rb = b();
    out.a = std::max(out.a, ra);
    out.b = std::max(out.b, rb);
    ratios.push_back(ra / rb);
  }
  std::sort(ratios.begin(), ratios.end());
  out.ratio = ratios[ratios.size() / 2];
  return out;
}
/// For functions that return how many items they processed.
template <class A, class B>
paired paired_rates(int reps, A&& a, B&& b) {
  return paired_measured(reps, [&] { return rate_of(a); }, [&] { return rate_of(b); });
}

template <class A>
double best_rate(int reps, A&& a) {
  double best = 0;
  for (int i = 0; i < reps; ++i) best = std::max(best, rate_of(a));
  return best;
}

/// "46.9 M/s", "21.3 k/s", "812 /s", "1476 B".
std::string format(double value, const std::string& unit);
/// "3.11x"
std::string times(double ratio);
/// "+4.2%" (overhead of a over b: a/b - 1 as a percentage)
std::string percent(double fraction);

/// Settings every group reads.
struct settings {
  bool quick = false;  ///< fewer repetitions and smaller sizes (a smoke run)
  int reps() const { return quick ? 1 : 5; }
};

using group = std::function<void(const settings&, std::vector<row>&)>;

}  // namespace bench
