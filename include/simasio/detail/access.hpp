// simasio/detail/access.hpp — simasio's own way into the internals of world, host and io_context
#ifndef SIMASIO_DETAIL_ACCESS_HPP
#define SIMASIO_DETAIL_ACCESS_HPP

#include <simasio/host.hpp>
#include <simasio/io_context.hpp>
#include <simasio/world.hpp>

#include <memory>
#include <string_view>

namespace simasio::detail {

class socket_ops;
struct log_state;

// world, host and io_context keep the state simasio's services, I/O objects
// and sources work on private, so users see only the public API; this one
// friend of all three hands it to simasio's own code.
struct access {
  // The scheduler core of w.
  static world_core& core(world& w) noexcept { return *w.core_; }
  // The network engine of w.
  static socket_ops& net(world& w) noexcept { return *w.net_; }
  // The logging state of w (see simasio/log/log.hpp): null until first used.
  static std::shared_ptr<log_state>& log(world& w) noexcept { return w.log_; }

  // The state of h that the scheduler and the network read.
  static host_state& state(host& h) noexcept { return h.state_; }

  // The scheduling state of ctx (its ready queue, work count, host, core).
  static context_state& state(io_context& ctx) noexcept { return ctx.state_; }
  // Throws the usage_error for a use of ctx (by @p used_by) after its world
  // was destroyed.
  [[noreturn]] static void throw_orphaned(const io_context& ctx, std::string_view used_by) {
    ctx.throw_orphaned(used_by);
  }
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ACCESS_HPP
