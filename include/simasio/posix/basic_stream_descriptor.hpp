// simasio/posix/basic_stream_descriptor.hpp — a simulated process's standard streams as Asio stream descriptors
#ifndef SIMASIO_POSIX_BASIC_STREAM_DESCRIPTOR_HPP
#define SIMASIO_POSIX_BASIC_STREAM_DESCRIPTOR_HPP

#include <simasio/detail/config.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/detail/stdio_service.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/posix/descriptor_base.hpp>
#include <boost/system/system_error.hpp>

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace simasio::detail {
// Adopts descriptor fd for a stream descriptor on ctx: one of the calling
// process's standard streams (0, 1, 2 or a duplicate of one), else
// escape_error naming the descriptor (src/process/stdio.cpp).
std::shared_ptr<process_stdio> adopt_stdio_descriptor(context_state& ctx, int fd, stdio_role& role);
// Closes fd (a duplicate the descriptor owns; 0, 1 and 2 stay open, as
// closing them would close the test program's own).
void close_stdio_descriptor(process_stdio& s, int fd) noexcept;
}  // namespace simasio::detail

namespace simasio::posix {

/// Asio's `posix::basic_stream_descriptor` over a simulated process's
/// standard streams: descriptor 0, 1 or 2 (or a `dup()` of one) of a
/// process started by host::spawn or host::spawn_main. Reads take what
/// the scenario wrote with process::write_stdin (end of file after
/// process::close_stdin); writes land in process::stdout_text and
/// process::stderr_text. Any other descriptor is a real one and is refused
/// with simasio::escape_error.
///
/// @par Completion Signatures
/// @code void(boost::system::error_code, std::size_t) @endcode for reads
/// and writes; @code void(boost::system::error_code) @endcode for waits.
template <typename Executor = boost::asio::any_io_executor>
class basic_stream_descriptor : public boost::asio::posix::descriptor_base {
 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_stream_descriptor<Executor1>;
  };
  using native_handle_type = int;
  using lowest_layer_type = basic_stream_descriptor;

