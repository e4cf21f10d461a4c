// simasio/basic_stream_socket.hpp — a simulated TCP socket with Asio's stream members
#ifndef SIMASIO_BASIC_STREAM_SOCKET_HPP
#define SIMASIO_BASIC_STREAM_SOCKET_HPP

#include <simasio/basic_socket.hpp>

namespace simasio {

namespace detail {
template <typename Executor>
struct is_simulated_executor;  // simasio/any_io_executor.hpp
}  // namespace detail

/// Asio's `basic_stream_socket` over the simulated network.
///
/// Bytes are never lost, duplicated or reordered while the connection
/// lives; loss shows as retransmission delay. Writes may be accepted
/// partially and reads return whatever has arrived, in seeded segment sizes,
/// so framing bugs surface.
///
/// @par Completion Signature
/// @code void(boost::system::error_code, std::size_t) @endcode
/// eof after the peer's graceful close, connection_reset after an abortive
/// one (or a crashed peer's reset), timed_out when retransmission gives up.
///
/// @par Per-Operation Cancellation
/// terminal, partial and total cancellation complete with operation_aborted;
/// the socket stays usable.
template <typename Protocol, typename Executor = boost::asio::any_io_executor>
class basic_stream_socket : public basic_socket<Protocol, Executor> {
  using base = basic_socket<Protocol, Executor>;

 public:
  using typename base::endpoint_type;
  using typename base::executor_type;
  using typename base::protocol_type;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_stream_socket<Protocol, Executor1>;
  };
  using base::base;
  basic_stream_socket(basic_stream_socket&&) noexcept = default;
  basic_stream_socket& operator=(basic_stream_socket&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_stream_socket(basic_stream_socket<Protocol, Executor1>&& other) noexcept : base(std::move(other)) {}
  ~basic_stream_socket() = default;

  /// Code that names Asio's real socket type with an executor simasio does
  /// not simulate (`boost::beast::tcp_stream` when only the `net` alias was
  /// switched) gets this message instead of a page of Asio templates.
  template <typename Executor1, typename = std::enable_if_t<!detail::is_simulated_executor<Executor1>::value>>
  operator boost::asio::basic_stream_socket<Protocol, Executor1>() && {
    static_assert(sizeof(Executor1) == 0,
                  "simasio: a simulated socket cannot become Asio's real boost::asio::basic_stream_socket. "
                  "Beast: write `namespace beast = simasio::beast;` (with #include <simasio/beast.hpp>) so that "
                  "beast::tcp_stream is simulated; your own templates: take the socket type as a parameter or "
                  "use net::ip::tcp::socket through `namespace net = simasio::asio;`");
    return boost::asio::basic_stream_socket<Protocol, Executor1>(this->get_executor());
  }

  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    detail::throw_socket_error(ec, "write_some");
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    return sync(detail::sock_op::kind::write, buffers, 0, ec);
  }
  template <typename ConstBufferSequence>
  std::size_t send(const ConstBufferSequence& buffers) {
    return write_some(buffers);
  }
  template <typename ConstBufferSequence>
  std::size_t send(const ConstBufferSequence& buffers, boost::asio::socket_base::message_flags flags) {
    boost::system::error_code ec;
    const std::size_t n = send(buffers, flags, ec);
    detail::throw_socket_error(ec, "send");
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t send(const ConstBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                   boost::system::error_code& ec) {
    return sync(detail::sock_op::kind::write, buffers, flags, ec);
  }

  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    detail::throw_socket_error(ec, "read_some");
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    return sync(detail::sock_op::kind::read, buffers, 0, ec);
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers) {
    return read_some(buffers);
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags) {
    boost::system::error_code ec;
    const std::size_t n = receive(buffers, flags, ec);
    detail::throw_socket_error(ec, "receive");
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                      boost::system::error_code& ec) {
    return sync(detail::sock_op::kind::read, buffers, flags, ec);
  }

