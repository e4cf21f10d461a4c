// simasio/detail/stdio_service.hpp — a simulated process's standard streams and the reads waiting on them
#ifndef SIMASIO_DETAIL_STDIO_SERVICE_HPP
#define SIMASIO_DETAIL_STDIO_SERVICE_HPP

#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution_context.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simasio::detail {

class stdio_service;
struct process_stdio;

// Which of a process's standard streams a descriptor is.
enum class stdio_role : int { in = 0, out = 1, err = 2 };

class stdio_op : public operation {
 public:
  boost::system::error_code ec_;
  std::size_t bytes_ = 0;
  std::vector<boost::asio::mutable_buffer> buffers_;  // a read's destination
  bool wait_only_ = false;                            // async_wait(wait_read): readiness, no bytes
  process_stdio* stdio_ = nullptr;                    // null once no longer waiting
  stdio_service* service_ = nullptr;
  boost::asio::cancellation_slot slot_;

 protected:
  explicit stdio_op(func_type f) noexcept : operation(f) {}
  ~stdio_op() = default;
};

// The three pipes of one process (its group: threads share them). The
// scenario writes stdin and reads stdout and stderr through the process
// handle; the process reads and writes them through descriptors 0, 1 and 2
// (posix::stream_descriptor, and read()/write() with simasio::interpose).
// Shared by the process handle and the world: it outlives both.
struct process_stdio {
  world_core* core = nullptr;  // null once the world is gone
  std::string in;              // written, not yet read
  std::size_t in_read = 0;     // how much of `in` was read
  bool in_closed = false;      // end of file once `in` is read
  std::string out, err;
  std::deque<stdio_op*> reads;              // async reads (and read waits) of stdin, oldest first
  std::vector<process_wakeup> blocked;      // synchronous reads of stdin
  std::vector<std::pair<int, stdio_role>> dups;  // real descriptors duplicated from 0, 1, 2 in the process

  std::size_t available() const noexcept { return in.size() - in_read; }
  // fd's role without asking the kernel: 0, 1 and 2 themselves, or a
  // recorded duplicate of one.
  bool known_role(int fd, stdio_role& role) const noexcept;
  // Forgets a recorded duplicate (its descriptor was closed).
  void forget_dup(int fd) noexcept;
  // The scenario's side.
  void write_in(std::string_view data);
  void close_in();
  // Moves up to the buffers' size from stdin into them (0 at end of file).
  std::size_t take(const std::vector<boost::asio::mutable_buffer>& buffers);
  // Completes waiting reads while there are bytes (or end of file).
  void deliver();
};

// The standard streams of the process whose code calls (a process's fiber,
// or a handler of an io_context a process made), or nullptr outside one.
std::shared_ptr<process_stdio> calling_stdio(world_core& core);
// The role of descriptor fd of the calling process: 0, 1 and 2 themselves,
// a duplicate of one of them (recorded by the interposed dup calls, else
// recognised as the same open file), or nothing.
bool stdio_role_of(process_stdio& s, int fd, stdio_role& role);
// A synchronous read of stdin into buffers (null: a wait until it is
// readable, nothing taken): blocks a process until there are bytes or the
// end of file (eof); would_block outside a process.
std::size_t read_stdin(world_core& core, process_stdio& s, const std::vector<boost::asio::mutable_buffer>* buffers,
                       boost::system::error_code& ec);
// Appends to stdout or stderr.
std::size_t write_stdio(process_stdio& s, stdio_role role, const void* data, std::size_t n);

// The pending reads of one io_context's stream descriptors.
class stdio_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = stdio_service;
  inline static boost::asio::execution_context::id id;
  explicit stdio_service(boost::asio::execution_context& ctx);
  ~stdio_service() override;
  static stdio_service& of(io_context& ctx) { return boost::asio::use_service<stdio_service>(ctx); }

  context_state& ctx() noexcept { return *ctx_; }
  // A read (or a wait for readability) of stdin: completes when bytes or
  // the end of file are there (at once, queued, if they are already).
  void start_read(process_stdio& s, stdio_op& op);
  // An operation that is done as it starts (writes, write waits, errors).
  void start_done(stdio_op& op) { ctx_->core->post_ready(*ctx_, &op); }
  // Cancels this context's reads of s (a descriptor's cancel or close).
  std::size_t cancel(process_stdio& s) noexcept;
  void cancel_op(stdio_op& op) noexcept;
  // A read of stdin that got its bytes (process_stdio::deliver).
  void complete(stdio_op& op);

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

 private:
  void shutdown() override { abandon(); }
  context_state* ctx_;
  std::vector<stdio_op*> pending_;  // this context's reads waiting on some process's stdin
};

struct stdio_cancellation {
  stdio_service* service;
  stdio_op* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) service->cancel_op(*op);
  }
};

template <class Handler, class IoExecutor>
class stdio_io_op final : public handler_op<stdio_op, Handler, IoExecutor> {
  using base = handler_op<stdio_op, Handler, IoExecutor>;

 public:
  template <class H>
  stdio_io_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<stdio_io_op*>(op);
    base::finish(o, invoke, o->ec_, o->bytes_);
  }
};

template <class Handler, class IoExecutor>
class stdio_wait_op final : public handler_op<stdio_op, Handler, IoExecutor> {
  using base = handler_op<stdio_op, Handler, IoExecutor>;

 public:
  template <class H>
  stdio_wait_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<stdio_wait_op*>(op);
    base::finish(o, invoke, o->ec_);
  }
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_STDIO_SERVICE_HPP
