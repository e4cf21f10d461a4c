// simasio/detail/file_service.hpp — files of one io_context, their pending operations and blocking calls
#ifndef SIMASIO_DETAIL_FILE_SERVICE_HPP
#define SIMASIO_DETAIL_FILE_SERVICE_HPP

#include <simasio/detail/access.hpp>
#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/io_context.hpp>
#include <simasio/trace/trace.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/system/error_code.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simasio::detail {

class file_service;
class disk_model;
struct file_impl;
struct inode;

// The disk of ctx's host, created on first use.
disk_model& disk_of(world_core& core, host_state& host);

// A pending file operation: in the world's event heap until the disk
// finishes it (its effect happens then) or it is cancelled, then in its
// context's ready queue.
class file_op_base : public operation {
 public:
  static constexpr std::size_t max_buffers = 16;
  timed_event event_;
  file_op_base* prev_ = nullptr;  // the file's pending operations
  file_op_base* next_ = nullptr;
  file_impl* impl_ = nullptr;  // null once no longer pending
  disk_op kind_ = disk_op::read;
  std::uint64_t offset_ = 0;
  bool at_position_ = false;  // stream_file: at the file's position when the disk gets to it
  boost::asio::mutable_buffer bufs_[max_buffers];
  std::size_t nbufs_ = 0;
  boost::system::error_code ec_;
  std::size_t bytes_ = 0;
  boost::asio::cancellation_slot slot_;

  template <class Buffers>
  void capture(const Buffers& buffers) {
    nbufs_ = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers);
         ++it) {
      if (nbufs_ == max_buffers) break;
      const auto b = *it;
      bufs_[nbufs_++] = boost::asio::mutable_buffer(const_cast<void*>(static_cast<const void*>(b.data())), b.size());
    }
  }

 protected:
  explicit file_op_base(func_type f) noexcept : operation(f), event_(&on_done, this) {}
  ~file_op_base() = default;

 private:
  static void on_done(timed_event* ev);
};

// The state behind one file object.
struct file_impl {
  file_service* service = nullptr;
  context_state* ctx = nullptr;
  std::uint32_t incarnation = 0;  // of its host when opened
  const char* kind = "random_access_file";
  std::shared_ptr<inode> file;  // null while closed
  std::string path;             // as opened, for messages
  unsigned flags = 0;
  std::uint64_t position = 0;  // stream_file
  file_op_base* head = nullptr;
  file_op_base* tail = nullptr;
  file_impl* prev = nullptr;  // the service's list of files
  file_impl* next = nullptr;
};

// An open file's number on its disk (native_handle()), -1 when closed.
int native_id(const file_impl& impl) noexcept;

class file_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = file_service;
  inline static boost::asio::execution_context::id id;

  explicit file_service(boost::asio::execution_context& ctx);
  ~file_service() override;

  static file_service& of(io_context& ctx) { return boost::asio::use_service<file_service>(ctx); }

  void construct(file_impl& impl, io_context& ctx, const char* kind) noexcept;
  void destroy(file_impl& impl) noexcept;
  void move_construct(file_impl& to, file_impl& from) noexcept;

  // Blocking calls: errors through ec. A call that moves data takes the
  // disk's time: a process sleeps, a handler's context is busy until it
  // completes, the test body does not wait.
  void open(file_impl& impl, const std::string& path, unsigned flags, boost::system::error_code& ec);
  void close(file_impl& impl, boost::system::error_code& ec);
  void cancel(file_impl& impl, boost::system::error_code& ec);
  std::uint64_t size(const file_impl& impl, boost::system::error_code& ec) const;
  void resize(file_impl& impl, std::uint64_t n, boost::system::error_code& ec);
  void sync(file_impl& impl, boost::system::error_code& ec);
  std::uint64_t seek(file_impl& impl, std::int64_t offset, int whence, boost::system::error_code& ec);
  std::size_t transfer(file_impl& impl, disk_op kind, std::uint64_t offset, bool at_position,
                       const boost::asio::mutable_buffer* bufs, std::size_t n, boost::system::error_code& ec);

  template <class Handler, class IoExecutor, class Buffers>
  void start(file_impl& impl, disk_op kind, std::uint64_t offset, bool at_position, const Buffers& buffers,
             Handler&& handler, const IoExecutor& io_ex);

  void cancel_op(file_op_base& op) noexcept;
  void finish(file_op_base& op) noexcept;  // the disk got to it

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

 private:
  void shutdown() override { abandon(); }
  void begin(file_impl& impl, file_op_base& op);
  // The checks of every call: world, thread, the process that opened it;
  // then whether the file is open for `kind`. False (ec set) when not.
  bool usable(const file_impl& impl, disk_op kind, boost::system::error_code& ec) const;
  void os_close(file_impl& impl) noexcept;
  static void unlink(file_op_base& op) noexcept;

  context_state* ctx_state_ = nullptr;
  file_impl* files_ = nullptr;
};

struct file_op_cancellation {
  file_service* service;
  file_op_base* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) service->cancel_op(*op);
  }
};

template <class Handler, class IoExecutor>
class file_op final : public handler_op<file_op_base, Handler, IoExecutor> {
  using base = handler_op<file_op_base, Handler, IoExecutor>;

 public:
  template <class H>
  file_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<file_op*>(op);
    const boost::system::error_code ec = o->ec_;
    const std::size_t n = o->bytes_;
    base::finish(o, invoke, ec, n);
  }
};

template <class Handler, class IoExecutor, class Buffers>
void file_service::start(file_impl& impl, disk_op kind, std::uint64_t offset, bool at_position,
                         const Buffers& buffers, Handler&& handler, const IoExecutor& io_ex) {
  using op_type = file_op<std::decay_t<Handler>, IoExecutor>;
  op_type* op = start_op<op_type>(
      *impl.ctx, impl.incarnation, impl.kind, std::forward<Handler>(handler), io_ex,
      [&](op_type& o) {
        o.kind_ = kind;
        o.offset_ = offset;
        o.at_position_ = at_position;
        o.capture(buffers);
      },
      [this](op_type* o) { return file_op_cancellation{this, o}; });
  if (op != nullptr) begin(impl, *op);
}

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_FILE_SERVICE_HPP
