// simasio/basic_socket.hpp — what every simulated socket has: open, bind, connect, options
#ifndef SIMASIO_BASIC_SOCKET_HPP
#define SIMASIO_BASIC_SOCKET_HPP

#include <simasio/detail/config.hpp>

#include <simasio/detail/refused.hpp>
#include <simasio/detail/socket_service.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/system/error_code.hpp>

#include <cstdint>
#include <simasio/detail/current.hpp>
#include <type_traits>
#include <utility>

namespace simasio {

template <typename Protocol, typename Executor>
class basic_socket_acceptor;

/// Asio's `basic_socket` over the simulated network: the members common to
/// stream and datagram sockets, with Asio's names and signatures. Options
/// are Asio's own types (`socket_base::reuse_address`, `ip::tcp::no_delay`,
/// `socket_base::linger`, buffer sizes, ...).
///
/// Synchronous calls made from the test body drive the world until they
/// complete; made inside a handler they fail with simasio::error::would_block.
///
/// A socket belongs to the thread that created it (the one that runs its
/// world): used from any other thread, as a thread-per-connection server
/// does, it throws simasio::usage_error before touching the world.
///
/// @par Determinism
/// Connecting draws the SYN's latency and loss from the network stream.
template <typename Protocol, typename Executor = boost::asio::any_io_executor>
class basic_socket : public boost::asio::socket_base {
 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_socket<Protocol, Executor1>;
  };
  using native_handle_type = std::uint64_t;  ///< the simulated socket's id (there is no descriptor)
  using protocol_type = Protocol;
  using endpoint_type = typename Protocol::endpoint;
  using lowest_layer_type = basic_socket;

  explicit basic_socket(const executor_type& ex) : ex_(ex) { init(); }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_socket(ExecutionContext& ctx) : ex_(ctx.get_executor()) {
    init();
  }
  basic_socket(const executor_type& ex, const protocol_type& protocol) : ex_(ex) {
    init();
    open(protocol);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_socket(ExecutionContext& ctx, const protocol_type& protocol) : ex_(ctx.get_executor()) {
    init();
    open(protocol);
  }
  basic_socket(const executor_type& ex, const endpoint_type& endpoint) : ex_(ex) {
    init();
    open(endpoint.protocol());
    bind(endpoint);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_socket(ExecutionContext& ctx, const endpoint_type& endpoint) : ex_(ctx.get_executor()) {
    init();
    open(endpoint.protocol());
    bind(endpoint);
  }
  // A moved socket stays with the thread that created it, wherever it is
  // moved (into a std::thread's arguments, say).
  /// Not simulated: adopting a descriptor of the real OS (refused at
  /// compile time; a simulated socket has no descriptor to adopt).
  template <typename Handle, typename = std::enable_if_t<std::is_integral_v<Handle>>>
  basic_socket(const executor_type&, const protocol_type&, const Handle&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("a socket constructed from"));
  }
  template <typename ExecutionContext, typename Handle,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&> &&
                                        std::is_integral_v<Handle>>>
  basic_socket(ExecutionContext&, const protocol_type&, const Handle&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("a socket constructed from"));
  }
  basic_socket(basic_socket&& other) noexcept
      : ex_(other.ex_), service_(other.service_), state_(std::exchange(other.state_, nullptr)),
        thread_(other.thread_) {}
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_socket(basic_socket<Protocol, Executor1>&& other) noexcept
      : ex_(other.ex_), service_(other.service_), state_(std::exchange(other.state_, nullptr)),
        thread_(other.thread_) {}
  basic_socket& operator=(basic_socket&& other) noexcept {
    if (this != &other) {
      release_state();
      ex_ = other.ex_;
      service_ = other.service_;
      state_ = std::exchange(other.state_, nullptr);
      thread_ = other.thread_;
    }
    return *this;
  }
  basic_socket(const basic_socket&) = delete;
  basic_socket& operator=(const basic_socket&) = delete;

  executor_type get_executor() noexcept { return ex_; }
  lowest_layer_type& lowest_layer() noexcept { return *this; }
  const lowest_layer_type& lowest_layer() const noexcept { return *this; }

