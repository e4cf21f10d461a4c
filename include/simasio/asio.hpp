// simasio/asio.hpp — the drop-in namespace: Asio's names, simasio's I/O objects
//
// `namespace net = simasio::asio;` in place of `namespace net = boost::asio;`
// runs the same code in the simulation. Every public name of boost::asio
// is re-exported here by a using-declaration (never a using-directive, so
// `using namespace net;` stays unambiguous), nested namespaces by namespace
// aliases (ip and chrono are real namespaces: see there), except the I/O
// objects simasio replaces, which come from namespace simasio. Names that
// Asio declares only under a configuration macro are guarded by the same
// macro.
//
// cmake/check_asio_names.cmake keeps this list complete: it extracts the
// names from the installed Asio headers and fails on any that is neither
// here nor in its commented exclusion list (detail, read_size_helper, ssl;
// ssl is <simasio/ssl.hpp>'s, included at the end when SIMASIO_HAS_SSL).

#ifndef SIMASIO_ASIO_HPP
#define SIMASIO_ASIO_HPP

#include <boost/asio.hpp>
// Declare names re-exported below that <boost/asio.hpp> does not include:
#include <boost/asio/experimental/cancellation_condition.hpp>  // namespace experimental
// Not <boost/asio/spawn.hpp>: it costs a translation unit about as much as
// the rest of Asio's headers together. spawn, basic_yield_context and
// yield_context are net's whether it comes before this header or after
// (below: a declaration of Boost's class template, and a spawn that finds
// Boost's when it is called).

#include <simasio/any_io_executor.hpp>
#include <simasio/basic_datagram_socket.hpp>
#include <simasio/basic_deadline_timer.hpp>
#include <simasio/basic_random_access_file.hpp>
#include <simasio/basic_stream_file.hpp>
#include <simasio/basic_socket.hpp>
#include <simasio/basic_socket_acceptor.hpp>
#include <simasio/basic_stream_socket.hpp>
#include <simasio/basic_signal_set.hpp>
#include <simasio/basic_waitable_timer.hpp>
#include <simasio/connect.hpp>
#include <simasio/io_context.hpp>
#include <simasio/ip/basic_resolver.hpp>
#include <simasio/ip/tcp.hpp>
#include <simasio/ip/udp.hpp>
#include <simasio/unsimulated.hpp>
#if defined(BOOST_ASIO_HAS_POSIX_STREAM_DESCRIPTOR)
#include <simasio/posix/basic_stream_descriptor.hpp>
#endif
#include <simasio/detail/refused.hpp>

#if !defined(BOOST_ASIO_SPAWN_HPP)
#define SIMASIO_DETAIL_LATE_SPAWN 1
namespace boost::asio {
template <typename Executor>
class basic_yield_context;  // <boost/asio/spawn.hpp> defines it
}  // namespace boost::asio

namespace simasio::detail::late_spawn {
struct second {};
struct first : second {};
// Boost's spawn, by argument-dependent lookup when net::spawn is called:
// nothing named spawn is declared in this namespace or around it, so the
// call finds Boost's overloads only, and only once Boost's header is in.
template <class... Args>
auto call(first, Args&&... args) -> decltype(spawn(std::forward<Args>(args)...)) {
  return spawn(std::forward<Args>(args)...);
}
template <class... Args>
void call(second, Args&&...) {
  static_assert(::simasio::detail::refused_pack_v<Args...>,
                "simasio: net::spawn needs <simasio/spawn.hpp> (or <boost/asio/spawn.hpp>, before or after "
                "<simasio/asio.hpp>): Boost's spawn is not part of <simasio/asio.hpp> (it would double the "
                "header's compile time). If you did include it, none of Boost's spawn overloads matches these "
                "arguments, or none of them is Boost's (pass a completion token such as net::detached).");
}
}  // namespace simasio::detail::late_spawn
#endif  // !defined(BOOST_ASIO_SPAWN_HPP)

namespace simasio::asio {

// ---------------------------------------------------------------------------
// Replaced by simasio: contexts and timers run on the simulated clock.

using simasio::io_context;
#if !defined(BOOST_ASIO_NO_DEPRECATED)
using io_service = simasio::io_context;
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)
using simasio::basic_waitable_timer;
using simasio::steady_timer;
using simasio::system_timer;
using simasio::high_resolution_timer;