  explicit basic_stream_descriptor(const executor_type& ex) : ex_(ex) { init(); }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_stream_descriptor(ExecutionContext& context) : ex_(context.get_executor()) {
    init();
  }
  basic_stream_descriptor(const executor_type& ex, const native_handle_type& native_descriptor) : ex_(ex) {
    init();
    assign(native_descriptor);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_stream_descriptor(ExecutionContext& context, const native_handle_type& native_descriptor)
      : ex_(context.get_executor()) {
    init();
    assign(native_descriptor);
  }
  basic_stream_descriptor(basic_stream_descriptor&& other) noexcept
      : ex_(other.ex_), ctx_(other.ctx_), incarnation_(other.incarnation_), service_(other.service_),
        stdio_(std::move(other.stdio_)), fd_(std::exchange(other.fd_, -1)), role_(other.role_),
        non_blocking_(std::exchange(other.non_blocking_, false)) {}
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_stream_descriptor(basic_stream_descriptor<Executor1>&& other)  // NOLINT: Asio's converting move
      : ex_(other.ex_), ctx_(other.ctx_), incarnation_(other.incarnation_), service_(other.service_),
        stdio_(std::move(other.stdio_)), fd_(std::exchange(other.fd_, -1)), role_(other.role_),
        non_blocking_(std::exchange(other.non_blocking_, false)) {}
  basic_stream_descriptor& operator=(basic_stream_descriptor&& other) {
    if (this != &other) {
      boost::system::error_code ignored;
      close(ignored);
      ex_ = other.ex_;
      ctx_ = other.ctx_;
      incarnation_ = other.incarnation_;
      service_ = other.service_;
      stdio_ = std::move(other.stdio_);
      fd_ = std::exchange(other.fd_, -1);
      role_ = other.role_;
      non_blocking_ = std::exchange(other.non_blocking_, false);
    }
    return *this;
  }
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_stream_descriptor& operator=(basic_stream_descriptor<Executor1>&& other) {
    return *this = basic_stream_descriptor(std::move(other));
  }
  basic_stream_descriptor(const basic_stream_descriptor&) = delete;
  basic_stream_descriptor& operator=(const basic_stream_descriptor&) = delete;
  ~basic_stream_descriptor() {
    boost::system::error_code ignored;
    if (ctx_ != nullptr && ctx_->core != nullptr) close(ignored);
  }

  const executor_type& get_executor() noexcept { return ex_; }
  lowest_layer_type& lowest_layer() { return *this; }
  const lowest_layer_type& lowest_layer() const { return *this; }

  /// Adopts @p native_descriptor: 0, 1 or 2, or a duplicate of one, of the
  /// calling process. @throws simasio::escape_error for any other descriptor.
  void assign(const native_handle_type& native_descriptor) {
    boost::system::error_code ec;
    assign(native_descriptor, ec);
    boost::asio::detail::throw_error(ec, "assign");
  }
  void assign(const native_handle_type& native_descriptor, boost::system::error_code& ec) {
    checked();
    if (is_open()) {
      ec = boost::asio::error::already_open;
      return;
    }
    stdio_ = detail::adopt_stdio_descriptor(*ctx_, native_descriptor, role_);
    fd_ = native_descriptor;
    ec = {};
  }
  bool is_open() const { return fd_ != -1; }
  void close() {
    boost::system::error_code ec;
    close(ec);
    boost::asio::detail::throw_error(ec, "close");
  }
  void close(boost::system::error_code& ec) {
    ec = {};
    if (!is_open()) return;
    cancel(ec);
    detail::close_stdio_descriptor(*stdio_, fd_);
    fd_ = -1;
    stdio_.reset();
  }
  native_handle_type native_handle() { return fd_; }
  /// Gives the descriptor up without closing it; pending reads complete
  /// with operation_aborted.
  native_handle_type release() {
    boost::system::error_code ignored;
    cancel(ignored);
    stdio_.reset();
    return std::exchange(fd_, -1);
  }
  void cancel() {
    boost::system::error_code ec;
    cancel(ec);
    boost::asio::detail::throw_error(ec, "cancel");
  }
  void cancel(boost::system::error_code& ec) {
    ec = {};
    if (!is_open()) {
      ec = boost::asio::error::bad_descriptor;
      return;
    }
    if (ctx_->core != nullptr) service_->cancel(*stdio_);
  }

  /// bytes_readable (FIONREAD) answers what stdin holds; other commands
  /// fail with operation_not_supported.
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command) {
    boost::system::error_code ec;
    io_control(command, ec);
    boost::asio::detail::throw_error(ec, "io_control");
  }
  template <typename IoControlCommand>
  void io_control(IoControlCommand& command, boost::system::error_code& ec) {
    ec = {};
    if (!is_open()) {
      ec = boost::asio::error::bad_descriptor;
      return;
    }
    if constexpr (std::is_same_v<IoControlCommand, bytes_readable>) {
      command.set(role_ == detail::stdio_role::in ? stdio_->available() : 0);
    } else {
      ec = boost::asio::error::operation_not_supported;
    }
  }
  bool non_blocking() const { return non_blocking_; }
  void non_blocking(bool mode) { non_blocking_ = mode; }
  void non_blocking(bool mode, boost::system::error_code& ec) {
    ec = {};
    non_blocking_ = mode;
  }
  bool native_non_blocking() const { return non_blocking_; }
  void native_non_blocking(bool mode) { non_blocking_ = mode; }
  void native_non_blocking(bool mode, boost::system::error_code& ec) {
    ec = {};
    non_blocking_ = mode;
  }

  /// Waits until stdin has bytes (or its end) for wait_read; at once for
  /// wait_write (a pipe the scenario drains without limit).
  void wait(wait_type w) {
    boost::system::error_code ec;
    wait(w, ec);
    boost::asio::detail::throw_error(ec, "wait");
  }
  void wait(wait_type w, boost::system::error_code& ec) {
    if (!open_for(ec)) return;
    if (w == wait_read && role_ == detail::stdio_role::in) detail::read_stdin(*ctx_->core, *stdio_, nullptr, ec);
  }
  template <typename WaitToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_wait(wait_type w, WaitToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<WaitToken, void(boost::system::error_code)>(
        [this, w](auto&& handler) {
          using op_type = detail::stdio_wait_op<std::decay_t<decltype(handler)>, Executor>;
          op_type* op = start<op_type>(std::forward<decltype(handler)>(handler));
          if (op == nullptr) return;
          op->wait_only_ = true;
          if (!open_for(op->ec_) || w != wait_read || role_ != detail::stdio_role::in) {
            service_->start_done(*op);
            return;
          }
          service_->start_read(*stdio_, *op);
        },
        token);
  }

