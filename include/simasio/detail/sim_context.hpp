// simasio/detail/sim_context.hpp — recognising a simulated io_context behind an executor
#ifndef SIMASIO_DETAIL_SIM_CONTEXT_HPP
#define SIMASIO_DETAIL_SIM_CONTEXT_HPP

#include <simasio/detail/config.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/handler_work.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/execution.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/query.hpp>

namespace simasio::detail {

// A service every simasio::io_context installs; execution_context is not
// polymorphic, so this is how a context reached through an executor is
// recognised as simulated.
class sim_marker final : public boost::asio::execution_context::service {
 public:
  using key_type = sim_marker;
  inline static boost::asio::execution_context::id id;
  explicit sim_marker(boost::asio::execution_context& ctx) : service(ctx) {}
  io_context* owner = nullptr;

 private:
  void shutdown() override {}
};

// The simasio::io_context behind ctx. @throws escape_error naming `object`
// when ctx is a real Asio context (or anything else).
io_context& sim_context_of(boost::asio::execution_context& ctx, const char* object);

// The simasio::io_context behind an executor (standard or Networking TS).
template <class Executor>
io_context& sim_context_behind(const Executor& ex, const char* object) {
  if constexpr (is_sim_executor<Executor>::value) {
    return ex.context();
  } else if constexpr (std::is_base_of_v<boost::asio::any_io_executor, Executor>) {
    // The common case (an io_context's executor behind any_io_executor)
    // needs no service lookup.
    if (const auto* plain = ex.template target<io_context::executor_type>()) return plain->context();
    return sim_context_of(boost::asio::query(ex, boost::asio::execution::context), object);
  } else if constexpr (boost::asio::execution::is_executor<Executor>::value) {
    return sim_context_of(boost::asio::query(ex, boost::asio::execution::context), object);
  } else {
    return sim_context_of(ex.context(), object);
  }
}

// The simasio::io_context an I/O object (an `object`: "steady_timer",
// "socket", ...) is built on. @throws escape_error when it is a real Asio
// context, usage_error when it outlived its world (whose host and network
// the object would need).
template <class Executor>
io_context& sim_context_of_executor(const Executor& ex, const char* object) {
  io_context& ctx = sim_context_behind(ex, object);
  if (access::state(ctx).core == nullptr) SIMASIO_UNLIKELY
    throw_orphaned(access::state(ctx), object);
  return ctx;
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_SIM_CONTEXT_HPP
