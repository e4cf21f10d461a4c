// simasio/detail/asio_specializations.hpp — Asio's socket and timer templates on a simasio executor
//
// Partial specializations of boost::asio's I/O object templates, selected
// by a simulated executor type (simasio::any_io_executor, a type derived
// from it, or a strand of one; see any_io_executor.hpp for why only those).
// Each is simasio's simulated object under Asio's name, so code that
// spells the Asio template out, such as Beast's basic_stream:
//
//   net::basic_stream_socket<Protocol, Executor>           // its socket
//   net::basic_waitable_timer<std::chrono::steady_clock,
//       net::wait_traits<std::chrono::steady_clock>, Executor>  // its timers
//
// gets the simulated socket and timers, and Asio's free functions taking
// `basic_socket<Protocol, Executor>&` (connect, async_connect) accept it.
// Protocols may be Asio's (ip::tcp) or simasio's façades (simasio::ip::tcp).
//
// Included at the end of any_io_executor.hpp; never include it directly.
#ifndef SIMASIO_DETAIL_ASIO_SPECIALIZATIONS_HPP
#define SIMASIO_DETAIL_ASIO_SPECIALIZATIONS_HPP

#include <simasio/any_io_executor.hpp>
#include <simasio/basic_datagram_socket.hpp>
#include <simasio/basic_socket_acceptor.hpp>
#include <simasio/basic_stream_socket.hpp>
#include <simasio/basic_waitable_timer.hpp>
#include <simasio/clock.hpp>
#include <simasio/io_context.hpp>
#include <simasio/ip/tcp.hpp>
#include <simasio/ip/udp.hpp>

#include <boost/asio/basic_datagram_socket.hpp>
#include <boost/asio/basic_socket.hpp>
#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/wait_traits.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace simasio::detail {

// Asio's protocol type behind a protocol: simasio's façades name Asio's.
template <typename Protocol>
struct asio_protocol {
  using type = Protocol;
};
template <>
struct asio_protocol<simasio::ip::tcp> {
  using type = boost::asio::ip::tcp;
};
template <>
struct asio_protocol<simasio::ip::udp> {
  using type = boost::asio::ip::udp;
};
template <typename Protocol>
using asio_protocol_t = typename asio_protocol<Protocol>::type;

// Asio's basic_socket is the base of both its stream and datagram sockets;
// the simulated one is a stream socket for TCP and a datagram socket for UDP.
template <typename Protocol, typename Executor>
using simulated_socket = std::conditional_t<std::is_same_v<asio_protocol_t<Protocol>, boost::asio::ip::udp>,
                                            simasio::basic_datagram_socket<boost::asio::ip::udp, Executor>,
                                            simasio::basic_stream_socket<asio_protocol_t<Protocol>, Executor>>;

// The simasio clock a std::chrono clock stands for (same time since epoch).
template <typename Clock>
struct simulated_clock {
  static_assert(sizeof(Clock) == 0,
                "simasio: a timer on a simulated executor needs std::chrono::steady_clock, "
                "std::chrono::system_clock or a simasio clock; other clocks cannot run on virtual time");
};
template <>
struct simulated_clock<std::chrono::steady_clock> {
  using type = simasio::steady_clock;
};
template <>
struct simulated_clock<std::chrono::system_clock> {
  using type = simasio::system_clock;
};
template <>
struct simulated_clock<simasio::steady_clock> {
  using type = simasio::steady_clock;
};
template <>
struct simulated_clock<simasio::system_clock> {
  using type = simasio::system_clock;
};

// A simulated timer seen through a std::chrono clock's types: time points
// and expiry are the clock's own (the same time since its epoch on the
// host's virtual clock; min() and max() stay min() and max()).
template <typename Clock, typename Executor>
class std_clock_timer : public simasio::basic_waitable_timer<typename simulated_clock<Clock>::type, Executor> {
  using base = simasio::basic_waitable_timer<typename simulated_clock<Clock>::type, Executor>;
  using sim_point = typename base::time_point;

 public:
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using traits_type = boost::asio::wait_traits<Clock>;

  using base::base;
  std_clock_timer(std_clock_timer&&) = default;
  std_clock_timer& operator=(std_clock_timer&&) = default;
  explicit std_clock_timer(base&& other) : base(std::move(other)) {}

  time_point expiry() const { return to_std(base::expiry()); }
  std::size_t expires_at(const time_point& expiry_time) { return base::expires_at(expiry_time); }
  using base::expires_after;
#if !defined(BOOST_ASIO_NO_DEPRECATED)
  time_point expires_at() const { return expiry(); }
#endif

