// simasio/basic_datagram_socket.hpp — a simulated UDP socket with Asio's datagram members
#ifndef SIMASIO_BASIC_DATAGRAM_SOCKET_HPP
#define SIMASIO_BASIC_DATAGRAM_SOCKET_HPP

#include <simasio/basic_socket.hpp>

#include <array>
#include <span>
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
      ec = this->is_open() ? boost::asio::error::not_connected : boost::asio::error::bad_descriptor;
      return 0;
    }
    return send_to(buffers, detail::from_net<endpoint_type>(this->state_->remote), flags, ec);
  }

  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  /// Completes (never inline) once the datagram is handed to the network.
  template <typename ConstBufferSequence, typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send_to(const ConstBufferSequence& buffers, const endpoint_type& destination,
                     WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_send_to(buffers, destination, 0, std::forward<WriteToken>(token));
  }
  template <typename ConstBufferSequence, typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
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
  template <typename ConstBufferSequence, typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_send(const ConstBufferSequence& buffers,
                  WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_send(buffers, 0, std::forward<WriteToken>(token));
  }
  template <typename ConstBufferSequence, typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
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

  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  template <typename MutableBufferSequence, typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                          ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_receive_from(buffers, sender, 0, std::forward<ReadToken>(token));
  }
  template <typename MutableBufferSequence, typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive_from(const MutableBufferSequence& buffers, endpoint_type& sender,
                          boost::asio::socket_base::message_flags flags,
                          ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ReadToken, void(boost::system::error_code, std::size_t)>(
        [this, flags](auto&& handler, const MutableBufferSequence& buffers, endpoint_type* sender) {
          this->start_receive(std::forward<decltype(handler)>(handler), buffers, sender, flags);
        },
        token, buffers, &sender);
  }
  template <typename MutableBufferSequence, typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_receive(const MutableBufferSequence& buffers,
                     ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_receive(buffers, 0, std::forward<ReadToken>(token));
  }
  template <typename MutableBufferSequence, typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
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
    std::span<const boost::asio::const_buffer> view() const noexcept {
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