// ---------------------------------------------------------------------------
// Replaced by simasio: sockets run over the simulated network.

using simasio::basic_socket;
using simasio::basic_stream_socket;
using simasio::basic_datagram_socket;
using simasio::basic_socket_acceptor;
// Asio's connect/async_connect take Asio's own sockets; simasio's take
// simasio's. Both overload sets are here, so either kind of socket works.
using boost::asio::connect;
using boost::asio::async_connect;
using simasio::connect;
using simasio::async_connect;

// Signals come from host::raise, not from the real process.
using simasio::basic_signal_set;
using simasio::signal_set;

// ---------------------------------------------------------------------------
// Execution contexts and services.

using boost::asio::execution_context;
using boost::asio::invalid_service_owner;
using boost::asio::service_already_exists;
using boost::asio::use_service;
using boost::asio::make_service;
using boost::asio::add_service;
using boost::asio::has_service;
using boost::asio::system_context;
using boost::asio::thread_pool;
using boost::asio::static_thread_pool;
using boost::asio::multiple_exceptions;

// ---------------------------------------------------------------------------
// Executors.

// simasio's any_io_executor is Asio's under a simasio-owned name: Asio's
// socket and timer templates on it are the simulated ones, so Beast's
// streams rebound to net::any_io_executor (executor_with_default<...>)
// stay simulated. It converts to and from boost::asio::any_io_executor.
using simasio::any_io_executor;
using boost::asio::any_completion_executor;
using boost::asio::basic_system_executor;
using boost::asio::system_executor;
using boost::asio::strand;
using boost::asio::make_strand;
using boost::asio::executor_work_guard;
using boost::asio::make_work_guard;
using boost::asio::is_executor;
using boost::asio::executor_arg_t;
#if defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::executor_arg;
#endif  // defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::uses_executor;
#if !defined(BOOST_ASIO_NO_TS_EXECUTORS)
using boost::asio::executor;
using boost::asio::bad_executor;
#endif  // !defined(BOOST_ASIO_NO_TS_EXECUTORS)

// Properties: query, require, prefer.
using boost::asio::query;
using boost::asio::query_t;
using boost::asio::can_query;
using boost::asio::is_nothrow_query;
using boost::asio::query_result;
using boost::asio::require;
using boost::asio::require_t;
using boost::asio::can_require;
using boost::asio::is_nothrow_require;
using boost::asio::require_result;
using boost::asio::require_concept;
using boost::asio::require_concept_t;
using boost::asio::can_require_concept;
using boost::asio::is_nothrow_require_concept;
using boost::asio::require_concept_result;
using boost::asio::prefer;
using boost::asio::prefer_t;
using boost::asio::can_prefer;
using boost::asio::is_nothrow_prefer;
using boost::asio::prefer_result;
using boost::asio::is_applicable_property;
#if defined(BOOST_ASIO_HAS_VARIABLE_TEMPLATES)
using boost::asio::can_query_v;
using boost::asio::is_nothrow_query_v;
using boost::asio::can_require_v;
using boost::asio::is_nothrow_require_v;
using boost::asio::can_require_concept_v;
using boost::asio::is_nothrow_require_concept_v;
using boost::asio::can_prefer_v;
using boost::asio::is_nothrow_prefer_v;
using boost::asio::is_applicable_property_v;
#endif  // defined(BOOST_ASIO_HAS_VARIABLE_TEMPLATES)

// ---------------------------------------------------------------------------
// Submitting work.

using boost::asio::post;
using boost::asio::dispatch;
using boost::asio::defer;

// ---------------------------------------------------------------------------
// Associated characteristics and binders.

using boost::asio::associator;
using boost::asio::associated_allocator;
using boost::asio::get_associated_allocator;
using boost::asio::associated_executor;
using boost::asio::get_associated_executor;
using boost::asio::associated_cancellation_slot;
using boost::asio::get_associated_cancellation_slot;
#if defined(BOOST_ASIO_HAS_ALIAS_TEMPLATES)
using boost::asio::associated_allocator_t;
using boost::asio::associated_executor_t;
using boost::asio::associated_cancellation_slot_t;
#endif  // defined(BOOST_ASIO_HAS_ALIAS_TEMPLATES)
using boost::asio::bind_allocator;
using boost::asio::allocator_binder;
using boost::asio::bind_executor;
using boost::asio::executor_binder;
using boost::asio::bind_cancellation_slot;
using boost::asio::cancellation_slot_binder;
using boost::asio::recycling_allocator;

