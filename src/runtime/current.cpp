// current.cpp — the thread's current world and its default world
#include <simasio/detail/current.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/env.hpp>
#include <simasio/error.hpp>
#include <simasio/world.hpp>

#include <algorithm>
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

world& acquire_default_world() {
  thread_worlds& t = worlds();
  if (!t.default_world) {
    world_options opts;
    opts.seed = env_u64("SIMASIO_SEED").value_or(0);
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
