// 06_pool_race — a thread-pool io_context, two ordered handlers, and a missing strand.
//
// An account service posts "credit" and then "report" for each request to
// an io_context that models a pool of 4 threads (concurrency_hint 4). On a
// real pool the two may run on different threads in either order; simasio
// lets any ready handler of a pool context run next, so the swap shows up
// on some seeds. Wrapping both in a strand restores their order.
#include "scenario.hpp"

#include <cstdio>

using namespace sample_06;

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