// ---------------------------------------------------------------------------
// Cancellation.

using boost::asio::cancellation_type;
using boost::asio::cancellation_type_t;
using boost::asio::cancellation_signal;
using boost::asio::cancellation_slot;
using boost::asio::cancellation_state;
using boost::asio::cancellation_filter;
using boost::asio::disable_cancellation;
using boost::asio::enable_terminal_cancellation;
using boost::asio::enable_partial_cancellation;
using boost::asio::enable_total_cancellation;

// ---------------------------------------------------------------------------
// Asynchronous operations and completion tokens.

using boost::asio::async_result;
using boost::asio::async_completion;
using boost::asio::async_initiate;
using boost::asio::async_compose;
using boost::asio::default_completion_token;
using boost::asio::completion_signature_of;
using boost::asio::is_async_operation;
#if defined(BOOST_ASIO_HAS_ALIAS_TEMPLATES)
using boost::asio::default_completion_token_t;
#endif  // defined(BOOST_ASIO_HAS_ALIAS_TEMPLATES)
#if defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES) \
  && defined(BOOST_ASIO_HAS_ALIAS_TEMPLATES)
using boost::asio::completion_signature_of_t;
#endif  // defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES) && ...
#if defined(BOOST_ASIO_HAS_CONCEPTS) \
  && defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES) \
  && defined(BOOST_ASIO_HAS_DECLTYPE)
using boost::asio::completion_signature;
using boost::asio::completion_handler_for;
using boost::asio::completion_token_for;
#endif  // defined(BOOST_ASIO_HAS_CONCEPTS) && ...
#if defined(BOOST_ASIO_HAS_CONCEPTS) \
  && defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES)
using boost::asio::async_operation;
#endif  // defined(BOOST_ASIO_HAS_CONCEPTS) && ...
#if defined(BOOST_ASIO_HAS_STD_TUPLE) \
  && defined(BOOST_ASIO_HAS_MOVE) \
  && defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES)
using boost::asio::any_completion_handler;
using boost::asio::any_completion_handler_allocator;
#endif  // defined(BOOST_ASIO_HAS_STD_TUPLE) && ...

// Completion token adapters.
#if defined(BOOST_ASIO_HAS_STD_TUPLE) \
  && defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES)
using boost::asio::append;
using boost::asio::append_t;
using boost::asio::prepend;
using boost::asio::prepend_t;
using boost::asio::as_tuple;
using boost::asio::as_tuple_t;
using boost::asio::consign;
using boost::asio::consign_t;
#endif  // defined(BOOST_ASIO_HAS_STD_TUPLE) && ...
using boost::asio::redirect_error;
using boost::asio::redirect_error_t;

// Completion tokens.
#if defined(BOOST_ASIO_HAS_STD_TUPLE) \
  && defined(BOOST_ASIO_HAS_DECLTYPE) \
  && defined(BOOST_ASIO_HAS_VARIADIC_TEMPLATES)
using boost::asio::deferred_t;
#if defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::deferred;
#endif  // defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::deferred_async_operation;
using boost::asio::deferred_conditional;
using boost::asio::deferred_function;
using boost::asio::deferred_init_tag;
using boost::asio::deferred_noop;
using boost::asio::deferred_sequence;
using boost::asio::deferred_values;
using boost::asio::is_deferred;
#endif  // defined(BOOST_ASIO_HAS_STD_TUPLE) && ...
using boost::asio::detached_t;
#if defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::detached;
#endif  // defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
#if defined(BOOST_ASIO_HAS_STD_FUTURE_CLASS)
using boost::asio::use_future_t;
#if defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::use_future;
#endif  // defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
#endif  // defined(BOOST_ASIO_HAS_STD_FUTURE_CLASS)

