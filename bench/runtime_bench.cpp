// runtime_bench.cpp — simasio::io_context against boost::asio::io_context, in one process.
//
// Prints a markdown table: each row is a scenario, simasio's rate, Asio's
// rate for the same code on a real one-thread io_context, and the ratio.
// Best of several repetitions, to keep the other core's noise out.
#include <simasio/simasio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace asio = boost::asio;

namespace {

using clock_type = std::chrono::steady_clock;

// Items/second of one run of f (which returns how many items it processed).
double rate_of(const std::function<std::size_t()>& f) {
  const auto start = clock_type::now();
  const std::size_t n = f();
  return static_cast<double>(n) / std::chrono::duration<double>(clock_type::now() - start).count();
}

// Runs a and b alternately `reps` times (so drift of the machine hits both
// alike) and returns the best rate of each.
std::pair<double, double> best_rates(int reps, const std::function<std::size_t()>& a,
                                     const std::function<std::size_t()>& b) {
  double best_a = 0, best_b = 0;
  for (int i = 0; i < reps; ++i) {
    best_a = std::max(best_a, rate_of(a));
    if (b) best_b = std::max(best_b, rate_of(b));
  }
  return {best_a, best_b};
}

template <class Context>
std::size_t bulk_post(Context& ctx, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) asio::post(ctx, [&count] { ++count; });
  ctx.run();
  return count;
}

template <class Context>
struct chain {
  Context& ctx;
  std::size_t left;
  std::size_t* count;
  void operator()() {
    ++*count;
    if (--left > 0) asio::post(ctx, chain{ctx, left, count});
  }
};

template <class Context>
std::size_t handler_chain(Context& ctx, std::size_t n) {
  std::size_t count = 0;
  asio::post(ctx, chain<Context>{ctx, n, &count});
  ctx.run();
  return count;
}

std::size_t random_timers(std::size_t n) {
  simasio::world w(1);
  simasio::io_context ioc;
  std::vector<simasio::steady_timer> timers;
  timers.reserve(n);
  std::size_t fired = 0;
  auto& r = w.random();
  for (std::size_t i = 0; i < n; ++i) {
    timers.emplace_back(ioc, std::chrono::nanoseconds(static_cast<std::int64_t>(r.below(10'000'000'000ULL))));
    timers.back().async_wait([&fired](boost::system::error_code) { ++fired; });
  }
  ioc.run();
  return fired;
}

std::string rate(double r) {
  char buf[32];
  if (r >= 1e6) std::snprintf(buf, sizeof buf, "%.1f M/s", r / 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f /s", r);
  return buf;
}

void row(const char* name, double sim, double ref) {
  if (ref > 0)
    std::printf("| %-42s | %12s | %12s | %6.2fx |\n", name, rate(sim).c_str(), rate(ref).c_str(), sim / ref);
  else
    std::printf("| %-42s | %12s | %12s | %7s |\n", name, rate(sim).c_str(), "-", "-");
}

}  // namespace

int main() {
  constexpr std::size_t posts = 5'000'000;
  constexpr std::size_t chain_length = 10'000'000;
  constexpr std::size_t timers = 1'000'000;
  constexpr int reps = 5;

  std::printf("| %-42s | %12s | %12s | %7s |\n", "scenario", "simasio", "boost::asio", "ratio");
  std::printf("|%s|%s|%s|%s|\n", std::string(44, '-').c_str(), std::string(14, '-').c_str(),
              std::string(14, '-').c_str(), std::string(9, '-').c_str());

  const auto [sim_post, ref_post] = best_rates(
      reps,
      [] {
        simasio::world w;
        simasio::io_context ctx;
        return bulk_post(ctx, posts);
      },
      [] {
        asio::io_context ctx(1);
        return bulk_post(ctx, posts);
      });
  row("post 5M handlers, then run (handlers/s)", sim_post, ref_post);

  const auto [sim_chain, ref_chain] = best_rates(
      reps,
      [] {
        simasio::world w;
        simasio::io_context ctx;
        return handler_chain(ctx, chain_length);
      },
      [] {
        asio::io_context ctx(1);
        return handler_chain(ctx, chain_length);
      });
  row("handler chain, each posts the next (handlers/s)", sim_chain, ref_chain);

  const double sim_timers = best_rates(3, [] { return random_timers(timers); }, nullptr).first;
  row("1M timers, random expiries over 10 s (fired/s)", sim_timers, 0);
  return 0;
}