 private:
  static time_point to_std(sim_point p) noexcept {
    if (p == sim_point::max()) return time_point::max();
    if (p == sim_point::min()) return time_point::min();
    return time_point(std::chrono::duration_cast<duration>(
        p.time_since_epoch() + std::chrono::nanoseconds(sim_clock_traits<typename simulated_clock<Clock>::type>::std_offset())));
  }
};

template <typename Clock, typename Executor>
using simulated_timer = std::conditional_t<std::is_same_v<Clock, typename simulated_clock<Clock>::type>,
                                           simasio::basic_waitable_timer<Clock, Executor>,
                                           std_clock_timer<Clock, Executor>>;

}  // namespace simasio::detail

// The specializations below, once per form of simulated executor. A macro
// because C++17 has no constrained partial specializations: there each form
// is a pattern of its own (simasio::any_io_executor, io_context's executor
// types, strands of either); C++20 adds one constrained pattern for the
// rest (types derived from those, such as use_awaitable_t's
// executor_with_default). The enumerated patterns are more specialized, so
// a C++17 and a C++20 translation unit pick the same one for the same type.
// PARAMS: the pattern's own template parameters after Protocol (or Clock
// and WaitTraits), with a leading comma; REQUIRES: its requires-clause or
// nothing; the rest: the executor type.
#define SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(PARAMS, REQUIRES, ...)                                               \
  /** Asio's basic_socket on a simulated executor: simasio's simulated socket (stream for TCP, datagram for UDP). */ \
  template <typename Protocol PARAMS>                                                                             \
  REQUIRES class basic_socket<Protocol, __VA_ARGS__>                                                              \
      : public simasio::detail::simulated_socket<Protocol, __VA_ARGS__> {                                         \
    using base = simasio::detail::simulated_socket<Protocol, __VA_ARGS__>;                                        \
                                                                                                                  \
   public:                                                                                                        \
    template <typename Executor1>                                                                                 \
    struct rebind_executor {                                                                                      \
      using other = basic_socket<Protocol, Executor1>;                                                            \
    };                                                                                                            \
    using base::base;                                                                                             \
    basic_socket(basic_socket&&) noexcept = default;                                                              \
    basic_socket& operator=(basic_socket&&) noexcept = default;                                                   \
    basic_socket(base&& other) noexcept : base(std::move(other)) {}                                               \
    ~basic_socket() = default;                                                                                    \
  };                                                                                                              \
  /** Asio's basic_stream_socket on a simulated executor: simasio's socket. */                                   \
  template <typename Protocol PARAMS>                                                                             \
  REQUIRES class basic_stream_socket<Protocol, __VA_ARGS__> : public basic_socket<Protocol, __VA_ARGS__> {       \
    using base = basic_socket<Protocol, __VA_ARGS__>;                                                             \
                                                                                                                  \
   public:                                                                                                        \
    template <typename Executor1>                                                                                 \
    struct rebind_executor {                                                                                      \
      using other = basic_stream_socket<Protocol, Executor1>;                                                     \
    };                                                                                                            \
    using base::base;                                                                                             \
    basic_stream_socket(basic_stream_socket&&) noexcept = default;                                                \
    basic_stream_socket& operator=(basic_stream_socket&&) noexcept = default;                                     \
    basic_stream_socket(simasio::detail::simulated_socket<Protocol, __VA_ARGS__>&& other) noexcept                \
        : base(std::move(other)) {}                                                                               \
    ~basic_stream_socket() = default;                                                                             \
  };                                                                                                              \
  /** Asio's basic_datagram_socket on a simulated executor: simasio's socket. */                                 \
  template <typename Protocol PARAMS>                                                                             \
  REQUIRES class basic_datagram_socket<Protocol, __VA_ARGS__> : public basic_socket<Protocol, __VA_ARGS__> {     \
    using base = basic_socket<Protocol, __VA_ARGS__>;                                                             \
                                                                                                                  \
   public:                                                                                                        \
    template <typename Executor1>                                                                                 \
    struct rebind_executor {                                                                                      \
      using other = basic_datagram_socket<Protocol, Executor1>;                                                   \
    };                                                                                                            \
    using base::base;                                                                                             \
    basic_datagram_socket(basic_datagram_socket&&) noexcept = default;                                            \
    basic_datagram_socket& operator=(basic_datagram_socket&&) noexcept = default;                                 \
    basic_datagram_socket(simasio::detail::simulated_socket<Protocol, __VA_ARGS__>&& other) noexcept              \
        : base(std::move(other)) {}                                                                               \
    ~basic_datagram_socket() = default;                                                                           \
  };                                                                                                              \
  /** Asio's basic_socket_acceptor on a simulated executor: simasio's acceptor. */                               \
  template <typename Protocol PARAMS>                                                                             \
  REQUIRES class basic_socket_acceptor<Protocol, __VA_ARGS__>                                                     \
      : public simasio::basic_socket_acceptor<simasio::detail::asio_protocol_t<Protocol>, __VA_ARGS__> {          \
    using base = simasio::basic_socket_acceptor<simasio::detail::asio_protocol_t<Protocol>, __VA_ARGS__>;         \
                                                                                                                  \
   public:                                                                                                        \
    template <typename Executor1>                                                                                 \
    struct rebind_executor {                                                                                      \
      using other = basic_socket_acceptor<Protocol, Executor1>;                                                   \
    };                                                                                                            \
    using base::base;                                                                                             \
    basic_socket_acceptor(basic_socket_acceptor&&) noexcept = default;                                            \
    basic_socket_acceptor& operator=(basic_socket_acceptor&&) noexcept = default;                                 \
    basic_socket_acceptor(base&& other) noexcept : base(std::move(other)) {}                                      \
    ~basic_socket_acceptor() = default;                                                                           \
  };                                                                                                              \
  /** Asio's basic_waitable_timer on a simulated executor: simasio's timer on virtual time.                      \
      std::chrono::steady_clock and system_clock keep their own time point types (Beast compares expiry()       \
      with them). */                                                                                              \
  template <typename Clock, typename WaitTraits PARAMS>                                                           \
  REQUIRES class basic_waitable_timer<Clock, WaitTraits, __VA_ARGS__>                                             \
      : public simasio::detail::simulated_timer<Clock, __VA_ARGS__> {                                             \
    static_assert(std::is_same_v<WaitTraits, boost::asio::wait_traits<Clock>>,                                    \
                  "simasio: a timer on a simulated executor waits on virtual time; custom WaitTraits are not "    \
                  "consulted, so only boost::asio::wait_traits<Clock> is accepted");                              \
    using base = simasio::detail::simulated_timer<Clock, __VA_ARGS__>;                                            \
                                                                                                                  \
   public:                                                                                                        \
    template <typename Executor1>                                                                                 \
    struct rebind_executor {                                                                                      \
      using other = basic_waitable_timer<Clock, WaitTraits, Executor1>;                                           \
    };                                                                                                            \
    using base::base;                                                                                             \
    basic_waitable_timer(basic_waitable_timer&&) = default;                                                       \
    basic_waitable_timer& operator=(basic_waitable_timer&&) = default;                                            \
    ~basic_waitable_timer() = default;                                                                            \
  };

