// simasio/basic_stream_file.hpp — a file of the host's simulated disk, read and written at its position
#ifndef SIMASIO_BASIC_STREAM_FILE_HPP
#define SIMASIO_BASIC_STREAM_FILE_HPP

#include <simasio/basic_file.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>

#include <cstddef>
#include <cstdint>

namespace simasio {

/// boost::asio::basic_stream_file on a host's simulated disk: reads and
/// writes at the file's position, which each completed transfer moves on,
/// through the page cache, with the disk's latency, queue and faults
/// (simasio/disk.hpp). Asio's read / write / async_read / async_write and
/// Beast's file helpers work over it.
///
/// A write lands in the page cache: reads see it at once, a process crash
/// keeps it, a power cut keeps, loses or tears it unless sync_data() or
/// sync_all() came after it.
template <typename Executor = boost::asio::any_io_executor>
class basic_stream_file : public basic_file<Executor> {
  using base = basic_file<Executor>;

 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_stream_file<Executor1>;
  };
  using native_handle_type = typename base::native_handle_type;

  explicit basic_stream_file(const executor_type& ex) : base(ex) { this->impl_.kind = kind; }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_stream_file(ExecutionContext& context) : base(context) {
    this->impl_.kind = kind;
  }
  basic_stream_file(const executor_type& ex, const char* path, file_base::flags open_flags)
      : base(ex, path, open_flags) {
    this->impl_.kind = kind;
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_stream_file(ExecutionContext& context, const char* path, file_base::flags open_flags)
      : base(context, path, open_flags) {
    this->impl_.kind = kind;
  }
  basic_stream_file(const executor_type& ex, const std::string& path, file_base::flags open_flags)
      : base(ex, path, open_flags) {
    this->impl_.kind = kind;
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_stream_file(ExecutionContext& context, const std::string& path, file_base::flags open_flags)
      : base(context, path, open_flags) {
    this->impl_.kind = kind;
  }
  basic_stream_file(basic_stream_file&& other) = default;
  basic_stream_file& operator=(basic_stream_file&& other) = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_stream_file(basic_stream_file<Executor1>&& other) : base(std::move(other)) {}
  ~basic_stream_file() = default;

  /// Moves the file's position (lseek(2)). @returns The new position.
  /// @throws boost::system::system_error invalid_argument before the start.
  std::uint64_t seek(std::int64_t offset, file_base::seek_basis whence) {
    boost::system::error_code ec;
    const std::uint64_t n = seek(offset, whence, ec);
    if (ec) detail::throw_file_error(ec, "seek", this->impl_.path);
    return n;
  }
  std::uint64_t seek(std::int64_t offset, file_base::seek_basis whence, boost::system::error_code& ec) {
    return this->service_->seek(this->impl_, offset, static_cast<int>(whence), ec);
  }

  /// Writes some of @p buffers at the position (at the end with append)
  /// and moves the position past them.
  /// @returns The bytes written: all of them, or 0 with an error.
  /// @throws boost::system::system_error: io_error (disk_config::write_error),
  /// no_space_on_device, bad_descriptor (closed, or opened read_only).
  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) detail::throw_file_error(ec, "write_some", this->impl_.path);
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    return blocking(disk_op::write, buffers, ec);
  }

  /// Starts writing some of @p buffers at the position the file has when
  /// the disk gets to it.
  ///
  /// @param buffers What to write; the caller keeps it valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: before the disk gets to it, the write is
  /// withdrawn (nothing written) and completes with operation_aborted.
  ///
  /// @par Determinism
  /// Draws a latency (the disk's latency stream) when started; when the disk
  /// gets to it, write_error and each medium fault (latent_sector_error,
  /// misdirected_write, corruption), each family from its own stream.
  template <typename ConstBufferSequence,
            typename WriteToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_write_some(const ConstBufferSequence& buffers,
                        WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(disk_op::write, buffers, std::forward<WriteToken>(token));
  }

  /// Reads some bytes at the position and moves the position past them.
  /// @returns The bytes read, fewer than asked at the end of the file.
  /// @throws boost::system::system_error: eof at the end, io_error
  /// (disk_config::read_error, or a latent sector error read from the medium).
  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) detail::throw_file_error(ec, "read_some", this->impl_.path);
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    return blocking(disk_op::read, buffers, ec);
  }

  /// Starts reading some bytes at the position the file has when the disk
  /// gets to it.
  ///
  /// @param buffers Where to read to; the caller keeps it valid until the handler runs.
  /// @param token The completion token.
  ///
  /// @par Completion Signature
  /// @code void(boost::system::error_code, std::size_t) @endcode
  ///
  /// @par Per-Operation Cancellation
  /// terminal, partial and total: completes with operation_aborted, nothing read.
  ///
  /// @par Determinism
  /// Draws a latency when started and read_error from its own stream when
  /// the disk gets to it.
  template <typename MutableBufferSequence,
            typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_read_some(const MutableBufferSequence& buffers,
                       ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(disk_op::read, buffers, std::forward<ReadToken>(token));
  }

 private:
  static constexpr const char* kind = "stream_file";

  template <typename Buffers>
  std::size_t blocking(disk_op op, const Buffers& buffers, boost::system::error_code& ec) {
    boost::asio::mutable_buffer bufs[detail::file_op_base::max_buffers];
    std::size_t n = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers) && n < detail::file_op_base::max_buffers; ++it) {
      const auto b = *it;
      bufs[n++] = boost::asio::mutable_buffer(const_cast<void*>(static_cast<const void*>(b.data())), b.size());
    }
    return this->service_->transfer(this->impl_, op, 0, true, bufs, n, ec);
  }

  template <typename Buffers, typename Token>
  auto async_io(disk_op op, const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this, op](auto&& handler, const Buffers& b) {
          this->service_->start(this->impl_, op, 0, true, b, std::forward<decltype(handler)>(handler),
                                this->ex_);
        },
        token, buffers);
  }
};

/// A stream file on the default executor (boost::asio::stream_file).
using stream_file = basic_stream_file<>;

}  // namespace simasio

#endif  // SIMASIO_BASIC_STREAM_FILE_HPP
