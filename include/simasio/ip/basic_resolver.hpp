// simasio/ip/basic_resolver.hpp — name resolution against the world's hosts
#ifndef SIMASIO_IP_BASIC_RESOLVER_HPP
#define SIMASIO_IP_BASIC_RESOLVER_HPP

#include <simasio/detail/socket_service.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/basic_resolver_iterator.hpp>
#include <boost/asio/ip/basic_resolver_query.hpp>
#include <boost/asio/ip/basic_resolver_results.hpp>
#include <boost/asio/ip/resolver_base.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace simasio::ip {

namespace detail {
// The address of host name `host` as seen from `from_host` ("localhost" and
// numeric addresses included), or an error (host_not_found).
boost::system::error_code lookup(simasio::detail::socket_ops& net, std::uint32_t from_host, std::string_view host,
                                 boost::asio::ip::address& out);
// A service name or number as a port (service_not_found when unknown).
boost::system::error_code lookup_service(std::string_view service, std::uint16_t& port);
// Throws the system_error of a failed resolve() from `from_host`: the
// message names what was asked, and for an unknown name the world's hosts.
[[noreturn]] void throw_lookup_failure(const boost::system::error_code& ec, simasio::detail::socket_ops& net,
                                       std::uint32_t from_host, std::string_view host, std::string_view service);
// A resolution whose answer is known at once: it completes through its
// context's queue, never inline.
template <class Results>
class resolve_op_base : public simasio::detail::operation {
 public:
  boost::system::error_code ec_;
  Results results_;
  boost::asio::cancellation_slot slot_;  // never connected: an answer known at once cannot be cancelled

 protected:
  explicit resolve_op_base(func_type f) noexcept : operation(f) {}
  ~resolve_op_base() = default;
};

template <class Results, class Handler, class IoExecutor>
class resolve_op final : public simasio::detail::handler_op<resolve_op_base<Results>, Handler, IoExecutor> {
  using base = simasio::detail::handler_op<resolve_op_base<Results>, Handler, IoExecutor>;

 public:
  template <class H>
  resolve_op(H&& h, const IoExecutor& io_ex, const simasio::detail::context_state& ctx,
             simasio::detail::world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(simasio::detail::operation* op, bool invoke) {
    auto* o = static_cast<resolve_op*>(op);
    base::finish(o, invoke, o->ec_, std::move(o->results_));
  }
};
}  // namespace detail

/// Asio's `basic_resolver` over the world: resolves the names of the
/// world's hosts, "localhost" and numeric addresses, and returns Asio's own
/// `results_type`. Unknown names fail with host_not_found. Resolution is
/// instant in virtual time; the asynchronous form still completes through
/// the executor, never inline.
template <typename InternetProtocol, typename Executor = boost::asio::any_io_executor>
class basic_resolver : public boost::asio::ip::resolver_base {
 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_resolver<InternetProtocol, Executor1>;
  };
  using protocol_type = InternetProtocol;
  using endpoint_type = typename InternetProtocol::endpoint;
  using results_type = boost::asio::ip::basic_resolver_results<InternetProtocol>;
#if !defined(BOOST_ASIO_NO_DEPRECATED)
  /// Deprecated in Asio, still present: a host and service to resolve
  /// (with its protocol and flags, which are ignored as the other forms
  /// ignore them), and the iterator over the results.
  using query = boost::asio::ip::basic_resolver_query<InternetProtocol>;
  using iterator = boost::asio::ip::basic_resolver_iterator<InternetProtocol>;
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)

  explicit basic_resolver(const executor_type& ex) : ex_(ex) { init(); }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_resolver(ExecutionContext& ctx) : ex_(ctx.get_executor()) {
    init();
  }
  basic_resolver(basic_resolver&&) noexcept = default;
  basic_resolver& operator=(basic_resolver&&) noexcept = default;
  /// From a resolver on another executor type (as_default_on, rebinding).
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_resolver(basic_resolver<InternetProtocol, Executor1>&& other) noexcept
      : ex_(other.ex_), service_(other.service_), incarnation_(other.incarnation_) {}

  executor_type get_executor() noexcept { return ex_; }
  /// Resolutions complete at once, so there is never one to cancel.
  void cancel() { service_->net_checked("resolver"); }

  results_type resolve(std::string_view host, std::string_view service) { return resolve(host, service, flags()); }
  results_type resolve(std::string_view host, std::string_view service, boost::system::error_code& ec) {
    return resolve(host, service, flags(), ec);
  }
  results_type resolve(std::string_view host, std::string_view service, flags f) {
    boost::system::error_code ec;
    results_type r = resolve(host, service, f, ec);
    if (ec) detail::throw_lookup_failure(ec, *service_->net(), service_->ctx().host->id, host, service);
    return r;
  }
  results_type resolve(std::string_view host, std::string_view service, flags, boost::system::error_code& ec) {
    boost::asio::ip::address address;
    std::uint16_t port = 0;
    simasio::detail::socket_ops& net = checked_net();  // before anything reads the host
    ec = detail::lookup(net, service_->ctx().host->id, host, address);
    if (!ec) ec = detail::lookup_service(service, port);
    if (ec) return results_type();
    return results_type::create(endpoint_type(address, port), std::string(host), std::string(service));
  }
  results_type resolve(const protocol_type&, std::string_view host, std::string_view service) {
    return resolve(host, service);
  }
  results_type resolve(const protocol_type&, std::string_view host, std::string_view service,
                       boost::system::error_code& ec) {
    return resolve(host, service, ec);
  }
  results_type resolve(const protocol_type&, std::string_view host, std::string_view service, flags f) {
    return resolve(host, service, f);
  }
  results_type resolve(const protocol_type&, std::string_view host, std::string_view service, flags f,
                       boost::system::error_code& ec) {
    return resolve(host, service, f, ec);
  }