// Coroutines.
#if defined(BOOST_ASIO_HAS_CO_AWAIT)
using boost::asio::awaitable;
using boost::asio::co_spawn;
using boost::asio::use_awaitable_t;
#if defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
using boost::asio::use_awaitable;
#endif  // defined(BOOST_ASIO_HAS_CONSTEXPR) || defined(BOOST_ASIO_MSVC)
#endif  // defined(BOOST_ASIO_HAS_CO_AWAIT)
#if defined(BOOST_ASIO_SPAWN_HPP)
using boost::asio::spawn;
using boost::asio::basic_yield_context;
using boost::asio::yield_context;
#else
// <boost/asio/spawn.hpp> may still come (Boost's own examples include it
// after <boost/asio.hpp>, whose place this header takes): the names work
// either way. basic_yield_context is Boost's class template, declared here
// and defined by Boost's header; net::spawn is Boost's spawn, found when the
// call is made (detail/late_spawn below).
using boost::asio::basic_yield_context;
using yield_context = boost::asio::basic_yield_context<boost::asio::any_io_executor>;
/// Boost's spawn (<boost/asio/spawn.hpp> or <simasio/spawn.hpp>, before or
/// after this header), found by argument-dependent lookup at the call: its
/// completion token, strand, yield context or a bound function's
/// parameters are Boost's. Without the header, or for a call with none of
/// Boost's types among its arguments (a lambda and no completion token),
/// a static_assert names <simasio/spawn.hpp>.
template <class... Args>
decltype(auto) spawn(Args&&... args) {
  return ::simasio::detail::late_spawn::call(::simasio::detail::late_spawn::first{}, std::forward<Args>(args)...);
}
#endif  // defined(BOOST_ASIO_SPAWN_HPP)
using boost::asio::coroutine;

// ---------------------------------------------------------------------------
// Buffers.

using boost::asio::const_buffer;
using boost::asio::mutable_buffer;
using boost::asio::null_buffers;
using boost::asio::buffer;
using boost::asio::buffer_size;
using boost::asio::buffer_copy;
using boost::asio::buffer_sequence_begin;
using boost::asio::buffer_sequence_end;
using boost::asio::is_const_buffer_sequence;
using boost::asio::is_mutable_buffer_sequence;
using boost::asio::is_contiguous_iterator;
#if !defined(BOOST_ASIO_NO_DEPRECATED)
using boost::asio::const_buffers_1;
using boost::asio::mutable_buffers_1;
using boost::asio::buffer_cast;
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)
using boost::asio::buffers_iterator;
using boost::asio::buffers_begin;
using boost::asio::buffers_end;

// Dynamic buffers.
using boost::asio::dynamic_buffer;
using boost::asio::dynamic_string_buffer;
using boost::asio::dynamic_vector_buffer;
using boost::asio::is_dynamic_buffer;
using boost::asio::is_dynamic_buffer_v2;
#if !defined(BOOST_ASIO_NO_DYNAMIC_BUFFER_V1)
using boost::asio::is_dynamic_buffer_v1;
#endif  // !defined(BOOST_ASIO_NO_DYNAMIC_BUFFER_V1)
#if !defined(BOOST_ASIO_NO_IOSTREAM)
using boost::asio::basic_streambuf;
using boost::asio::basic_streambuf_ref;
using boost::asio::streambuf;
#endif  // !defined(BOOST_ASIO_NO_IOSTREAM)

// Registered buffers.
using boost::asio::registered_buffer_id;
using boost::asio::const_registered_buffer;
using boost::asio::mutable_registered_buffer;
using boost::asio::buffer_registration;
#if defined(BOOST_ASIO_HAS_MOVE)
using boost::asio::register_buffers;
#endif  // defined(BOOST_ASIO_HAS_MOVE)

// ---------------------------------------------------------------------------
// Composed reads and writes.

using boost::asio::read;
using boost::asio::async_read;
using boost::asio::read_at;
using boost::asio::async_read_at;
using boost::asio::read_until;
using boost::asio::async_read_until;
using boost::asio::is_match_condition;
using boost::asio::write;
using boost::asio::async_write;
using boost::asio::write_at;
using boost::asio::async_write_at;
using boost::asio::transfer_all;
using boost::asio::transfer_at_least;
using boost::asio::transfer_exactly;

// Buffered stream adapters.
using boost::asio::buffered_read_stream;
using boost::asio::buffered_write_stream;
using boost::asio::buffered_stream;
using boost::asio::is_read_buffered;
using boost::asio::is_write_buffered;

