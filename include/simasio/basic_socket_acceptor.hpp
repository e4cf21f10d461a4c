// simasio/basic_socket_acceptor.hpp — a simulated listening TCP socket
#ifndef SIMASIO_BASIC_SOCKET_ACCEPTOR_HPP
#define SIMASIO_BASIC_SOCKET_ACCEPTOR_HPP

#include <simasio/basic_socket.hpp>
#include <simasio/basic_stream_socket.hpp>

namespace simasio {

/// Asio's `basic_socket_acceptor` over the simulated network: open, bind,
/// listen (with a backlog: SYNs beyond it are dropped and retried by the
/// client), accept and async_accept in Asio's forms (into a socket, and
/// move-accept returning a new socket).
template <typename Protocol, typename Executor = boost::asio::any_io_executor>
class basic_socket_acceptor : public boost::asio::socket_base {
  using socket_type = basic_socket<Protocol, Executor>;

 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_socket_acceptor<Protocol, Executor1>;
  };
  using native_handle_type = std::uint64_t;
  using protocol_type = Protocol;
  using endpoint_type = typename Protocol::endpoint;

  explicit basic_socket_acceptor(const executor_type& ex) : sock_(ex) {}
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_socket_acceptor(ExecutionContext& ctx) : sock_(ctx) {}
  basic_socket_acceptor(const executor_type& ex, const protocol_type& protocol) : sock_(ex, protocol) {}
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_socket_acceptor(ExecutionContext& ctx, const protocol_type& protocol) : sock_(ctx, protocol) {}
  /// Opens, sets reuse_address (if asked), binds and listens, like Asio's.
  basic_socket_acceptor(const executor_type& ex, const endpoint_type& endpoint, bool reuse_addr = true)
      : sock_(ex) {
    setup(endpoint, reuse_addr);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_socket_acceptor(ExecutionContext& ctx, const endpoint_type& endpoint, bool reuse_addr = true)
      : sock_(ctx) {
    setup(endpoint, reuse_addr);
  }
  /// Not simulated: adopting a descriptor of the real OS (refused at compile time).
  template <typename Handle, typename = std::enable_if_t<std::is_integral_v<Handle>>>
  basic_socket_acceptor(const executor_type&, const protocol_type&, const Handle&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("an acceptor constructed from"));
  }
  template <typename ExecutionContext, typename Handle,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&> &&
                                        std::is_integral_v<Handle>>>
  basic_socket_acceptor(ExecutionContext&, const protocol_type&, const Handle&) {
    static_assert(detail::refused_v<Handle>, SIMASIO_REFUSED_NATIVE_HANDLE("an acceptor constructed from"));
  }
  basic_socket_acceptor(basic_socket_acceptor&&) noexcept = default;
  basic_socket_acceptor& operator=(basic_socket_acceptor&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_socket_acceptor(basic_socket_acceptor<Protocol, Executor1>&& other) noexcept : sock_(std::move(other.sock_)) {}
  ~basic_socket_acceptor() = default;

  executor_type get_executor() noexcept { return sock_.get_executor(); }

  void open(const protocol_type& protocol = protocol_type()) { sock_.open(protocol); }
  void open(const protocol_type& protocol, boost::system::error_code& ec) { sock_.open(protocol, ec); }
  bool is_open() const noexcept { return sock_.is_open(); }
  void bind(const endpoint_type& endpoint) { sock_.bind(endpoint); }
  void bind(const endpoint_type& endpoint, boost::system::error_code& ec) { sock_.bind(endpoint, ec); }
  void listen(int backlog = socket_base::max_listen_connections) {
    boost::system::error_code ec;
    listen(backlog, ec);
    detail::throw_socket_error(ec, "listen");
  }
  void listen(int backlog, boost::system::error_code& ec) { ec = sock_.net().listen(sock_.state(), backlog); }
  void close() { sock_.close(); }
  void close(boost::system::error_code& ec) { sock_.close(ec); }
  void cancel() { sock_.cancel(); }
  void cancel(boost::system::error_code& ec) { sock_.cancel(ec); }
  template <typename Option>
  void set_option(const Option& option) {
    sock_.set_option(option);
  }
  template <typename Option>
  void set_option(const Option& option, boost::system::error_code& ec) {
    sock_.set_option(option, ec);
  }
  template <typename Option>
  void get_option(Option& option) const {
    sock_.get_option(option);
  }
  template <typename Option>
  void get_option(Option& option, boost::system::error_code& ec) const {
    sock_.get_option(option, ec);
  }
  bool non_blocking() const noexcept { return sock_.non_blocking(); }
  void non_blocking(bool mode) { sock_.non_blocking(mode); }
  void non_blocking(bool mode, boost::system::error_code& ec) { sock_.non_blocking(mode, ec); }
  endpoint_type local_endpoint() const { return sock_.local_endpoint(); }
  endpoint_type local_endpoint(boost::system::error_code& ec) const { return sock_.local_endpoint(ec); }
  native_handle_type native_handle() noexcept { return sock_.native_handle(); }
  /// Not simulated (refused at compile time): as basic_socket's.
  template <typename Handle>
  void assign(const protocol_type& p, const Handle& h) {
    sock_.assign(p, h);
  }
  template <typename Handle>
  void assign(const protocol_type& p, const Handle& h, boost::system::error_code& ec) {
    sock_.assign(p, h, ec);
  }
  template <typename Refused = Protocol>
  native_handle_type release() {
    return sock_.template release<Refused>();
  }
  template <typename Refused = Protocol>
  native_handle_type release(boost::system::error_code& ec) {
    return sock_.template release<Refused>(ec);
  }
  bool native_non_blocking() const noexcept { return sock_.native_non_blocking(); }
  void native_non_blocking(bool mode) { sock_.native_non_blocking(mode); }
  void native_non_blocking(bool mode, boost::system::error_code& ec) { sock_.native_non_blocking(mode, ec); }
  /// As basic_socket's: bytes_readable on a listening socket is
  /// invalid_argument, as Linux's FIONREAD there; other commands are
  /// operation_not_supported.
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command) {
    sock_.io_control(command);
  }
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command, boost::system::error_code& ec) {
    sock_.io_control(command, ec);
  }
  void wait(wait_type w) { sock_.wait(w); }
  void wait(wait_type w, boost::system::error_code& ec) { sock_.wait(w, ec); }
  /// Starts an asynchronous wait on the listening socket: basic_socket::async_wait();
  /// wait_read completes when a connection is ready to be accepted.
  ///
  /// @param w wait_read, wait_write or wait_error.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a wait still pending completes with
  /// operation_aborted.
  ///
  /// @par Determinism
  /// Draws nothing. Its completion is scheduled like any handler's
  /// (scheduler sub-stream).
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) WaitToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(wait_type w, WaitToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return sock_.async_wait(w, std::forward<WaitToken>(token));
  }

  // ---- accept into a socket --------------------------------------------------
  template <typename Protocol1, typename Executor1>
  void accept(basic_socket<Protocol1, Executor1>& peer) {
    boost::system::error_code ec;
    accept(peer, ec);
    detail::throw_socket_error(ec, "accept");
  }
  template <typename Protocol1, typename Executor1>
  void accept(basic_socket<Protocol1, Executor1>& peer, boost::system::error_code& ec) {
    accept_sync(peer, nullptr, ec);
  }
  template <typename Protocol1, typename Executor1>
  void accept(basic_socket<Protocol1, Executor1>& peer, endpoint_type& peer_endpoint) {
    boost::system::error_code ec;
    accept_sync(peer, &peer_endpoint, ec);
    detail::throw_socket_error(ec, "accept");
  }
  template <typename Protocol1, typename Executor1>
  void accept(basic_socket<Protocol1, Executor1>& peer, endpoint_type& peer_endpoint, boost::system::error_code& ec) {
    accept_sync(peer, &peer_endpoint, ec);
  }

  /// Starts an asynchronous accept of the oldest queued connection into @p peer.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. The network completes TCP handshakes on its own when SYNs
  /// arrive (up to the backlog) and queues the connections; this takes the
  /// oldest, at once or when one arrives. A connection reset meanwhile
  /// shows on the first read, as on Linux.
  ///
  /// @param peer A closed socket that receives the connection. The caller
  /// keeps it valid until the handler runs.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  /// already_open if @p peer is open; invalid_argument if the acceptor is
  /// not listening; bad_descriptor if it is closed; operation_aborted on
  /// cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: an accept still waiting completes with
  /// operation_aborted; a connection arriving later stays queued for the
  /// next accept.
  ///
  /// @par Determinism
  /// Draws nothing: the handshake was drawn when the client's SYN arrived
  /// (the SYN-ACK's loss and latency, network sub-stream; see
  /// basic_socket::async_connect). Its completion is scheduled like any
  /// handler's (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the acceptor or @p peer is used from a
  /// thread other than its world's, after its world is gone, or after its
  /// host crashed.
  template <typename Protocol1, typename Executor1,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) AcceptToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_accept(basic_socket<Protocol1, Executor1>& peer,
                    AcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_accept_into(peer, nullptr, std::forward<AcceptToken>(token));
  }
  /// Starts an asynchronous accept into @p peer that also reports the
  /// remote endpoint: the first async_accept() otherwise.
  ///
  /// @param peer A closed socket that receives the connection; kept valid until the handler runs.
  /// @param peer_endpoint Set to the client's endpoint on success; kept valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_accept(peer, token).
  ///
  /// @par Determinism
  /// As async_accept(peer, token): draws nothing.
  template <typename Protocol1, typename Executor1,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code)) AcceptToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_accept(basic_socket<Protocol1, Executor1>& peer, endpoint_type& peer_endpoint,
                    AcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_accept_into(peer, &peer_endpoint, std::forward<AcceptToken>(token));
  }

  // ---- move-accept: a new socket on this acceptor's executor (or another) ----
 private:
  template <typename Executor1>
  using socket_on = basic_stream_socket<Protocol, Executor1>;
  template <typename Executor1>
  using if_executor = std::enable_if_t<boost::asio::execution::is_executor<Executor1>::value ||
                                       boost::asio::is_executor<Executor1>::value>;
  template <typename ExecutionContext>
  using if_context = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>;

 public:

  socket_on<Executor> accept() { return accept_new<socket_on<Executor>>(sock_.get_executor(), nullptr, nullptr); }
  socket_on<Executor> accept(boost::system::error_code& ec) {
    return accept_new<socket_on<Executor>>(sock_.get_executor(), nullptr, &ec);
  }
  socket_on<Executor> accept(endpoint_type& peer_endpoint) {
    return accept_new<socket_on<Executor>>(sock_.get_executor(), &peer_endpoint, nullptr);
  }
  socket_on<Executor> accept(endpoint_type& peer_endpoint, boost::system::error_code& ec) {
    return accept_new<socket_on<Executor>>(sock_.get_executor(), &peer_endpoint, &ec);
  }
  template <typename Executor1, typename = if_executor<Executor1>>
  socket_on<Executor1> accept(const Executor1& ex) {
    return accept_new<socket_on<Executor1>>(ex, nullptr, nullptr);
  }
  template <typename Executor1, typename = if_executor<Executor1>>
  socket_on<Executor1> accept(const Executor1& ex, boost::system::error_code& ec) {
    return accept_new<socket_on<Executor1>>(ex, nullptr, &ec);
  }
  template <typename Executor1, typename = if_executor<Executor1>>
  socket_on<Executor1> accept(const Executor1& ex, endpoint_type& peer_endpoint) {
    return accept_new<socket_on<Executor1>>(ex, &peer_endpoint, nullptr);
  }
  template <typename Executor1, typename = if_executor<Executor1>>
  socket_on<Executor1> accept(const Executor1& ex, endpoint_type& peer_endpoint, boost::system::error_code& ec) {
    return accept_new<socket_on<Executor1>>(ex, &peer_endpoint, &ec);
  }
  template <typename ExecutionContext, typename = if_context<ExecutionContext>>
  auto accept(ExecutionContext& ctx) {
    return accept_new<socket_on<typename ExecutionContext::executor_type>>(ctx, nullptr, nullptr);
  }
  template <typename ExecutionContext, typename = if_context<ExecutionContext>>
  auto accept(ExecutionContext& ctx, boost::system::error_code& ec) {
    return accept_new<socket_on<typename ExecutionContext::executor_type>>(ctx, nullptr, &ec);
  }
  template <typename ExecutionContext, typename = if_context<ExecutionContext>>
  auto accept(ExecutionContext& ctx, endpoint_type& peer_endpoint) {
    return accept_new<socket_on<typename ExecutionContext::executor_type>>(ctx, &peer_endpoint, nullptr);
  }
  template <typename ExecutionContext, typename = if_context<ExecutionContext>>
  auto accept(ExecutionContext& ctx, endpoint_type& peer_endpoint, boost::system::error_code& ec) {
    return accept_new<socket_on<typename ExecutionContext::executor_type>>(ctx, &peer_endpoint, &ec);
  }

  /// Starts an asynchronous accept that yields a new socket on this
  /// acceptor's executor (move-accept).
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. Otherwise as async_accept(peer, token).
  ///
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, basic_stream_socket<Protocol, Executor>) @endcode
  /// The connected socket; a closed one with an error (invalid_argument if
  /// not listening, bad_descriptor if closed, operation_aborted on cancel()
  /// or close()).
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: an accept still waiting completes with
  /// operation_aborted and a closed socket; a connection arriving later
  /// stays queued for the next accept.
  ///
  /// @par Determinism
  /// As async_accept(peer, token): draws nothing.
  ///
  /// @throws simasio::usage_error if the acceptor is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, socket_on<Executor>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_accept(MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<Executor>>(sock_.get_executor(), nullptr,
                                                                      std::forward<MoveAcceptToken>(token));
  }
  /// Starts an asynchronous move-accept whose new socket runs on @p ex:
  /// async_accept(token) otherwise.
  ///
  /// @param ex The executor of the accepted socket (a simasio context's).
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, basic_stream_socket<Protocol, Executor1>) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_accept(token).
  ///
  /// @par Determinism
  /// As async_accept(peer, token): draws nothing.
  template <typename Executor1,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, socket_on<Executor1>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>,
            typename = if_executor<Executor1>>
  auto async_accept(const Executor1& ex,
                    MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<Executor1>>(ex, nullptr,
                                                                       std::forward<MoveAcceptToken>(token));
  }
  /// Starts an asynchronous move-accept whose new socket runs on @p ctx:
  /// async_accept(token) otherwise.
  ///
  /// @param ctx The execution context (a simasio::io_context) of the accepted socket.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, basic_stream_socket<Protocol, typename ExecutionContext::executor_type>) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_accept(token).
  ///
  /// @par Determinism
  /// As async_accept(peer, token): draws nothing.
  template <typename ExecutionContext,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code,
                                                 socket_on<typename ExecutionContext::executor_type>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>,
            typename = if_context<ExecutionContext>>
  auto async_accept(ExecutionContext& ctx,
                    MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<typename ExecutionContext::executor_type>>(
        ctx.get_executor(), nullptr, std::forward<MoveAcceptToken>(token));
  }

  /// The three move-accepts above that also report the peer's endpoint in
  /// @p peer_endpoint (kept valid until the handler runs): on this
  /// acceptor's executor, on @p ex, or on @p ctx's.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, basic_stream_socket<Protocol, ...>) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_accept(token).
  ///
  /// @par Determinism
  /// As async_accept(peer, token): draws nothing.
  template <BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, socket_on<Executor>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_accept(endpoint_type& peer_endpoint,
                    MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<Executor>>(sock_.get_executor(), &peer_endpoint,
                                                                      std::forward<MoveAcceptToken>(token));
  }
  template <typename Executor1,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, socket_on<Executor1>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>,
            typename = if_executor<Executor1>>
  auto async_accept(const Executor1& ex, endpoint_type& peer_endpoint,
                    MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<Executor1>>(ex, &peer_endpoint,
                                                                       std::forward<MoveAcceptToken>(token));
  }
  template <typename ExecutionContext,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code,
                                                 socket_on<typename ExecutionContext::executor_type>))
                MoveAcceptToken = boost::asio::default_completion_token_t<executor_type>,
            typename = if_context<ExecutionContext>>
  auto async_accept(ExecutionContext& ctx, endpoint_type& peer_endpoint,
                    MoveAcceptToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_move_accept<socket_on<typename ExecutionContext::executor_type>>(
        ctx.get_executor(), &peer_endpoint, std::forward<MoveAcceptToken>(token));
  }

 private:
  template <typename, typename>
  friend class basic_socket_acceptor;

  void setup(const endpoint_type& endpoint, bool reuse_addr) {
    open(endpoint.protocol());
    if (reuse_addr) set_option(socket_base::reuse_address(true));
    bind(endpoint);
    listen();
  }

  // A socket of a crashed process must not take a connection either.
  template <typename Peer>
  static void check_peer_alive(Peer& peer) {
    const detail::socket_state& s = peer.state();
    if (s.ctx->core != nullptr) s.net->check_alive(s);
  }

  template <typename Peer>
  static void prepare_accept(detail::sock_op& op, Peer& peer, endpoint_type* peer_endpoint) {
    op.accept_into_ = &peer.state();
    op.sender_ = peer_endpoint;
    op.write_sender_ = [](void* target, const detail::net_endpoint& from) {
      *static_cast<endpoint_type*>(target) = detail::from_net<endpoint_type>(from);
    };
  }

  // The sync move-accepts: a new socket made from @p on (an executor or an
  // execution context), accepted into; the error goes to @p ec, or is
  // thrown when @p ec is null.
  template <typename Peer, typename On>
  Peer accept_new(On&& on, endpoint_type* peer_endpoint, boost::system::error_code* ec) {
    Peer peer(std::forward<On>(on));
    boost::system::error_code local;
    accept_sync(peer, peer_endpoint, ec != nullptr ? *ec : local);
    if (ec == nullptr) detail::throw_socket_error(local, "accept");
    return peer;
  }
  template <typename Peer>
  void accept_sync(Peer& peer, endpoint_type* peer_endpoint, boost::system::error_code& ec) {
    sock_.check_thread();
    if (peer.is_open()) {
      ec = boost::asio::error::already_open;
      return;
    }
    check_peer_alive(peer);
    ec = detail::run_sync(*sock_.service_, [&](auto done) {
           detail::start_socket_op<detail::completes_with::ec_bytes>(
               *sock_.service_, sock_.state(), std::move(done), sock_.ex_, detail::sock_op::kind::accept,
               [&](detail::sock_op& op) {
                 op.direct_ = true;
                 op.non_blocking_ = sock_.non_blocking();
                 prepare_accept(op, peer, peer_endpoint);
               });
         }, sock_.non_blocking()).first;
  }

  template <typename Peer, typename Token>
  auto async_accept_into(Peer& peer, endpoint_type* peer_endpoint, Token&& token) {
    sock_.check_thread();
    return boost::asio::async_initiate<Token, void(boost::system::error_code)>(
        [this](auto&& handler, Peer* peer, endpoint_type* peer_endpoint) {
          const bool already_open = peer->is_open();
          check_peer_alive(*peer);
          detail::start_socket_op<detail::completes_with::ec>(
              *sock_.service_, sock_.state(), std::forward<decltype(handler)>(handler), sock_.ex_,
              detail::sock_op::kind::accept,
              [&](detail::sock_op& op) {
                if (!already_open) prepare_accept(op, *peer, peer_endpoint);  // else: already_open
              });
        },
        token, &peer, peer_endpoint);
  }

  template <typename PeerSocket, typename PeerExecutor, typename Token>
  auto async_move_accept(const PeerExecutor& ex, endpoint_type* peer_endpoint, Token&& token) {
    sock_.check_thread();
    return boost::asio::async_initiate<Token, void(boost::system::error_code, PeerSocket)>(
        [this](auto&& handler, const PeerExecutor& ex, endpoint_type* peer_endpoint) {
          using handler_type = std::decay_t<decltype(handler)>;
          using op_type = detail::socket_op<handler_type, executor_type, detail::completes_with::ec_peer, PeerSocket>;
          (void)sizeof(op_type);
          detail::start_socket_op<detail::completes_with::ec_peer, PeerSocket>(
              *sock_.service_, sock_.state(), std::forward<decltype(handler)>(handler), sock_.ex_,
              detail::sock_op::kind::accept, [&](detail::sock_op& base) {
                auto& op = static_cast<op_type&>(base);
                op.peer_.emplace(ex);
                prepare_accept(op, *op.peer_, peer_endpoint);
              });
        },
        token, ex, peer_endpoint);
  }

  struct socket_access : socket_type {
    using socket_type::socket_type;
  };
  socket_access sock_;
};

}  // namespace simasio

#endif  // SIMASIO_BASIC_SOCKET_ACCEPTOR_HPP