#if !defined(BOOST_ASIO_NO_DEPRECATED)
  results_type resolve(const query& q) { return resolve(q.host_name(), q.service_name(), static_cast<flags>(q.hints().ai_flags)); }
  results_type resolve(const query& q, boost::system::error_code& ec) {
    return resolve(q.host_name(), q.service_name(), static_cast<flags>(q.hints().ai_flags), ec);
  }
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)
  results_type resolve(const endpoint_type& e) {
    boost::system::error_code ec;
    results_type r = resolve(e, ec);
    simasio::detail::throw_socket_error(ec, "resolve");
    return r;
  }
  /// Reverse resolution: the host owning the address, or the numeric form.
  results_type resolve(const endpoint_type& e, boost::system::error_code& ec) {
    ec = {};
    std::string name = e.address().to_string();
    simasio::detail::socket_ops& net = checked_net();
    const std::uint32_t h = net.host_of(e.address(), service_->ctx().host->id);
    if (h != simasio::no_host && !e.address().is_loopback()) name = net.host_name(h);
    return results_type::create(e, name, std::to_string(e.port()));
  }

  /// Starts an asynchronous resolution of @p host and @p service.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. The answer is computed by the initiation, as resolve()
  /// computes it (a world host's name, "localhost" or an empty name as
  /// 127.0.0.1, a numeric address; a service name from a small table or a
  /// port number), and its completion is queued at once: resolution takes
  /// no virtual time.
  ///
  /// @param host A host name of the world, "localhost", or a numeric address.
  /// @param service A port number or a well-known service name ("http", ...).
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  /// One entry on success; host_not_found for a name no host has,
  /// service_not_found for an unknown service, with empty results.
  ///
  /// @par Per-Operation Cancellation
  /// Not supported: the answer is known at initiation and already queued,
  /// so nothing is installed in the handler's cancellation slot (and
  /// cancel() changes nothing).
  ///
  /// @par Determinism
  /// Draws nothing. Its completion is scheduled like any handler's
  /// (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the resolver is used from a thread
  /// other than its world's, after its world is gone, or after its host crashed.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(std::string_view host, std::string_view service,
                     ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_resolve(host, service, flags(), std::forward<ResolveToken>(token));
  }
  /// Starts an asynchronous resolution with flags: async_resolve(host,
  /// service, token); @p f has no effect (passive, numeric_host, ... are
  /// not modelled).
  ///
  /// @param host A host name of the world, "localhost", or a numeric address.
  /// @param service A port number or a well-known service name.
  /// @param f Asio's resolver flags; ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// Not supported, as async_resolve(host, service, token).
  ///
  /// @par Determinism
  /// Draws nothing.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(std::string_view host, std::string_view service, flags f,
                     ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ResolveToken, void(boost::system::error_code, results_type)>(
        [this](auto&& handler, std::string host, std::string service, flags f) {
          boost::system::error_code ec;
          results_type r = resolve(host, service, f, ec);
          start(std::forward<decltype(handler)>(handler), ec, std::move(r));
        },
        token, std::string(host), std::string(service), f);
  }
  /// Starts an asynchronous resolution for a protocol: async_resolve(host,
  /// service, token). The protocol (the first, unnamed parameter) is
  /// ignored: the answer has the host's address as the world knows it,
  /// whatever its family.
  ///
  /// @param host A host name of the world, "localhost", or a numeric address.
  /// @param service A port number or a well-known service name.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// Not supported, as async_resolve(host, service, token).
  ///
  /// @par Determinism
  /// Draws nothing.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(const protocol_type&, std::string_view host, std::string_view service,
                     ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_resolve(host, service, std::forward<ResolveToken>(token));
  }
  /// Starts an asynchronous resolution for a protocol, with flags:
  /// async_resolve(host, service, f, token); the protocol is ignored.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// Not supported, as async_resolve(host, service, token).
  ///
  /// @par Determinism
  /// Draws nothing.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(const protocol_type&, std::string_view host, std::string_view service, flags f,
                     ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_resolve(host, service, f, std::forward<ResolveToken>(token));
  }