// ---------------------------------------------------------------------------
// Other I/O objects and their support, Asio's own.

using boost::asio::basic_io_object;
using boost::asio::socket_base;
using boost::asio::basic_raw_socket;
using boost::asio::basic_seq_packet_socket;
using boost::asio::is_endpoint_sequence;
#if !defined(BOOST_ASIO_NO_IOSTREAM)
using boost::asio::basic_socket_streambuf;
using boost::asio::basic_socket_iostream;
#endif  // !defined(BOOST_ASIO_NO_IOSTREAM)
using boost::asio::wait_traits;
#if defined(BOOST_ASIO_HAS_BOOST_DATE_TIME)
// Replaced by simasio: a ptime deadline on the host's virtual clock.
using simasio::basic_deadline_timer;
using simasio::deadline_timer;
using boost::asio::time_traits;
#endif  // defined(BOOST_ASIO_HAS_BOOST_DATE_TIME)
#if defined(BOOST_ASIO_HAS_SERIAL_PORT)
// Refused by simasio: constructing one throws escape_error (unsimulated.hpp).
using simasio::basic_serial_port;
using simasio::serial_port;
using boost::asio::serial_port_base;
#endif  // defined(BOOST_ASIO_HAS_SERIAL_PORT)
#if defined(BOOST_ASIO_HAS_PIPE)
using boost::asio::basic_readable_pipe;
using boost::asio::basic_writable_pipe;
using boost::asio::readable_pipe;
using boost::asio::writable_pipe;
using boost::asio::connect_pipe;
#endif  // defined(BOOST_ASIO_HAS_PIPE)
// Files on the host's simulated disk (simasio/disk.hpp), whether or not
// this Boost was built with io_uring file support.
using simasio::file_base;
using simasio::basic_file;
using simasio::basic_random_access_file;
using simasio::basic_stream_file;
using simasio::random_access_file;
using simasio::stream_file;

// ---------------------------------------------------------------------------
// Handler hooks (deprecated customisation points, kept for old handlers).

using boost::asio::asio_handler_allocate;
using boost::asio::asio_handler_deallocate;
using boost::asio::asio_handler_invoke;
using boost::asio::asio_handler_is_continuation;
using boost::asio::asio_handler_allocate_is_deprecated;
using boost::asio::asio_handler_deallocate_is_deprecated;
using boost::asio::asio_handler_invoke_is_deprecated;
#if defined(BOOST_ASIO_NO_DEPRECATED)
using boost::asio::asio_handler_allocate_is_no_longer_used;
using boost::asio::asio_handler_deallocate_is_no_longer_used;
using boost::asio::asio_handler_invoke_is_no_longer_used;
#endif  // defined(BOOST_ASIO_NO_DEPRECATED)

// ---------------------------------------------------------------------------
// Nested namespaces.

namespace error = boost::asio::error;
namespace stream_errc = boost::asio::stream_errc;
namespace socket_errc = boost::asio::socket_errc;
namespace resolver_errc = boost::asio::resolver_errc;
namespace placeholders = boost::asio::placeholders;
namespace execution = boost::asio::execution;
namespace traits = boost::asio::traits;
namespace this_coro = boost::asio::this_coro;
namespace experimental = boost::asio::experimental;
namespace generic = boost::asio::generic;
#if defined(BOOST_ASIO_HAS_LOCAL_SOCKETS)
namespace local = boost::asio::local;
#endif  // defined(BOOST_ASIO_HAS_LOCAL_SOCKETS)
#if defined(BOOST_ASIO_HAS_POSIX_STREAM_DESCRIPTOR)
// A stream descriptor is one of a simulated process's standard streams
// (posix/basic_stream_descriptor.hpp); a plain descriptor is refused:
// constructing one throws escape_error (unsimulated.hpp). descriptor_base's
// options are Asio's.
namespace posix {
using boost::asio::posix::descriptor_base;
using simasio::posix::basic_descriptor;
using simasio::posix::descriptor;
using simasio::posix::basic_stream_descriptor;
using simasio::posix::stream_descriptor;
}  // namespace posix
#endif  // defined(BOOST_ASIO_HAS_POSIX_STREAM_DESCRIPTOR)
#if defined(BOOST_ASIO_HAS_WINDOWS_OBJECT_HANDLE) \
  || defined(BOOST_ASIO_HAS_WINDOWS_OVERLAPPED_PTR) \
  || defined(BOOST_ASIO_HAS_WINDOWS_RANDOM_ACCESS_HANDLE) \
  || defined(BOOST_ASIO_HAS_WINDOWS_STREAM_HANDLE)