  void open(const protocol_type& protocol = protocol_type()) {
    boost::system::error_code ec;
    open(protocol, ec);
    detail::throw_socket_error(ec, "open");
  }
  void open(const protocol_type& protocol, boost::system::error_code& ec) {
    check_thread();
    ec = net().open(state(), protocol.family() == boost::asio::ip::tcp::v6().family());
  }
  bool is_open() const noexcept { return state_ != nullptr && state_->open; }
  void close() {
    boost::system::error_code ec;
    close(ec);
    detail::throw_socket_error(ec, "close");
  }
  void close(boost::system::error_code& ec) {
    check_thread();
    ec = {};
    if (is_open()) ec = net().close(state());
  }
  void cancel() {
    boost::system::error_code ec;
    cancel(ec);
    detail::throw_socket_error(ec, "cancel");
  }
  void cancel(boost::system::error_code& ec) {
    check_thread();
    ec = is_open() ? boost::system::error_code() : boost::asio::error::bad_descriptor;
    if (!ec) net().cancel(state());
  }
  bool at_mark() const { return false; }
  bool at_mark(boost::system::error_code& ec) const {
    ec = {};
    return false;
  }
  std::size_t available() const {
    boost::system::error_code ec;
    const std::size_t n = available(ec);
    detail::throw_socket_error(ec, "available");
    return n;
  }
  std::size_t available(boost::system::error_code& ec) const {
    check_thread();
    if (!is_open()) {
      ec = boost::asio::error::bad_descriptor;
      return 0;
    }
    if (state_->listening) {  // Linux's FIONREAD on a listening socket
      ec = boost::asio::error::invalid_argument;
      return 0;
    }
    ec = {};
    return net().available(*state_);
  }
  void bind(const endpoint_type& endpoint) {
    boost::system::error_code ec;
    bind(endpoint, ec);
    if (ec == boost::asio::error::address_in_use)
      detail::throw_address_in_use(ec, state(), endpoint.address().to_string(), endpoint.port());
    detail::throw_socket_error(ec, "bind");
  }
  void bind(const endpoint_type& endpoint, boost::system::error_code& ec) {
    check_thread();
    ec = net().bind(state(), detail::to_net(endpoint));
  }

  /// Connects, driving the world until the handshake ends (test body only).
  void connect(const endpoint_type& peer) {
    boost::system::error_code ec;
    connect(peer, ec);
    detail::throw_socket_error(ec, "connect");
  }
  void connect(const endpoint_type& peer, boost::system::error_code& ec) {
    check_thread();
    // A TCP handshake can never finish inside a handler; a UDP connect, or
    // one that only collects a finished handshake, does not wait.
    const bool waits = peer.protocol().type() == SOCK_STREAM &&
                       !(state_ != nullptr && (state_->connected || state_->connecting ||
                                               state_->connect_result != detail::socket_state::uncollected::none));
    if (waits && service_->ctx().core != nullptr && service_->ctx().core->running() &&
        !service_->ctx().core->in_process()) {
      ec = error::would_block;
      return;
    }
    if (!is_open()) {
      open(peer.protocol(), ec);
      if (ec) return;
    }
    ec = detail::run_sync(*service_, [&](auto done) {
           detail::start_socket_op<detail::completes_with::ec_bytes>(
               *service_, state(), std::move(done), ex_, detail::sock_op::kind::connect, [&](detail::sock_op& op) {
                 op.direct_ = true;
                 op.target_ = detail::to_net(peer);
               });
         }).first;
  }

