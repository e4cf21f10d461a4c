// simasio/detail/current.hpp — the one ambient pointer: this thread's current world
#ifndef SIMASIO_DETAIL_CURRENT_HPP
#define SIMASIO_DETAIL_CURRENT_HPP

namespace simasio {
class world;
}

namespace simasio::detail {

class world_core;

// The world core running on this thread (inside its run/poll), or nullptr.
// Read on every post and every wait start, so it is a plain thread_local.
inline thread_local world_core* running_core_tls = nullptr;

// This OS thread, as an address of its own. Not std::this_thread::get_id():
// inside a simulated process, simasio::interpose gives each simulated
// thread an id of its own, though they all run on the world's OS thread.
inline const void* os_thread() noexcept {
  static thread_local const char marker = 0;
  return &marker;
}

// The world running on this thread, else the most recently constructed
// live one, else nullptr.
world* current_world() noexcept;
// The core of current_world(), or nullptr.
world_core* current_core() noexcept;

// Bookkeeping called by world's constructor and destructor.
void register_live_world(world& w);
void unregister_live_world(world& w) noexcept;

// RAII: marks a core as running on this thread.
class running_scope {
 public:
  explicit running_scope(world_core& core) noexcept;
  ~running_scope();
  running_scope(const running_scope&) = delete;
  running_scope& operator=(const running_scope&) = delete;

 private:
  world_core* saved_;
};

// The thread's default world (seeded from SIMASIO_SEED), shared by the
// default io_contexts created while no other world is alive.
world& acquire_default_world();
void release_default_world() noexcept;
bool is_default_world(const world& w) noexcept;

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_CURRENT_HPP