namespace windows = boost::asio::windows;
#endif  // defined(BOOST_ASIO_HAS_WINDOWS_OBJECT_HANDLE) || ...

// Asio declares boost::asio::chrono in detail/chrono.hpp (so the check
// does not ask for it) and its tutorials write chrono::seconds. Its clocks
// read real time, so only its durations and casts are re-exported: code
// that asks net::chrono for a clock fails to compile instead of silently
// mixing wall-clock time into a simulated run.
#if defined(BOOST_ASIO_HAS_STD_CHRONO) || defined(BOOST_ASIO_HAS_BOOST_CHRONO)
namespace chrono {
using boost::asio::chrono::duration;
using boost::asio::chrono::time_point;
using boost::asio::chrono::duration_cast;
using boost::asio::chrono::time_point_cast;
using boost::asio::chrono::nanoseconds;
using boost::asio::chrono::microseconds;
using boost::asio::chrono::milliseconds;
using boost::asio::chrono::seconds;
using boost::asio::chrono::minutes;
using boost::asio::chrono::hours;
}  // namespace chrono
#endif  // defined(BOOST_ASIO_HAS_STD_CHRONO) || ...

namespace ip {

// ---------------------------------------------------------------------------
// Replaced by simasio: the façades carry Asio's protocol and endpoint
// types with simasio's socket, acceptor and resolver.

using simasio::ip::tcp;
using simasio::ip::udp;
using simasio::ip::basic_resolver;

// ---------------------------------------------------------------------------
// Addresses, networks, endpoints and resolver results: Asio's own.

using boost::asio::ip::address;
using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;
using boost::asio::ip::make_address;
using boost::asio::ip::make_address_v4;
using boost::asio::ip::make_address_v6;
using boost::asio::ip::bad_address_cast;
using boost::asio::ip::v4_mapped_t;
using boost::asio::ip::v4_mapped;
using boost::asio::ip::scope_id_type;
using boost::asio::ip::basic_address_iterator;
using boost::asio::ip::basic_address_range;
using boost::asio::ip::address_v4_iterator;
using boost::asio::ip::address_v4_range;
using boost::asio::ip::address_v6_iterator;
using boost::asio::ip::address_v6_range;
using boost::asio::ip::network_v4;
using boost::asio::ip::network_v6;
using boost::asio::ip::make_network_v4;
using boost::asio::ip::make_network_v6;
using boost::asio::ip::basic_endpoint;
using boost::asio::ip::port_type;
using boost::asio::ip::host_name;
using boost::asio::ip::icmp;
using boost::asio::ip::v6_only;
using boost::asio::ip::resolver_base;
using boost::asio::ip::resolver_query_base;
using boost::asio::ip::basic_resolver_entry;
using boost::asio::ip::basic_resolver_iterator;
using boost::asio::ip::basic_resolver_query;
using boost::asio::ip::basic_resolver_results;
namespace multicast = boost::asio::ip::multicast;
namespace unicast = boost::asio::ip::unicast;

}  // namespace ip

}  // namespace simasio::asio

// net::ssl is Asio's ssl: a program that includes <boost/asio/ssl.hpp> (or
// Beast's <boost/beast/ssl.hpp>) as TLS code does uses it through
// `namespace net = simasio::asio;`, and simasio (built with OpenSSL) makes
// OpenSSL's randomness and clock the world's. Declared here without
// OpenSSL's headers, so other programs never parse them.
namespace boost::asio::ssl {}
namespace simasio::asio {
namespace ssl = boost::asio::ssl;
}  // namespace simasio::asio

// With the simasio::ssl target (SIMASIO_HAS_SSL) this header brings the TLS
// headers in itself.
#if defined(SIMASIO_HAS_SSL)
#include <simasio/ssl.hpp>
#endif

#endif  // SIMASIO_ASIO_HPP
