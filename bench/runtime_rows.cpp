// runtime_rows.cpp — simasio::io_context against boost::asio::io_context
// (one thread), the same handler code in one process; and timers through
// virtual time.
#include "groups.hpp"
#include "handler_chain.hpp"

#include <simasio/simasio.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace bench {
namespace {

namespace asio = boost::asio;

template <class Context>
std::size_t bulk_post(Context& ctx, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) asio::post(ctx, [&count] { ++count; });
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

row versus(std::string scenario, paired rates, double goal) {
  row r{std::move(scenario), rates.a, rates.b, times(rates.ratio), "", true, "/s"};
  if (goal > 0) {
    r.target = ">= " + times(goal);
    r.met = rates.ratio >= goal;
  }
  return r;
}

}  // namespace

void runtime_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t posts = s.quick ? 200'000 : 5'000'000;
  const std::size_t chain_length = s.quick ? 200'000 : 10'000'000;
  const std::size_t timers = s.quick ? 50'000 : 1'000'000;

  rows.push_back(versus("post 5M handlers, then run; vs boost::asio::io_context (handlers/s)",
                        paired_rates(
                            s.reps(),
                            [&] {
                              simasio::world w;
                              simasio::io_context ctx;
                              return bulk_post(ctx, posts);
                            },
                            [&] {
                              asio::io_context ctx(1);
                              return bulk_post(ctx, posts);
                            }),
                        2.0));
  rows.push_back(versus("handler chain, each posts the next; vs boost::asio::io_context (handlers/s)",
                        paired_rates(
                            s.reps(),
                            [&] {
                              simasio::world w;
                              simasio::io_context ctx;
                              return handler_chain(ctx, chain_length);
                            },
                            [&] {
                              asio::io_context ctx(1);
                              return handler_chain(ctx, chain_length);
                            }),
                        2.0));
  const double fired = best_rate(s.quick ? 1 : 3, [&] { return random_timers(timers); });
  rows.push_back({"1M timers, random expiries over 10 s of virtual time (fired/s)", fired, 0, "", ">= 2 M/s",
                  fired >= 2e6, "/s"});
}

}  // namespace bench