#if !defined(BOOST_ASIO_NO_DEPRECATED)
  /// Deprecated in Asio, still present: async_resolve(q.host_name(),
  /// q.service_name(), token).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// Not supported, as async_resolve(host, service, token).
  ///
  /// @par Determinism
  /// Draws nothing.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(const query& q, ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_resolve(q.host_name(), q.service_name(), static_cast<flags>(q.hints().ai_flags), std::forward<ResolveToken>(token));
  }
#endif  // !defined(BOOST_ASIO_NO_DEPRECATED)
  /// Starts an asynchronous reverse resolution of @p e: the name of the
  /// host owning its address (a loopback address keeps its numeric form, as
  /// does an address no host has), with @p e's port as the service.
  ///
  /// @param e The endpoint to resolve.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, results_type) @endcode
  /// Always one entry and success.
  ///
  /// @par Per-Operation Cancellation
  /// Not supported, as async_resolve(host, service, token).
  ///
  /// @par Determinism
  /// Draws nothing. Its completion is scheduled like any handler's
  /// (scheduler sub-stream).
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, results_type)) ResolveToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_resolve(const endpoint_type& e,
                     ResolveToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ResolveToken, void(boost::system::error_code, results_type)>(
        [this](auto&& handler, const endpoint_type& e) {
          boost::system::error_code ec;
          results_type r = resolve(e, ec);
          start(std::forward<decltype(handler)>(handler), ec, std::move(r));
        },
        token, e);
  }

 private:
  template <typename, typename>
  friend class basic_resolver;

  void init() {
    io_context& ctx = simasio::detail::sim_context_of_executor(ex_, "resolver");
    service_ = &simasio::detail::socket_service::of(ctx);
    incarnation_ = service_->ctx().host->incarnation;
  }
  // The network, after the checks every use of an I/O object makes.
  simasio::detail::socket_ops& checked_net() {
    simasio::detail::checked_core(service_->ctx(), incarnation_, "resolver");
    return *service_->net();
  }
  // Queues the completion of a resolution already made, through start_op
  // like every I/O object's operation.
  template <typename Handler>
  void start(Handler&& handler, boost::system::error_code ec, results_type r) {
    using op_type = detail::resolve_op<results_type, std::decay_t<Handler>, Executor>;
    simasio::detail::context_state& ctx = service_->ctx();
    op_type* op = simasio::detail::start_op<op_type>(
        ctx, incarnation_, "resolver", std::forward<Handler>(handler), ex_,
        [&](op_type& o) {
          o.ec_ = ec;
          o.results_ = std::move(r);
        },
        simasio::detail::no_cancellation{});
    if (op != nullptr) ctx.core->post_ready(ctx, op);
  }

  executor_type ex_;
  simasio::detail::socket_service* service_ = nullptr;
  std::uint32_t incarnation_ = 0;  // of its host when created (host_state::incarnation)
};

}  // namespace simasio::ip

#endif  // SIMASIO_IP_BASIC_RESOLVER_HPP
