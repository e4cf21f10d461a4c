// strategy.cpp — world_options::strategy to a strategy object
#include <simasio/sched/fifo.hpp>
#include <simasio/sched/pct.hpp>
#include <simasio/sched/random_walk.hpp>

namespace simasio::sched {

std::unique_ptr<strategy> make_strategy(const world_options& opts, rng& scheduler) {
  switch (opts.strategy) {
    case simasio::strategy::fifo:
      return std::make_unique<fifo>();
    case simasio::strategy::random_walk:
      return std::make_unique<random_walk>(scheduler);
    case simasio::strategy::pct:
      return std::make_unique<pct>(opts, scheduler);
  }
  throw config_error("simasio: world_options::strategy has a value that names no strategy (" +
                     std::to_string(static_cast<int>(opts.strategy)) + "); use fifo, random_walk or pct");
}

}  // namespace simasio::sched
