// simasio/basic_file.hpp — what random_access_file and stream_file share: open, close, size, sync
#ifndef SIMASIO_BASIC_FILE_HPP
#define SIMASIO_BASIC_FILE_HPP

#include <simasio/detail/file_service.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/file_base.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace simasio {

namespace detail {
// Throws the system_error of a failed file call, naming the call and the path.
[[noreturn]] void throw_file_error(const boost::system::error_code& ec, const char* what, const std::string& path);
}  // namespace detail

/// The members boost::asio::basic_file gives both file kinds, on a file of
/// the simulated disk of the io_context's host (host::disk()).
///
/// @par Determinism
/// Opening, closing, size() and cancel() draw nothing. resize(),
/// sync_all() and sync_data() draw one latency from the disk's latency
/// stream, sync_* also a sync_error chance from its own stream. They are
/// blocking calls: in a handler they complete at once and keep the
/// handler's context busy (no handler of it runs) until the disk would have
/// finished; in a process they suspend it that long; from the test body
/// they complete without virtual time passing.
template <typename Executor = boost::asio::any_io_executor>
class basic_file : public file_base {
 public:
  using executor_type = Executor;
  template <typename Executor1>
  struct rebind_executor {
    using other = basic_file<Executor1>;
  };
  /// A file of the simulated disk has no OS descriptor; its native handle is
  /// an opaque integer that assign() refuses.
  using native_handle_type = int;