#define SIMASIO_DETAIL_NO_PARAMS
#define SIMASIO_DETAIL_NO_REQUIRES
#define SIMASIO_DETAIL_IO_EXECUTOR_PARAMS , typename Allocator, std::uintptr_t Bits
#define SIMASIO_DETAIL_ANY_PARAMS , typename Executor
#define SIMASIO_DETAIL_ANY_REQUIRES requires simasio::detail::simulated_executor<Executor>

namespace boost::asio {

SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(SIMASIO_DETAIL_NO_PARAMS, SIMASIO_DETAIL_NO_REQUIRES, simasio::any_io_executor)
SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(SIMASIO_DETAIL_IO_EXECUTOR_PARAMS, SIMASIO_DETAIL_NO_REQUIRES,
                                    simasio::io_context::basic_executor_type<Allocator, Bits>)
SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(SIMASIO_DETAIL_NO_PARAMS, SIMASIO_DETAIL_NO_REQUIRES,
                                    boost::asio::strand<simasio::any_io_executor>)
SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(SIMASIO_DETAIL_IO_EXECUTOR_PARAMS, SIMASIO_DETAIL_NO_REQUIRES,
                                    boost::asio::strand<simasio::io_context::basic_executor_type<Allocator, Bits>>)
#if defined(__cpp_concepts)
SIMASIO_DETAIL_SIMULATED_IO_OBJECTS(SIMASIO_DETAIL_ANY_PARAMS, SIMASIO_DETAIL_ANY_REQUIRES, Executor)
#endif

}  // namespace boost::asio

#undef SIMASIO_DETAIL_SIMULATED_IO_OBJECTS
#undef SIMASIO_DETAIL_NO_PARAMS
#undef SIMASIO_DETAIL_NO_REQUIRES
#undef SIMASIO_DETAIL_IO_EXECUTOR_PARAMS
#undef SIMASIO_DETAIL_ANY_PARAMS
#undef SIMASIO_DETAIL_ANY_REQUIRES

#endif  // SIMASIO_DETAIL_ASIO_SPECIALIZATIONS_HPP
