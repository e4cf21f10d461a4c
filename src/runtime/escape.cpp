// escape.cpp — detecting real Asio I/O objects on simulated contexts (DESIGN.md §4)
//
// Real I/O objects register Asio's own services in the context they are
// bound to. has_service over those services names the culprit; a
// pre-installed non-threaded scheduler keeps Asio from starting the
// background thread it would otherwise start for them.
#include <simasio/detail/escape.hpp>

#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/deadline_timer.hpp>
#include <boost/asio/detail/deadline_timer_service.hpp>
#include <boost/asio/detail/reactive_descriptor_service.hpp>
#include <boost/asio/detail/reactive_socket_service.hpp>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/resolver_service.hpp>
#include <boost/asio/detail/scheduler.hpp>
#include <boost/asio/detail/signal_set_service.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/ip/icmp.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/local/datagram_protocol.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/system_timer.hpp>

#include <chrono>
#include <utility>

namespace simasio::detail {

void install_escape_guard(boost::asio::execution_context& ctx) {
  namespace ad = boost::asio::detail;
  // concurrency hint 1, own_thread = false: never a background thread.
  boost::asio::add_service<ad::scheduler>(ctx, new ad::scheduler(ctx, 1, false));
}

namespace {
template <class Clock>
using real_timer_service =
    boost::asio::detail::deadline_timer_service<boost::asio::detail::chrono_time_traits<Clock, boost::asio::wait_traits<Clock>>>;
}  // namespace

void* real_timer_scheduler(boost::asio::execution_context& ctx) noexcept {
  namespace ad = boost::asio::detail;
  if (!boost::asio::has_service<ad::reactor>(ctx)) return nullptr;
  return &boost::asio::use_service<ad::scheduler>(ctx);
}

// Asio's scheduler keeps its queue and the marker of its reactor's place in
// it private. An explicit instantiation may name private members (C++20
// [temp.spec.general]/6): this one gives real_timers_ready the two.
namespace {
namespace ad = boost::asio::detail;
struct scheduler_internals {
  // The front of s's queue, and the reactor's marker.
  friend std::pair<ad::scheduler_operation*, ad::scheduler_operation*> front_and_marker(scheduler_internals,
                                                                                       ad::scheduler& s) noexcept;
};
template <auto Queue, auto Marker>
struct expose_scheduler {
  friend std::pair<ad::scheduler_operation*, ad::scheduler_operation*> front_and_marker(scheduler_internals,
                                                                                       ad::scheduler& s) noexcept {
    return {(s.*Queue).front(), &(s.*Marker)};
  }
};
template struct expose_scheduler<&ad::scheduler::op_queue_, &ad::scheduler::task_operation_>;
}  // namespace

bool real_timers_ready(void* scheduler) noexcept {
  const auto [front, marker] = front_and_marker(scheduler_internals{}, *static_cast<ad::scheduler*>(scheduler));
  // After a poll, as after the reactor's creation, the queue holds the
  // reactor's marker alone; anything more (a cancelled wait's completion)
  // needs a poll.
  return front != nullptr && (front != marker || ad::op_queue_access::next(front) != nullptr);
}

void poll_real_timers(void* scheduler) {
  auto& s = *static_cast<boost::asio::detail::scheduler*>(scheduler);
  boost::system::error_code ec;
  s.poll(ec);
  // Asio's scheduler stops itself when it runs out of work; a later real
  // wait must find it running.
  if (s.stopped()) s.restart();
}

const char* real_timer_kind(boost::asio::execution_context& ctx) noexcept {
  namespace ad = boost::asio::detail;
  using boost::asio::has_service;
  if (has_service<real_timer_service<std::chrono::steady_clock>>(ctx)) return "boost::asio::steady_timer";
  if (has_service<real_timer_service<std::chrono::system_clock>>(ctx)) return "boost::asio::system_timer";
  if (has_service<ad::deadline_timer_service<boost::asio::time_traits<boost::posix_time::ptime>>>(ctx))
    return "boost::asio::deadline_timer";
  return "Asio timer";
}

bool real_timer_waits_pending(void* scheduler) {
  auto& s = *static_cast<boost::asio::detail::scheduler*>(scheduler);
  poll_real_timers(scheduler);
  // poll() stops a scheduler exactly when it has no outstanding work.
  boost::system::error_code ec;
  s.poll(ec);
  const bool pending = !s.stopped();
  if (s.stopped()) s.restart();
  return pending;
}

const char* find_escape(boost::asio::execution_context& ctx) noexcept {
  namespace ad = boost::asio::detail;
  namespace ip = boost::asio::ip;
  using boost::asio::has_service;
  // Every reactor-based object creates the reactor: one check in the common case.
  const bool reactor = has_service<ad::reactor>(ctx);
  const bool tcp_resolver = has_service<ad::resolver_service<ip::tcp>>(ctx);
  const bool udp_resolver = has_service<ad::resolver_service<ip::udp>>(ctx);
  if (tcp_resolver) return "boost::asio::ip::tcp::resolver";
  if (udp_resolver) return "boost::asio::ip::udp::resolver";
  if (!reactor) return nullptr;
  // Asio's own timers are not escapes by themselves: Beast's websocket::stream
  // and Asio's ssl::stream hold one, and the world polls Asio's scheduler
  // so that their cancellations complete. A real wait still pending when
  // the world stalls is reported then (world_core::check_escape).
  if (has_service<real_timer_service<std::chrono::steady_clock>>(ctx) &&
      has_service<ad::reactive_socket_service<ip::tcp>>(ctx))
    return "boost::asio::ip::tcp socket and boost::asio::steady_timer (boost::beast::tcp_stream holds both: use "
           "simasio::beast::tcp_stream, with `namespace beast = simasio::beast;`)";
  if (has_service<ad::reactive_socket_service<ip::tcp>>(ctx)) return "boost::asio::ip::tcp socket or acceptor";
  if (has_service<ad::reactive_socket_service<ip::udp>>(ctx)) return "boost::asio::ip::udp::socket";
  if (has_service<ad::reactive_socket_service<ip::icmp>>(ctx)) return "boost::asio::ip::icmp::socket";
  if (has_service<ad::reactive_socket_service<boost::asio::local::stream_protocol>>(ctx))
    return "boost::asio::local::stream_protocol socket";
  if (has_service<ad::reactive_socket_service<boost::asio::local::datagram_protocol>>(ctx))
    return "boost::asio::local::datagram_protocol::socket";
  if (has_service<ad::signal_set_service>(ctx)) return "boost::asio::signal_set";
  if (has_service<ad::reactive_descriptor_service>(ctx)) return "boost::asio::posix::stream_descriptor";
  if (has_service<real_timer_service<std::chrono::steady_clock>>(ctx) ||
      has_service<real_timer_service<std::chrono::system_clock>>(ctx) ||
      has_service<ad::deadline_timer_service<boost::asio::time_traits<boost::posix_time::ptime>>>(ctx))
    return nullptr;  // Asio's own timers: driven, see above
  return "real Asio I/O object";
}

}  // namespace simasio::detail
