// simasio/basic_random_access_file.hpp — a file of the host's simulated disk, read and written at offsets
#ifndef SIMASIO_BASIC_RANDOM_ACCESS_FILE_HPP
#define SIMASIO_BASIC_RANDOM_ACCESS_FILE_HPP

#include <simasio/basic_file.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>

#include <cstddef>
#include <cstdint>

namespace simasio {

/// boost::asio::basic_random_access_file on a host's simulated disk: reads
/// and writes at offsets, through the page cache, with the disk's latency,
/// queue and faults (simasio/disk.hpp). Asio's read_at / write_at /
/// async_read_at / async_write_at work over it.
///
/// A write lands in the page cache: reads see it at once, a process crash
/// keeps it, a power cut keeps, loses or tears it unless sync_data() or
/// sync_all() came after it.
template <typename Executor = boost::asio::any_io_executor>
class basic_random_access_file : public basic_file<Executor> {
  using base = basic_file<Executor>;

 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_random_access_file<Executor1>;
  };
  using native_handle_type = typename base::native_handle_type;

  explicit basic_random_access_file(const executor_type& ex) : base(ex) { this->impl_.kind = kind; }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_random_access_file(ExecutionContext& context) : base(context) {
    this->impl_.kind = kind;
  }
  basic_random_access_file(const executor_type& ex, const char* path, file_base::flags open_flags)
      : base(ex, path, open_flags) {
    this->impl_.kind = kind;
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_random_access_file(ExecutionContext& context, const char* path, file_base::flags open_flags)
      : base(context, path, open_flags) {
    this->impl_.kind = kind;
  }
  basic_random_access_file(const executor_type& ex, const std::string& path, file_base::flags open_flags)
      : base(ex, path, open_flags) {
    this->impl_.kind = kind;
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_random_access_file(ExecutionContext& context, const std::string& path, file_base::flags open_flags)
      : base(context, path, open_flags) {
    this->impl_.kind = kind;
  }
  basic_random_access_file(basic_random_access_file&& other) = default;
  basic_random_access_file& operator=(basic_random_access_file&& other) = default;
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_random_access_file(basic_random_access_file<Executor1>&& other) : base(std::move(other)) {}
  ~basic_random_access_file() = default;

  /// Writes some of @p buffers at @p offset (pwrite(2)); with append, at the
  /// end of the file whatever the offset, as Linux does.
  /// @returns The bytes written: all of them, or 0 with an error.
  /// @throws boost::system::system_error: io_error (disk_config::write_error),
  /// no_space_on_device, bad_descriptor (closed, or opened read_only).
  template <typename ConstBufferSequence>
  std::size_t write_some_at(std::uint64_t offset, const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some_at(offset, buffers, ec);
    if (ec) detail::throw_file_error(ec, "write_some_at", this->impl_.path);
    return n;
  }
  template <typename ConstBufferSequence>
  std::size_t write_some_at(std::uint64_t offset, const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    return blocking(disk_op::write, offset, buffers, ec);
  }

  /// Starts writing some of @p buffers at @p offset.
  ///
  /// @param offset Where in the file.
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
  auto async_write_some_at(std::uint64_t offset, const ConstBufferSequence& buffers,
                           WriteToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(disk_op::write, offset, buffers, std::forward<WriteToken>(token));
  }

  /// Reads some bytes at @p offset into @p buffers (pread(2)).
  /// @returns The bytes read, fewer than asked at the end of the file.
  /// @throws boost::system::system_error: eof at or past the end, io_error
  /// (disk_config::read_error, or a latent sector error read from the medium).
  template <typename MutableBufferSequence>
  std::size_t read_some_at(std::uint64_t offset, const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some_at(offset, buffers, ec);
    if (ec) detail::throw_file_error(ec, "read_some_at", this->impl_.path);
    return n;
  }
  template <typename MutableBufferSequence>
  std::size_t read_some_at(std::uint64_t offset, const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    return blocking(disk_op::read, offset, buffers, ec);
  }

  /// Starts reading some bytes at @p offset.
  ///
  /// @param offset Where in the file.
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
  /// the disk gets to it; the data is what the file holds at that moment.
  template <typename MutableBufferSequence,
            typename ReadToken = boost::asio::default_completion_token_t<executor_type>>
  auto async_read_some_at(std::uint64_t offset, const MutableBufferSequence& buffers,
                          ReadToken&& token = boost::asio::default_completion_token_t<executor_type>()) {
    return async_io(disk_op::read, offset, buffers, std::forward<ReadToken>(token));
  }

 private:
  static constexpr const char* kind = "random_access_file";

  template <typename Buffers>
  std::size_t blocking(disk_op op, std::uint64_t offset, const Buffers& buffers, boost::system::error_code& ec) {
    boost::asio::mutable_buffer bufs[detail::file_op_base::max_buffers];
    std::size_t n = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers) && n < detail::file_op_base::max_buffers; ++it) {
      const auto b = *it;
      bufs[n++] = boost::asio::mutable_buffer(const_cast<void*>(static_cast<const void*>(b.data())), b.size());
    }
    return this->service_->transfer(this->impl_, op, offset, false, bufs, n, ec);
  }

  template <typename Buffers, typename Token>
  auto async_io(disk_op op, std::uint64_t offset, const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, std::size_t)>(
        [this, op, offset](auto&& handler, const Buffers& b) {
          this->service_->start(this->impl_, op, offset, false, b, std::forward<decltype(handler)>(handler),
                                this->ex_);
        },
        token, buffers);
  }
};

/// A random-access file on the default executor (boost::asio::random_access_file).
using random_access_file = basic_random_access_file<>;

}  // namespace simasio

#endif  // SIMASIO_BASIC_RANDOM_ACCESS_FILE_HPP
