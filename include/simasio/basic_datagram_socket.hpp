// simasio/basic_datagram_socket.hpp — a simulated UDP socket with Asio's datagram members
#ifndef SIMASIO_BASIC_DATAGRAM_SOCKET_HPP
#define SIMASIO_BASIC_DATAGRAM_SOCKET_HPP

#include <simasio/basic_socket.hpp>

#include <boost/core/span.hpp>

#include <array>
#include <vector>

namespace simasio {

/// Asio's `basic_datagram_socket` over the simulated network.
///
/// Each datagram is independently delayed, lost or duplicated as its link
/// says; reordering falls out of independent latencies. Datagrams larger
/// than 65507 bytes fail with message_size. A datagram larger than the
/// receive buffers is truncated, as on Linux.
///
/// @par Determinism
/// Every send draws latency, loss and duplication from the network stream.
template <typename Protocol, typename Executor = boost::asio::any_io_executor>
class basic_datagram_socket : public basic_socket<Protocol, Executor> {
  using base = basic_socket<Protocol, Executor>;

 public:
  using typename base::endpoint_type;
  using typename base::executor_type;
  using typename base::protocol_type;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_datagram_socket<Protocol, Executor1>;
  };
  using base::base;
  basic_datagram_socket(basic_datagram_socket&&) noexcept = default;
  basic_datagram_socket& operator=(basic_datagram_socket&&) noexcept = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_datagram_socket(basic_datagram_socket<Protocol, Executor1>&& other) noexcept : base(std::move(other)) {}
  ~basic_datagram_socket() = default;

  // ---- send_to / send ------------------------------------------------------
  template <typename ConstBufferSequence>
  std::size_t send_to(const ConstBufferSequence& buffers, const endpoint_type& destination) {
    boost::system::error_code ec;
    const std::size_t n = send_to(buffers, destination, 0, ec);
    detail::throw_socket_error(ec, "send_to");
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t send_to(const ConstBufferSequence& buffers, const endpoint_type& destination,
                      boost::asio::socket_base::message_flags flags) {
    boost::system::error_code ec;
    const std::size_t n = send_to(buffers, destination, flags, ec);
    detail::throw_socket_error(ec, "send_to");
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t send_to(const ConstBufferSequence& buffers, const endpoint_type& destination,
                      boost::asio::socket_base::message_flags, boost::system::error_code& ec) {
    this->check_thread();
    if (!this->is_open()) this->open(destination.protocol(), ec);
    std::size_t n = 0;
    gathered g(buffers);
    ec = this->net().send_to(this->state(), g.view(), detail::to_net(destination), n);
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t send(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = send(buffers, 0, ec);
    detail::throw_socket_error(ec, "send");
    return n;
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
    this->check_thread();
    if (!this->is_open() || !this->state_->connected) {
      // Linux: EDESTADDRREQ on a socket with no peer.
      ec = this->is_open() ? boost::system::error_code(boost::system::errc::destination_address_required,
                                                       boost::system::system_category())
                           : boost::asio::error::bad_descriptor;
      return 0;
    }
    return send_to(buffers, detail::from_net<endpoint_type>(this->state_->remote), flags, ec);
  }

  /// Starts an asynchronous send of one datagram to @p destination.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. The datagram is handed to the network by the initiation
  /// itself (a closed socket is opened, an unbound one bound to an
  /// ephemeral port), and the operation completes (never inline) with that
  /// outcome: success says nothing of delivery, which may be lost.
  ///
  /// @param buffers The datagram's bytes, copied by the initiation.
  /// @param destination The remote endpoint (a multicast group sends a copy
  /// to each member host).
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// The datagram's size. message_size beyond 65507 bytes; invalid_argument
  /// from a socket bound to loopback to another host; address_in_use when no
  /// ephemeral port is left.
  ///
  /// @par Per-Operation Cancellation
  /// None in effect: the datagram is sent and the operation already
  /// complete when the initiating function returns, so a cancellation
  /// emitted afterwards changes nothing.
  ///
  /// @par Determinism
  /// At initiation, network sub-stream, per destination host (per member
  /// host in host id order for a group): one loss draw per IP fragment
  /// (mtu - 28 bytes each) until one is lost; then one duplication draw;
  /// then one latency draw per copy sent (the duplicate's first). No
  /// draw to the sender's own host or to an address no host has, none for
  /// a probability of 0 or 1 or min_latency == max_latency, none when a
  /// partition, block or fault rule drops it (a held datagram draws when it
  /// is released). Its completion is scheduled like any handler's
  /// (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send_to(const ConstBufferSequence& buffers, const endpoint_type& destination,
                     WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_send_to(buffers, destination, 0, std::forward<WriteToken>(token));
  }
  /// Starts an asynchronous send_to with flags: async_send_to() (no send
  /// flag changes what a simulated socket does, so @p flags has no effect).
  ///
  /// @param buffers The datagram's bytes, copied by the initiation.
  /// @param destination The remote endpoint.
  /// @param flags Asio's message flags; ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// None in effect, as async_send_to().
  ///
  /// @par Determinism
  /// As async_send_to(): loss, duplication and latency draws from the
  /// network sub-stream, at initiation.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send_to(const ConstBufferSequence& buffers, const endpoint_type& destination,
                     boost::asio::socket_base::message_flags flags,
                     WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<WriteToken, void(boost::system::error_code, std::size_t)>(
        [this, flags](auto&& handler, const ConstBufferSequence& buffers, const endpoint_type& destination) {
          boost::system::error_code ec;
          const std::size_t n = send_to(buffers, destination, flags, ec);
          detail::start_socket_op<detail::completes_with::ec_bytes>(
              *this->service_, this->state(), std::forward<decltype(handler)>(handler), this->ex_,
              detail::sock_op::kind::write, [&](detail::sock_op& op) {
                op.ec_ = ec;
                op.bytes_ = n;
              });
        },
        token, buffers, destination);
  }
  /// Starts an asynchronous send of one datagram to the connected peer:
  /// async_send_to() with the endpoint connect() fixed.
  ///
  /// @param buffers The datagram's bytes, copied by the initiation.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// As async_send_to(), and destination_address_required (Linux's
  /// EDESTADDRREQ, nothing sent) before connect(),
  /// bad_descriptor on a closed socket.
  ///
  /// @par Per-Operation Cancellation
  /// None in effect, as async_send_to().
  ///
  /// @par Determinism
  /// As async_send_to(): loss, duplication and latency draws from the
  /// network sub-stream, at initiation.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send(const ConstBufferSequence& buffers,
                  WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_send(buffers, 0, std::forward<WriteToken>(token));
  }
  /// Starts an asynchronous send to the connected peer with flags:
  /// async_send() (@p flags has no effect).
  ///
  /// @param buffers The datagram's bytes, copied by the initiation.
  /// @param flags Asio's message flags; ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// None in effect, as async_send_to().
  ///
  /// @par Determinism
  /// As async_send_to(): loss, duplication and latency draws from the
  /// network sub-stream, at initiation.
  template <typename ConstBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send(const ConstBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                  WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<WriteToken, void(boost::system::error_code, std::size_t)>(
        [this, flags](auto&& handler, const ConstBufferSequence& buffers) {
          boost::system::error_code ec;
          const std::size_t n = send(buffers, flags, ec);
          detail::start_socket_op<detail::completes_with::ec_bytes>(
              *this->service_, this->state(), std::forward<decltype(handler)>(handler), this->ex_,
              detail::sock_op::kind::write, [&](detail::sock_op& op) {
                op.ec_ = ec;
                op.bytes_ = n;
              });
        },
        token, buffers);
  }

