// current.cpp — the thread's current world and its default world
#include <simasio/detail/current.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <vector>

namespace simasio::detail {
namespace {

struct thread_worlds {
  std::vector<world*> live;  // construction order; the last is current
  std::unique_ptr<world> default_world;
  int default_refs = 0;
};

thread_worlds& worlds() noexcept {
  thread_local thread_worlds t;
  return t;
}

}  // namespace

world* current_world() noexcept {
  thread_worlds& t = worlds();
  if (running_core_tls != nullptr) {
    for (world* w : t.live)
      if (&access::core(*w) == running_core_tls) return w;
  }
  return t.live.empty() ? nullptr : t.live.back();
}

world_core* current_core() noexcept {
  thread_worlds& t = worlds();
  if (running_core_tls != nullptr) return running_core_tls;
  return t.live.empty() ? nullptr : &access::core(*t.live.back());
}

void register_live_world(world& w) { worlds().live.push_back(&w); }

void unregister_live_world(world& w) noexcept {
  auto& live = worlds().live;
  live.erase(std::remove(live.begin(), live.end(), &w), live.end());
}

running_scope::running_scope(world_core& core) noexcept : saved_(running_core_tls) { running_core_tls = &core; }
running_scope::~running_scope() { running_core_tls = saved_; }

namespace {

// The first implicit world of the program says so on stderr (unless
// SIMASIO_IMPLICIT_WORLD=1 asks for it): a program that runs an
// io_context from main() with no world sees virtual time, and a server
// with nothing to serve returns from run() at once.
void note_implicit_world(std::uint64_t seed) {
  static std::atomic<bool> said{false};
  const auto asked = env_in_range("SIMASIO_IMPLICIT_WORLD", 0, 1,
                                  "1 (use the implicit world without this note) or 0 (say so)");
  if ((asked && *asked == 1) || said.exchange(true)) return;
  std::fprintf(stderr,
               "simasio: note: an io_context was made with no simasio::world on this thread, so it joined an "
               "implicit world (seed %llu): its clocks and timers run on virtual time and run() returns once nothing "
               "is left to simulate, so a server with no client ends at once. To test it, build the world yourself "
               "(simasio::check, or simasio::world with hosts) or run main() as a simulated process "
               "(host::spawn_main); to keep the implicit world without this note, set SIMASIO_IMPLICIT_WORLD=1.\n",
               static_cast<unsigned long long>(seed));
  std::fflush(stderr);
}

}  // namespace

world& acquire_default_world() {
  thread_worlds& t = worlds();
  if (!t.default_world) {
    world_options opts;
    opts.seed = env_u64("SIMASIO_SEED").value_or(0);
    note_implicit_world(opts.seed);
    t.default_world = std::make_unique<world>(opts);
  }
  ++t.default_refs;
  return *t.default_world;
}

bool is_default_world(const world& w) noexcept { return worlds().default_world.get() == &w; }

void release_default_world() noexcept {
  thread_worlds& t = worlds();
  if (--t.default_refs == 0) t.default_world.reset();
}

}  // namespace simasio::detail