  /// Starts an asynchronous write of some of @p buffers to the connected peer.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. The write waits for a connect in progress, and while the
  /// send buffer and the peer's receive window are full; then it takes what
  /// fits, and maybe less (see Determinism): use Asio's async_write to send
  /// everything.
  ///
  /// @param buffers The data to write. The caller keeps the memory valid
  /// until the handler runs; the bytes taken are copied when the write
  /// completes.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// The bytes taken (0 for empty buffers, at once). Errors: broken_pipe after
  /// shutdown(shutdown_send), on a socket that never connected, and after a
  /// failure was reported; connection_reset or timed_out once, when the
  /// connection failed (broken_pipe for a reset after the peer's FIN); bad_descriptor on a closed socket;
  /// operation_aborted on cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a write still waiting for room completes
  /// with operation_aborted and 0 bytes, none of its data sent. A write
  /// that took its bytes has already completed, so there is never a
  /// half-cancelled write.
  ///
  /// @par Determinism
  /// Network sub-stream, when the bytes are taken (at once, or later, when
  /// the peer reads): if more than one byte fits, one draw decides whether
  /// to take only part (probability 1/4) and, if so, one more how many.
  /// The bytes taken are cut into segments of at most mtu - 40 bytes: each
  /// segment longer than one byte is shortened with probability 1/4 (one
  /// draw, and one more for its length). Each segment sent, and each
  /// retransmission, draws loss and, if not lost, latency between two
  /// different hosts (none on one host, none for a loss of 0 or 1 or
  /// min_latency == max_latency). Its completion is scheduled like any
  /// handler's (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <typename ConstBufferSequence,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_write_some(const ConstBufferSequence& buffers,
                        WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::write, buffers, 0, std::forward<WriteToken>(token));
  }
  /// Starts an asynchronous send: the same operation as async_write_some().
  ///
  /// @param buffers The data to send; the caller keeps it valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_write_some().
  ///
  /// @par Determinism
  /// As async_write_some(): partial-write, segment, loss and latency draws
  /// from the network sub-stream.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send(const ConstBufferSequence& buffers,
                  WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::write, buffers, 0, std::forward<WriteToken>(token));
  }
  /// Starts an asynchronous send with flags: async_write_some() (no send flag
  /// changes what a simulated socket does, so @p flags has no effect).
  ///
  /// @param buffers The data to send; the caller keeps it valid until the handler runs.
  /// @param flags Asio's message flags; ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_write_some().
  ///
  /// @par Determinism
  /// As async_write_some(): partial-write, segment, loss and latency draws
  /// from the network sub-stream.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send(const ConstBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                  WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::write, buffers, flags, std::forward<WriteToken>(token));
  }
  /// Starts an asynchronous read of whatever data has arrived into @p buffers.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. It completes as soon as any data is there, with at most what
  /// has arrived (the peer's writes arrive in seeded segments): use Asio's
  /// async_read to fill the buffers.
  ///
  /// @param buffers Where to read to. The caller keeps the memory valid
  /// until the handler runs.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// The bytes read (0 for empty buffers, at once). Errors: eof once the
  /// data before the peer's FIN (its graceful close or shutdown_send) is
  /// read, or after shutdown(shutdown_receive) here; connection_reset
  /// after an abortive close or a reset, or timed_out when retransmission
  /// or keep-alive gives up: once, after the bytes that arrived before it,
  /// then eof (as Linux's recv); not_connected on a socket that never
  /// connected; bad_descriptor on a closed socket;
  /// operation_aborted on cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a read still waiting completes with
  /// operation_aborted and 0 bytes; data arriving later stays in the receive
  /// buffer for the next read.
  ///
  /// @par Determinism
  /// Draws nothing itself (the segment sizes it sees were drawn by the
  /// peer's write). Reading opens the peer's window, which may let the
  /// peer's waiting writes proceed: those draw as async_write_some() says.
  /// Its completion is scheduled like any handler's (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <typename MutableBufferSequence,
            BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_read_some(const MutableBufferSequence& buffers,
                       ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::read, buffers, 0, std::forward<ReadToken>(token));
  }
  /// Starts an asynchronous receive: the same operation as async_read_some().
  ///
  /// @param buffers Where to read to; the caller keeps it valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_read_some().
  ///
  /// @par Determinism
  /// As async_read_some(): draws nothing itself.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive(const MutableBufferSequence& buffers,
                     ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::read, buffers, 0, std::forward<ReadToken>(token));
  }
  /// Starts an asynchronous receive with flags: async_read_some(), where
  /// message_peek leaves the data in the receive buffer.
  ///
  /// @param buffers Where to read to; the caller keeps it valid until the handler runs.
  /// @param flags Asio's message flags: message_peek is honoured, the others are ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_read_some().
  ///
  /// @par Determinism
  /// As async_read_some(): draws nothing itself.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                     ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(detail::sock_op::kind::read, buffers, flags, std::forward<ReadToken>(token));
  }

 private:
  template <typename Buffers>
  std::size_t sync(detail::sock_op::kind kind, const Buffers& buffers, boost::asio::socket_base::message_flags flags,
                   boost::system::error_code& ec) {
    this->check_thread();
    auto r = detail::run_sync(*this->service_, [&](auto done) {
      detail::start_socket_op<detail::completes_with::ec_bytes>(
          *this->service_, this->state(), std::move(done), this->ex_, kind, [&](detail::sock_op& op) {
            op.direct_ = true;
            op.non_blocking_ = this->state_ != nullptr && this->state_->non_blocking;
            op.capture(buffers);
            op.peek_ = (flags & boost::asio::socket_base::message_peek) != 0;
          });
    }, this->non_blocking());
    ec = r.first;
    return r.second;
  }

  template <typename Buffers, typename Token>
  auto async_io(detail::sock_op::kind kind, const Buffers& buffers, boost::asio::socket_base::message_flags flags,
                Token&& token) {
    this->check_thread();
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this, kind, flags](auto&& handler, const Buffers& buffers) {
          detail::start_socket_op<detail::completes_with::ec_bytes>(
              *this->service_, this->state(), std::forward<decltype(handler)>(handler), this->ex_, kind,
              [&](detail::sock_op& op) {
                op.capture(buffers);
                op.peek_ = (flags & boost::asio::socket_base::message_peek) != 0;
              });
        },
        token, buffers);
  }
};

}  // namespace simasio

#endif  // SIMASIO_BASIC_STREAM_SOCKET_HPP
