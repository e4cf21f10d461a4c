// 06_pool_race — a thread-pool io_context, two ordered handlers, and a missing strand.
//
// An account service posts "credit" and then "report" for each request to
// an io_context that models a pool of 4 threads (concurrency_hint 4). On a
// real pool the two may run on different threads in either order; simasio
// lets any ready handler of a pool context run next, so the swap shows up
// on some seeds. Wrapping both in a strand restores their order.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <cstdio>
#include <string>

namespace net = simasio::asio;

namespace {

// The service under test: Executor is the pool itself or a strand on it.
template <class Executor>
void serve(Executor ex, int& balance, std::string& reports) {
  for (int request = 0; request < 3; ++request) {
    net::post(ex, [&balance] { balance += 10; });                                    // credit
    net::post(ex, [&balance, &reports] { reports += std::to_string(balance) + " "; });  // report
  }
}

void scenario(simasio::world& w, bool with_strand) {
  simasio::io_context pool(w.add_host("bank"), 4);
  int balance = 0;
  std::string reports;
  if (with_strand) serve(net::make_strand(pool), balance, reports);
  else serve(pool.get_executor(), balance, reports);
  w.run();
  if (reports != "10 20 30 ") throw std::runtime_error("reports out of order: " + reports);
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  simasio::check_options opts;
  opts.seeds = 500;
  opts.name = "pool_without_strand";
  const auto racy = simasio::check([](simasio::world& w) { scenario(w, false); }, opts);
  if (racy.ok()) {
    std::printf("without a strand: no swap found in %llu seeds\n", static_cast<unsigned long long>(racy.runs));
    return 1;
  }
  std::printf("without a strand: handlers swapped at seed %llu: %s\n",
              static_cast<unsigned long long>(racy.failure->seed), racy.failure->what.c_str());
  opts.name = "pool_with_strand";
  const auto safe = simasio::check([](simasio::world& w) { scenario(w, true); }, opts);
  if (!safe.ok()) return 1;
  std::printf("with a strand: in order on all %llu seeds\n", static_cast<unsigned long long>(safe.runs));
  return 0;
}
