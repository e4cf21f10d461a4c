// simasio/any_io_executor.hpp — the type-erased executor that marks Asio's own templates as simulated
//
// simasio::any_io_executor is boost::asio::any_io_executor under a name
// simasio owns. Asio's class templates instantiated with it are simasio's
// to define: boost::asio::basic_socket, basic_stream_socket,
// basic_datagram_socket and basic_waitable_timer with this executor (or
// one derived from it, or a strand of it) are simasio's simulated I/O
// objects (see detail/asio_specializations.hpp, included at the end). So
// Beast's basic_stream<Protocol, simasio::any_io_executor, RatePolicy>,
// which names boost::asio's socket and timer templates directly, holds a
// simulated socket and simulated timers without a line of Beast changed.
//
// Why this key and no other: a specialization of an Asio template must be
// visible wherever that template is instantiated with the same arguments.
// Every translation unit that can name simasio::any_io_executor includes
// this header, so keying on it can never give two definitions of one
// type; keying on boost::asio::any_io_executor or std::chrono::steady_clock
// would change Asio's real timers and sockets for the whole program.
#ifndef SIMASIO_ANY_IO_EXECUTOR_HPP
#define SIMASIO_ANY_IO_EXECUTOR_HPP

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/strand.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace simasio {

/// boost::asio::any_io_executor under a simasio-owned name: converts to and
/// from it, holds any executor it holds, and keys Asio's socket and timer
/// templates to simasio's simulated ones.
class any_io_executor : public boost::asio::any_io_executor {
  using base = boost::asio::any_io_executor;

 public:
  any_io_executor() noexcept = default;
  any_io_executor(std::nullptr_t) noexcept : base(nullptr) {}
  any_io_executor(const any_io_executor&) noexcept = default;
  any_io_executor(any_io_executor&&) noexcept = default;
  any_io_executor& operator=(const any_io_executor&) noexcept = default;
  any_io_executor& operator=(any_io_executor&&) noexcept = default;
  ~any_io_executor() = default;

  /// From Asio's any_io_executor (or any of its other any_executor forms).
  any_io_executor(const base& e) noexcept : base(e) {}
  any_io_executor(base&& e) noexcept : base(std::move(e)) {}
  /// Wraps any executor Asio's any_io_executor accepts.
  template <typename Executor,
            typename = std::enable_if_t<!std::is_base_of_v<base, std::decay_t<Executor>> &&
                                        std::is_constructible_v<base, Executor>>>
  any_io_executor(Executor e) : base(std::move(e)) {}

  // Keep the simasio type through require/prefer (Asio's return its base).
  template <typename Property,
            typename = decltype(std::declval<const base&>().require(std::declval<const Property&>()))>
  any_io_executor require(const Property& p) const {
    return any_io_executor(static_cast<const base&>(*this).require(p));
  }
  template <typename Property,
            typename = decltype(std::declval<const base&>().prefer(std::declval<const Property&>()))>
  any_io_executor prefer(const Property& p) const {
    return any_io_executor(static_cast<const base&>(*this).prefer(p));
  }
};

namespace detail {

/// True for executor types that select simasio's definitions of Asio's I/O
/// object templates: simasio::any_io_executor, simasio::io_context's
/// executor types, types derived from those (such as
/// use_awaitable_t<>::executor_with_default<simasio::any_io_executor>), and
/// strands of those.
struct executor_bits;  // a base of io_context::basic_executor_type (simasio/io_context.hpp)

template <typename Executor>
struct is_simulated_executor
    : std::bool_constant<std::is_base_of_v<simasio::any_io_executor, Executor> ||
                         std::is_base_of_v<executor_bits, Executor>> {};
template <typename Executor>
struct is_simulated_executor<boost::asio::strand<Executor>> : is_simulated_executor<Executor> {};

#if defined(__cpp_concepts)
template <typename Executor>
concept simulated_executor = is_simulated_executor<Executor>::value;
#endif

}  // namespace detail
}  // namespace simasio

#include <simasio/detail/asio_specializations.hpp>

#endif  // SIMASIO_ANY_IO_EXECUTOR_HPP