  /// Writes to stdout (descriptor 1) or stderr (2): all of the buffers, at
  /// once. On stdin: bad_descriptor, as writing a pipe's read end is.
  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    boost::asio::detail::throw_error(ec, "write_some");
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    if (!open_for(ec)) return 0;
    return write_buffers(buffers, ec);
  }
  template <typename ConstBufferSequence,
            typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_write_some(const ConstBufferSequence& buffers,
                        WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<WriteToken, void(boost::system::error_code, std::size_t)>(
        // The buffers travel with the initiation (a deferred operation starts later).
        [this](auto&& handler, const ConstBufferSequence& bufs) {
          using op_type = detail::stdio_io_op<std::decay_t<decltype(handler)>, Executor>;
          op_type* op = start<op_type>(std::forward<decltype(handler)>(handler));
          if (op == nullptr) return;
          if (open_for(op->ec_)) op->bytes_ = write_buffers(bufs, op->ec_);
          service_->start_done(*op);
        },
        token, buffers);
  }

  /// Reads from stdin (descriptor 0): what the scenario wrote, blocking the
  /// calling process until there is some; 0 bytes and eof at its end. On
  /// stdout or stderr: bad_descriptor.
  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    boost::asio::detail::throw_error(ec, "read_some");
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    if (!open_for(ec)) return 0;
    if (role_ != detail::stdio_role::in) {
      ec = boost::asio::error::bad_descriptor;
      return 0;
    }
    const std::vector<boost::asio::mutable_buffer> bufs = to_vector(buffers);
    if (boost::asio::buffer_size(bufs) == 0) return 0;  // as Asio's: at once, nothing read
    if (non_blocking_ && stdio_->available() == 0 && !stdio_->in_closed) {
      ec = boost::asio::error::would_block;
      return 0;
    }
    return detail::read_stdin(*ctx_->core, *stdio_, &bufs, ec);
  }
  template <typename MutableBufferSequence,
            typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_read_some(const MutableBufferSequence& buffers,
                       ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return boost::asio::async_initiate<ReadToken, void(boost::system::error_code, std::size_t)>(
        [this](auto&& handler, const MutableBufferSequence& bufs) {
          using op_type = detail::stdio_io_op<std::decay_t<decltype(handler)>, Executor>;
          op_type* op = start<op_type>(std::forward<decltype(handler)>(handler));
          if (op == nullptr) return;
          op->buffers_ = to_vector(bufs);
          if (!open_for(op->ec_) || role_ != detail::stdio_role::in || boost::asio::buffer_size(op->buffers_) == 0) {
            if (!op->ec_ && role_ != detail::stdio_role::in) op->ec_ = boost::asio::error::bad_descriptor;
            service_->start_done(*op);
            return;
          }
          service_->start_read(*stdio_, *op);
        },
        token, buffers);
  }

 private:
  template <typename>
  friend class basic_stream_descriptor;

  void init() {
    io_context& ctx = detail::sim_context_of_executor(ex_, "posix::stream_descriptor");
    ctx_ = &detail::access::state(ctx);
    incarnation_ = ctx_->host->incarnation;
    service_ = &detail::stdio_service::of(ctx);
  }
  void checked() const { detail::checked_core(*ctx_, incarnation_, "posix::stream_descriptor"); }
  bool open_for(boost::system::error_code& ec) const {
    checked();
    ec = is_open() ? boost::system::error_code() : boost::system::error_code(boost::asio::error::bad_descriptor);
    return !ec;
  }
  template <typename Op, typename Handler>
  Op* start(Handler&& handler) {
    auto* service = service_;
    Op* op = detail::start_op<Op>(*ctx_, incarnation_, "posix::stream_descriptor", std::forward<Handler>(handler),
                                  ex_, detail::no_setup{},
                                  [service](Op* o) { return detail::stdio_cancellation{service, o}; });
    if (op != nullptr) op->service_ = service_;
    return op;
  }
  template <typename MutableBufferSequence>
  static std::vector<boost::asio::mutable_buffer> to_vector(const MutableBufferSequence& buffers) {
    return {boost::asio::buffer_sequence_begin(buffers), boost::asio::buffer_sequence_end(buffers)};
  }
  template <typename ConstBufferSequence>
  std::size_t write_buffers(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    if (role_ == detail::stdio_role::in) {
      ec = boost::asio::error::bad_descriptor;
      return 0;
    }
    ec = {};
    std::size_t n = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer b(*it);
      n += detail::write_stdio(*stdio_, role_, b.data(), b.size());
    }
    return n;
  }

  executor_type ex_;
  detail::context_state* ctx_ = nullptr;
  std::uint32_t incarnation_ = 0;
  detail::stdio_service* service_ = nullptr;
  std::shared_ptr<detail::process_stdio> stdio_;
  int fd_ = -1;
  detail::stdio_role role_ = detail::stdio_role::in;
  bool non_blocking_ = false;
};

/// A stream descriptor on the default executor.
using stream_descriptor = basic_stream_descriptor<>;

}  // namespace simasio::posix

#endif  // SIMASIO_POSIX_BASIC_STREAM_DESCRIPTOR_HPP