  /// A closed file on the executor's io_context.
  explicit basic_file(const executor_type& ex) : ex_(ex) { init(); }
  /// A closed file on @p context.
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  explicit basic_file(ExecutionContext& context) : ex_(context.get_executor()) {
    init();
  }
  /// Opens @p path with @p open_flags.
  /// @throws boost::system::system_error when the file cannot be opened.
  basic_file(const executor_type& ex, const char* path, file_base::flags open_flags) : ex_(ex) {
    init();
    open_or_release(path, open_flags);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_file(ExecutionContext& context, const char* path, file_base::flags open_flags)
      : ex_(context.get_executor()) {
    init();
    open_or_release(path, open_flags);
  }
  basic_file(const executor_type& ex, const std::string& path, file_base::flags open_flags) : ex_(ex) {
    init();
    open_or_release(path, open_flags);
  }
  template <typename ExecutionContext,
            typename = std::enable_if_t<std::is_convertible_v<ExecutionContext&, boost::asio::execution_context&>>>
  basic_file(ExecutionContext& context, const std::string& path, file_base::flags open_flags)
      : ex_(context.get_executor()) {
    init();
    open_or_release(path, open_flags);
  }

  basic_file(basic_file&& other) : ex_(other.ex_) { move_from(other); }
  basic_file& operator=(basic_file&& other) {
    if (this != &other) {
      service_->destroy(impl_);
      ex_ = other.ex_;
      move_from(other);
    }
    return *this;
  }
  template <typename Executor1, typename = std::enable_if_t<std::is_convertible_v<Executor1, Executor>>>
  basic_file(basic_file<Executor1>&& other) : ex_(other.ex_) {
    move_from(other);
  }
  basic_file(const basic_file&) = delete;
  basic_file& operator=(const basic_file&) = delete;

  executor_type get_executor() noexcept { return ex_; }

  /// Opens @p path (resolved on the io_context's host) with @p open_flags.
  /// @throws boost::system::system_error: no_such_file_or_directory without
  /// create, file_exists with create | exclusive, already_open, is_a_directory.
  void open(const char* path, file_base::flags open_flags) { open(std::string(path), open_flags); }
  void open(const std::string& path, file_base::flags open_flags) {
    boost::system::error_code ec;
    open(path, open_flags, ec);
    if (ec) detail::throw_file_error(ec, "open", path);
  }
  void open(const char* path, file_base::flags open_flags, boost::system::error_code& ec) {
    open(std::string(path), open_flags, ec);
  }
  void open(const std::string& path, file_base::flags open_flags, boost::system::error_code& ec) {
    service_->open(impl_, path, static_cast<unsigned>(open_flags), ec);
  }

  /// A simulated file cannot adopt a real descriptor: always operation_not_supported.
  void assign(const native_handle_type&) {
    throw boost::system::system_error(boost::asio::error::operation_not_supported,
                                      "simasio: file assign(): a simulated file cannot adopt a real descriptor; "
                                      "open the path on the host's disk instead");
  }
  void assign(const native_handle_type&, boost::system::error_code& ec) {
    ec = boost::asio::error::operation_not_supported;
  }

  bool is_open() const { return static_cast<bool>(impl_.file); }

  /// Closes the file; its pending operations complete with operation_aborted.
  /// Closing does not make anything durable (close(2) does not fsync).
  void close() {
    boost::system::error_code ec;
    close(ec);
    if (ec) detail::throw_file_error(ec, "close", impl_.path);
  }
  void close(boost::system::error_code& ec) { service_->close(impl_, ec); }

  /// Not supported on a simulated file (there is no descriptor to hand out).
  native_handle_type release() {
    throw boost::system::system_error(boost::asio::error::operation_not_supported,
                                      "simasio: file release(): a simulated file has no descriptor to release");
  }
  native_handle_type release(boost::system::error_code& ec) {
    ec = boost::asio::error::operation_not_supported;
    return -1;
  }
  /// An opaque number identifying the open file on its disk (-1 when closed).
  native_handle_type native_handle() { return detail::native_id(impl_); }

  /// Cancels every pending asynchronous operation: each completes with operation_aborted.
  void cancel() {
    boost::system::error_code ec;
    cancel(ec);
    if (ec) detail::throw_file_error(ec, "cancel", impl_.path);
  }
  void cancel(boost::system::error_code& ec) { service_->cancel(impl_, ec); }

  /// The file's size as reads see it (the page cache).
  std::uint64_t size() const {
    boost::system::error_code ec;
    const std::uint64_t n = size(ec);
    if (ec) detail::throw_file_error(ec, "size", impl_.path);
    return n;
  }
  std::uint64_t size(boost::system::error_code& ec) const { return service_->size(impl_, ec); }

  /// Truncates or extends (with zeros) the file to @p n bytes. Not durable until a sync.
  /// @throws boost::system::system_error no_space_on_device past the disk's capacity.
  void resize(std::uint64_t n) {
    boost::system::error_code ec;
    resize(n, ec);
    if (ec) detail::throw_file_error(ec, "resize", impl_.path);
  }
  void resize(std::uint64_t n, boost::system::error_code& ec) { service_->resize(impl_, n, ec); }

  /// Makes every write and size change so far durable (fsync(2)). Directory
  /// entries (the file's own name) need disk::sync_directory.
  /// @throws boost::system::system_error io_error when disk_config::sync_error fires.
  void sync_all() {
    boost::system::error_code ec;
    sync_all(ec);
    if (ec) detail::throw_file_error(ec, "sync_all", impl_.path);
  }
  void sync_all(boost::system::error_code& ec) { service_->sync(impl_, ec); }

  /// Makes the file's data (and its size) durable (fdatasync(2)); the model
  /// keeps no other metadata, so this is sync_all.
  void sync_data() {
    boost::system::error_code ec;
    sync_data(ec);
    if (ec) detail::throw_file_error(ec, "sync_data", impl_.path);
  }
  void sync_data(boost::system::error_code& ec) { service_->sync(impl_, ec); }

 protected:
  ~basic_file() {
    if (service_ != nullptr) service_->destroy(impl_);
  }

  template <typename>
  friend class basic_file;

  executor_type ex_;
  detail::file_service* service_ = nullptr;
  mutable detail::file_impl impl_;

 private:
  void init() {
    io_context& ctx = detail::sim_context_of_executor(ex_, "file");
    service_ = &detail::file_service::of(ctx);
    service_->construct(impl_, ctx, "file");
  }
  // A constructor that fails to open throws, and no destructor runs for
  // the object: leave nothing behind in the service.
  void open_or_release(const std::string& path, file_base::flags open_flags) {
    try {
      open(path, open_flags);
    } catch (...) {
      service_->destroy(impl_);
      service_ = nullptr;
      throw;
    }
  }
  template <typename Other>
  void move_from(Other& other) {
    service_ = other.service_;
    service_->move_construct(impl_, other.impl_);
  }
};

}  // namespace simasio

#endif  // SIMASIO_BASIC_FILE_HPP