  // ---- receive_from / receive ---------------------------------------------------
  template <typename MutableBufferSequence>
  std::size_t receive_from(const MutableBufferSequence& buffers, endpoint_type& sender) {
    boost::system::error_code ec;
    const std::size_t n = receive_from(buffers, sender, 0, ec);
    detail::throw_socket_error(ec, "receive_from");
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                           boost::asio::socket_base::message_flags flags) {
    boost::system::error_code ec;
    const std::size_t n = receive_from(buffers, sender, flags, ec);
    detail::throw_socket_error(ec, "receive_from");
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                           boost::asio::socket_base::message_flags flags, boost::system::error_code& ec) {
    this->check_thread();
    auto r = detail::run_sync(*this->service_, [&](auto done) {
      detail::start_socket_op<detail::completes_with::ec_bytes>(
          *this->service_, this->state(), std::move(done), this->ex_, detail::sock_op::kind::receive_from,
          [&](detail::sock_op& op) {
            op.direct_ = true;
            op.non_blocking_ = this->state_ != nullptr && this->state_->non_blocking;
            prepare_receive(op, buffers, &sender, flags);
          });
    }, this->non_blocking());
    ec = r.first;
    return r.second;
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers) {
    endpoint_type ignored;
    return receive_from(buffers, ignored);
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags) {
    endpoint_type ignored;
    return receive_from(buffers, ignored, flags);
  }
  template <typename MutableBufferSequence>
  std::size_t receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                      boost::system::error_code& ec) {
    endpoint_type ignored;
    return receive_from(buffers, ignored, flags, ec);
  }

  /// Starts an asynchronous receive of one datagram and its sender.
  ///
  /// Returns at once; the handler is never invoked from within this
  /// function. Completes with the oldest datagram waiting in the receive
  /// buffer, or the next to arrive; one larger than @p buffers is
  /// truncated without an error, as on Linux.
  ///
  /// @param buffers Where to copy the datagram. The caller keeps the memory
  /// valid until the handler runs.
  /// @param sender Set to the datagram's source when it is taken. The
  /// caller keeps it valid until the handler runs.
  /// @param token The completion token (a handler, use_awaitable, deferred, ...).
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// The bytes copied. bad_descriptor on a closed socket; operation_aborted
  /// on cancel() or close().
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: a receive still waiting completes with
  /// operation_aborted and 0 bytes; a datagram arriving later stays queued
  /// for the next receive.
  ///
  /// @par Determinism
  /// Draws nothing (a datagram's fate was drawn when it was sent). Its
  /// completion is scheduled like any handler's (scheduler sub-stream).
  ///
  /// @throws simasio::usage_error if the socket is used from a thread other
  /// than its world's, after its world is gone, or after its host crashed.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                          ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_receive_from(buffers, sender, 0, std::forward<ReadToken>(token));
  }
  /// Starts an asynchronous receive_from with flags: async_receive_from(),
  /// where message_peek leaves the datagram queued.
  ///
  /// @param buffers Where to copy the datagram; the caller keeps it valid until the handler runs.
  /// @param sender Set to the datagram's source; the caller keeps it valid until the handler runs.
  /// @param flags Asio's message flags: message_peek is honoured, the others are ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_receive_from().
  ///
  /// @par Determinism
  /// As async_receive_from(): draws nothing.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                          boost::asio::socket_base::message_flags flags,
                          ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ReadToken, void(boost::system::error_code, std::size_t)>(
        [this, flags](auto&& handler, const MutableBufferSequence& buffers, endpoint_type* sender) {
          this->start_receive(std::forward<decltype(handler)>(handler), buffers, sender, flags);
        },
        token, buffers, &sender);
  }
  /// Starts an asynchronous receive of one datagram: async_receive_from()
  /// without the sender. On a connected socket only the peer's datagrams
  /// arrive (the network drops the others).
  ///
  /// @param buffers Where to copy the datagram; the caller keeps it valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_receive_from().
  ///
  /// @par Determinism
  /// As async_receive_from(): draws nothing.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive(const MutableBufferSequence& buffers,
                     ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_receive(buffers, 0, std::forward<ReadToken>(token));
  }
  /// Starts an asynchronous receive with flags: async_receive(), where
  /// message_peek leaves the datagram queued.
  ///
  /// @param buffers Where to copy the datagram; the caller keeps it valid until the handler runs.
  /// @param flags Asio's message flags: message_peek is honoured, the others are ignored.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total, as async_receive_from().
  ///
  /// @par Determinism
  /// As async_receive_from(): draws nothing.
  template <typename MutableBufferSequence, BOOST_ASIO_COMPLETION_TOKEN_FOR(void(boost::system::error_code, std::size_t)) ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive(const MutableBufferSequence& buffers, boost::asio::socket_base::message_flags flags,
                     ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ReadToken, void(boost::system::error_code, std::size_t)>(
        [this, flags](auto&& handler, const MutableBufferSequence& buffers) {
          this->start_receive(std::forward<decltype(handler)>(handler), buffers, nullptr, flags);
        },
        token, buffers);
  }

 private:
  // A buffer sequence as a contiguous list: inline for up to 8 buffers
  // (every datagram in practice), on the heap beyond.
  class gathered {
   public:
    template <typename Buffers>
    explicit gathered(const Buffers& buffers) {
      for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
        if (count_ < inline_.size()) inline_[count_] = boost::asio::const_buffer(*it);
        else {
          if (spill_.empty()) spill_.assign(inline_.begin(), inline_.end());
          spill_.emplace_back(*it);
        }
        ++count_;
      }
    }
    boost::span<const boost::asio::const_buffer> view() const noexcept {
      if (!spill_.empty()) return {spill_.data(), spill_.size()};
      return {inline_.data(), count_};
    }

   private:
    std::array<boost::asio::const_buffer, 8> inline_{};
    std::vector<boost::asio::const_buffer> spill_;
    std::size_t count_ = 0;
  };

  // The network knows no endpoint types: it hands the sender to a writer
  // that fills the caller's endpoint when the datagram is taken.
  template <typename Buffers>
  static void prepare_receive(detail::sock_op& op, const Buffers& buffers, endpoint_type* sender,
                              boost::asio::socket_base::message_flags flags) {
    op.capture(buffers);
    op.peek_ = (flags & boost::asio::socket_base::message_peek) != 0;
    op.sender_ = sender;
    op.write_sender_ = [](void* target, const detail::net_endpoint& from) {
      *static_cast<endpoint_type*>(target) = detail::from_net<endpoint_type>(from);
    };
  }

  template <typename Handler, typename Buffers>
  void start_receive(Handler&& handler, const Buffers& buffers, endpoint_type* sender,
                     boost::asio::socket_base::message_flags flags) {
    this->check_thread();
    detail::start_socket_op<detail::completes_with::ec_bytes>(
        *this->service_, this->state(), std::forward<Handler>(handler), this->ex_, detail::sock_op::kind::receive_from,
        [&](detail::sock_op& op) { prepare_receive(op, buffers, sender, flags); });
  }
};

}  // namespace simasio

#endif  // SIMASIO_BASIC_DATAGRAM_SOCKET_HPP