  /// Starts an asynchronous connect to @p peer.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. A closed socket is opened first (for @p peer's protocol) and
  /// an unbound one bound to an ephemeral port. TCP sends a SYN and
  /// retransmits it after 1, 2, 4, ... s; UDP just fixes the peer and
  /// completes at once.
  ///
  /// @param peer The remote endpoint.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  /// connection_refused after a round trip when nobody listens (a crashed
  /// process included); timed_out when no answer comes (partition,
  /// power-cut host, an address no host has) within the connect timeout
  /// (127 s, Linux's); already_connected; already_started while another
  /// connect of this socket is in progress; invalid_argument from a socket
  /// bound to loopback to another host; operation_aborted on cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: the operation completes with
  /// operation_aborted. The handshake itself goes on, as a kernel's does
  /// (the SYN timer keeps running, and a later SYN-ACK still connects the
  /// socket): close the socket to abandon the connection.
  ///
  /// @par Determinism
  /// TCP, network sub-stream: each SYN sent (the first and every
  /// retransmission) draws loss, then latency, on the link to the peer's
  /// host; the peer's SYN-ACK or RST draws the same on the way back. No
  /// draw on one host, none for a loss of 0 or 1 or min_latency ==
  /// max_latency, none for a SYN to an address no host has. UDP draws
  /// nothing. Its completion is scheduled like any handler's (scheduler
  /// sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) ConnectToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_connect(const endpoint_type& peer,
                     ConnectToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    check_thread();
    return boost::asio::async_initiate<ConnectToken, void(boost::system::error_code)>(
        [this](auto&& handler, const endpoint_type& peer) {
          boost::system::error_code ec;
          if (!is_open()) open(peer.protocol(), ec);
          detail::start_socket_op<detail::completes_with::ec>(
              *service_, state(), std::forward<decltype(handler)>(handler), ex_, detail::sock_op::kind::connect,
              [&](detail::sock_op& op) { op.target_ = detail::to_net(peer); });
        },
        token, peer);
  }

  template <typename SettableSocketOption>
  void set_option(const SettableSocketOption& option) {
    boost::system::error_code ec;
    set_option(option, ec);
    detail::throw_socket_error(ec, "set_option");
  }
  template <typename SettableSocketOption>
  void set_option(const SettableSocketOption& option, boost::system::error_code& ec) {
    check_thread();
    net();  // a usage_error once the world is gone, like every other call
    const protocol_type p = protocol();
    ec = service_->set_option(state(), option.level(p), option.name(p), option.data(p), option.size(p));
  }
  template <typename GettableSocketOption>
  void get_option(GettableSocketOption& option) const {
    boost::system::error_code ec;
    get_option(option, ec);
    detail::throw_socket_error(ec, "get_option");
  }
  template <typename GettableSocketOption>
  void get_option(GettableSocketOption& option, boost::system::error_code& ec) const {
    check_thread();
    const protocol_type p = protocol();
    std::size_t size = option.size(p);
    ec = service_->get_option(*state_, option.level(p), option.name(p), option.data(p), size);
    if (!ec) option.resize(p, size);
  }
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command) {
    boost::system::error_code ec;
    io_control(command, ec);
    detail::throw_socket_error(ec, "io_control");
  }
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command, boost::system::error_code& ec) {
    if constexpr (std::is_same_v<IoControlCommand, boost::asio::socket_base::bytes_readable>) {
      command = boost::asio::socket_base::bytes_readable(available(ec));
    } else {
      ec = boost::asio::error::operation_not_supported;
    }
  }

  bool non_blocking() const noexcept { return state_ != nullptr && state_->non_blocking; }
  void non_blocking(bool mode) {
    boost::system::error_code ec;
    non_blocking(mode, ec);
    detail::throw_socket_error(ec, "non_blocking");
  }
  void non_blocking(bool mode, boost::system::error_code& ec) {
    check_thread();
    ec = {};
    state().non_blocking = mode;
  }
  bool native_non_blocking() const noexcept { return non_blocking(); }
  void native_non_blocking(bool mode) { non_blocking(mode); }
  void native_non_blocking(bool mode, boost::system::error_code& ec) { non_blocking(mode, ec); }

  endpoint_type local_endpoint() const {
    boost::system::error_code ec;
    endpoint_type ep = local_endpoint(ec);
    detail::throw_socket_error(ec, "local_endpoint");
    return ep;
  }
  endpoint_type local_endpoint(boost::system::error_code& ec) const {
    check_thread();
    if (!is_open()) {
      ec = boost::asio::error::bad_descriptor;
      return endpoint_type();
    }
    ec = {};
    return detail::from_net<endpoint_type>(detail::as_seen(state_->v6, state_->local));
  }
  endpoint_type remote_endpoint() const {
    boost::system::error_code ec;
    endpoint_type ep = remote_endpoint(ec);
    detail::throw_socket_error(ec, "remote_endpoint");
    return ep;
  }
  endpoint_type remote_endpoint(boost::system::error_code& ec) const {
    check_thread();
    if (!is_open() || !state_->connected) {
      ec = is_open() ? boost::asio::error::not_connected : boost::asio::error::bad_descriptor;
      return endpoint_type();
    }
    ec = {};
    return detail::from_net<endpoint_type>(detail::as_seen(state_->v6, state_->remote));
  }

  void shutdown(shutdown_type what) {
    boost::system::error_code ec;
    shutdown(what, ec);
    detail::throw_socket_error(ec, "shutdown");
  }
  void shutdown(shutdown_type what, boost::system::error_code& ec) {
    check_thread();
    ec = net().shutdown(state(), what != shutdown_receive, what != shutdown_send);
  }

  /// Waits until the socket is ready (test body only).
  void wait(wait_type w) {
    boost::system::error_code ec;
    wait(w, ec);
    detail::throw_socket_error(ec, "wait");
  }
  void wait(wait_type w, boost::system::error_code& ec) {
    check_thread();
    ec = detail::run_sync(*service_, [&](auto done) {
           detail::start_socket_op<detail::completes_with::ec_bytes>(
               *service_, state(), std::move(done), ex_, wait_kind(w),
               [](detail::sock_op& op) { op.direct_ = true; });
         }).first;
  }
  /// Starts an asynchronous wait for the socket to be ready to read, to
  /// write, or to have an error pending, without transferring data.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. wait_read completes when data, a FIN, a datagram or (on a
  /// listening socket) a connection is there; wait_write when a write would
  /// take bytes (UDP: at once) or after shutdown_send; wait_error when the
  /// connection failed.
  ///
  /// @param w wait_read, wait_write or wait_error.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  /// Success when ready, as poll reports it: a connection that failed is
  /// ready to read and write (the read or write then reports the failure);
  /// wait_error with success when a failure is pending; bad_descriptor on a closed socket; operation_aborted on
  /// cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a wait still pending completes with
  /// operation_aborted.
  ///
  /// @par Determinism
  /// Draws nothing. Its completion is scheduled like any handler's
  /// (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) WaitToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(wait_type w, WaitToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    check_thread();
    return boost::asio::async_initiate<WaitToken, void(boost::system::error_code)>(
        [this](auto&& handler, wait_type w) {
          detail::start_socket_op<detail::completes_with::ec>(*service_, state(),
                                                              std::forward<decltype(handler)>(handler), ex_,
                                                              wait_kind(w), [](detail::sock_op&) {});
        },
        token, w);
  }

  native_handle_type native_handle() noexcept { return state_ != nullptr ? state_->id : 0; }
  /// Not simulated: assign() adopts, and release() gives up, a descriptor of
  /// the real OS (refused at compile time).
  template <typename Handle>
  void assign(const protocol_type&, const Handle&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("assign() of"));
  }
  template <typename Handle>
  void assign(const protocol_type&, const Handle&, boost::system::error_code&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("assign() of"));
  }
  template <typename Refused = Protocol>
  native_handle_type release() {
    static_assert(detail::refused_v<Refused>, SIMASIO_REFUSED_NATIVE_HANDLE("release() of"));
    return 0;
  }
  template <typename Refused = Protocol>
  native_handle_type release(boost::system::error_code&) {
    static_assert(detail::refused_v<Refused>, SIMASIO_REFUSED_NATIVE_HANDLE("release() of"));
    return 0;
  }

 protected:
  ~basic_socket() { release_state(); }

  template <typename, typename>
  friend class basic_socket;
  template <typename, typename>
  friend class basic_socket_acceptor;

  detail::socket_ops& net() const {
    check_thread();
    return service_->net_checked(state_ != nullptr ? detail::socket_kind(*state_) : "socket");
  }
  detail::socket_state& state() {
    check_thread();
    if (state_ == nullptr) state_ = &service_->create(transport_of());
    return *state_;
  }
  protocol_type protocol() const {
    if constexpr (std::is_same_v<protocol_type, boost::asio::ip::tcp> ||
                  std::is_same_v<protocol_type, boost::asio::ip::udp>)
      return state_ != nullptr && state_->v6 ? protocol_type::v6() : protocol_type::v4();
    else
      return protocol_type();
  }
  static constexpr detail::transport transport_of() noexcept {
    return std::is_same_v<protocol_type, boost::asio::ip::udp> ? detail::transport::udp : detail::transport::tcp;
  }
  static detail::sock_op::kind wait_kind(wait_type w) noexcept {
    switch (w) {
      case wait_read: return detail::sock_op::kind::wait_read;
      case wait_write: return detail::sock_op::kind::wait_write;
      default: return detail::sock_op::kind::wait_error;
    }
  }
  // Throws simasio::usage_error unless called on the thread that created
  // the socket; reads nothing of the world, which another thread may be
  // running (or may have destroyed).
  void check_thread() const {
    if (detail::os_thread() != thread_) SIMASIO_UNLIKELY
      detail::throw_foreign_thread(transport_of() == detail::transport::udp ? "UDP socket" : "TCP socket");
  }

  executor_type ex_;
  detail::socket_service* service_ = nullptr;
  detail::socket_state* state_ = nullptr;
  const void* thread_ = detail::os_thread();  // the OS thread that created it

 private:
  void init() {
    io_context& ctx = detail::sim_context_of_executor(ex_, "socket");
    service_ = &detail::socket_service::of(ctx);
    state_ = &service_->create(transport_of());
  }
  void release_state() noexcept {
    if (state_ == nullptr) return;
    // Destroyed on a foreign thread: the world is another thread's, so the
    // state is handed to its service, which frees it when the context goes.
    if (detail::os_thread() != thread_) SIMASIO_UNLIKELY
      service_->adopt_foreign(*state_);
    else
      service_->destroy(*state_);
    state_ = nullptr;
  }
};

}  // namespace simasio

#endif  // SIMASIO_BASIC_SOCKET_HPP
