// stdio.cpp — a simulated process's stdin, stdout and stderr: pipes between the scenario and the process
#include <simasio/detail/stdio_service.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/detail/sim_context.hpp>
#include <simasio/error.hpp>
#include <simasio/process.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <linux/kcmp.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace simasio {

namespace {

detail::process_stdio& stdio_of(const std::shared_ptr<const detail::process_status>& status, const char* member) {
  if (!status || !status->stdio)
    throw usage_error(std::string("simasio: process::") + member +
                      " on a handle that names no process: use the handle host::spawn or host::spawn_main returned");
  return *status->stdio;
}

}  // namespace

void process::write_stdin(std::string_view data) const { stdio_of(status_, "write_stdin").write_in(data); }
void process::close_stdin() const { stdio_of(status_, "close_stdin").close_in(); }
std::string process::stdout_text() const { return stdio_of(status_, "stdout_text").out; }
std::string process::stderr_text() const { return stdio_of(status_, "stderr_text").err; }

}  // namespace simasio

namespace simasio::detail {

void process_stdio::write_in(std::string_view data) {
  if (in_closed)
    throw usage_error("simasio: process::write_stdin after process::close_stdin: the process has read (or will "
                      "read) the end of its standard input; write everything before closing it");
  // Drop what was read once it is most of the buffer.
  if (in_read > 4096 && in_read * 2 > in.size()) {
    in.erase(0, in_read);
    in_read = 0;
  }
  in.append(data);
  deliver();
}

void process_stdio::close_in() {
  in_closed = true;
  deliver();
}

std::size_t process_stdio::take(const std::vector<boost::asio::mutable_buffer>& buffers) {
  std::size_t n = 0;
  for (const boost::asio::mutable_buffer& b : buffers) {
    const std::size_t k = std::min(b.size(), available());
    if (k == 0) continue;
    std::memcpy(b.data(), in.data() + in_read, k);
    in_read += k;
    n += k;
  }
  return n;
}

void process_stdio::deliver() {
  if (core == nullptr) return;
  while ((available() > 0 || in_closed) && !reads.empty()) {
    stdio_op* op = reads.front();
    reads.pop_front();
    op->stdio_ = nullptr;
    op->ec_ = {};
    op->bytes_ = 0;
    if (!op->wait_only_) {
      op->bytes_ = take(op->buffers_);
      if (op->bytes_ == 0) op->ec_ = boost::asio::error::eof;
    }
    op->service_->complete(*op);
  }
  if (available() > 0 || in_closed) {
    std::vector<process_wakeup> woken;
    woken.swap(blocked);
    for (const process_wakeup& w : woken) w();
  }
}

std::shared_ptr<process_stdio> calling_stdio(world_core& core) {
  const std::uint32_t owner = core.calling_owner();
  return owner == 0 ? nullptr : core.stdio_of(owner);
}

namespace {

// Whether fd and std_fd are the same open file (a dup of it): kcmp, else
// (kcmp refused, as container sandboxes do) a status flag toggled on one
// and seen on the other, which only a shared open file description shows.
bool same_open_file(int fd, int std_fd) noexcept {
  const pid_t pid = ::getpid();
  const long r = ::syscall(SYS_kcmp, pid, pid, KCMP_FILE, fd, std_fd);
  if (r >= 0) return r == 0;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags == -1 || ::fcntl(std_fd, F_GETFL) != flags) return false;
  if (::fcntl(fd, F_SETFL, flags ^ O_NONBLOCK) == -1) return false;
  const bool same = ::fcntl(std_fd, F_GETFL) == (flags ^ O_NONBLOCK);
  ::fcntl(fd, F_SETFL, flags);
  return same;
}

}  // namespace

bool process_stdio::known_role(int fd, stdio_role& role) const noexcept {
  if (fd >= 0 && fd <= 2) {
    role = static_cast<stdio_role>(fd);
    return true;
  }
  for (const auto& [d, r] : dups) {
    if (d == fd) {
      role = r;
      return true;
    }
  }
  return false;
}

void process_stdio::forget_dup(int fd) noexcept {
  const auto it = std::find_if(dups.begin(), dups.end(), [fd](const auto& d) { return d.first == fd; });
  if (it != dups.end()) dups.erase(it);
}

bool stdio_role_of(process_stdio& s, int fd, stdio_role& role) {
  if (s.known_role(fd, role)) return true;
  if (fd < 0) return false;
  for (int std_fd = 0; std_fd <= 2; ++std_fd) {
    if (same_open_file(fd, std_fd)) {
      role = static_cast<stdio_role>(std_fd);
      s.dups.emplace_back(fd, role);
      return true;
    }
  }
  return false;
}

std::size_t read_stdin(world_core& core, process_stdio& s, const std::vector<boost::asio::mutable_buffer>* buffers,
                       boost::system::error_code& ec) {
  ec = {};
  for (;;) {
    if (s.available() > 0) return buffers != nullptr ? s.take(*buffers) : 0;
    if (s.in_closed) {
      if (buffers != nullptr) ec = boost::asio::error::eof;
      return 0;
    }
    if (!core.in_process()) {
      ec = boost::asio::error::would_block;
      return 0;
    }
    if (!core.may_block()) {
      ec = error::host_down;
      return 0;
    }
    s.blocked.push_back(core.prepare_wait());
    core.waiting_for("a read of standard input (process::write_stdin feeds it)");
    if (!core.suspend()) {
      ec = error::host_down;
      return 0;
    }
  }
}

std::size_t write_stdio(process_stdio& s, stdio_role role, const void* data, std::size_t n) {
  (role == stdio_role::err ? s.err : s.out).append(static_cast<const char*>(data), n);
  return n;
}

std::shared_ptr<process_stdio> adopt_stdio_descriptor(context_state& ctx, int fd, stdio_role& role) {
  world_core& core = *ctx.core;
  std::shared_ptr<process_stdio> s = calling_stdio(core);
  if (!s)
    throw escape_error("simasio: posix::stream_descriptor over descriptor " + std::to_string(fd) +
                       " outside a simulated process: only a process's standard streams are simulated "
                       "descriptors. Run the code as a process (host::spawn or host::spawn_main) and feed it "
                       "with process::write_stdin");
  if (!stdio_role_of(*s, fd, role))
    throw escape_error("simasio: posix::stream_descriptor over descriptor " + std::to_string(fd) +
                       ", which is not one of the process's standard streams (0, 1, 2 or a dup of one): a real "
                       "descriptor is never simulated. " +
                       "Feed the code under test from a simulated peer instead (a net::ip::tcp::socket or "
                       "net::ip::udp::socket to a host of the world)");
  return s;
}

void close_stdio_descriptor(process_stdio& s, int fd) noexcept {
  if (fd <= 2) return;  // the test program's own
  s.forget_dup(fd);
  ::close(fd);
}

// ---- stdio_service ----------------------------------------------------------

stdio_service::stdio_service(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx),
      ctx_(&access::state(sim_context_of(ctx, "posix::stream_descriptor"))) {
  ctx_->sources.push_back(this);
}

stdio_service::~stdio_service() {
  auto& sources = ctx_->sources;
  sources.erase(std::remove(sources.begin(), sources.end(), static_cast<pending_source*>(this)), sources.end());
}

void stdio_service::start_read(process_stdio& s, stdio_op& op) {
  op.stdio_ = &s;
  s.reads.push_back(&op);
  pending_.push_back(&op);
  s.deliver();
}

void stdio_service::complete(stdio_op& op) {
  pending_.erase(std::remove(pending_.begin(), pending_.end(), &op), pending_.end());
  ctx_->core->post_ready(*ctx_, &op);
}

void stdio_service::cancel_op(stdio_op& op) noexcept {
  if (op.stdio_ == nullptr) return;
  auto& reads = op.stdio_->reads;
  reads.erase(std::remove(reads.begin(), reads.end(), &op), reads.end());
  op.stdio_ = nullptr;
  op.ec_ = boost::asio::error::operation_aborted;
  op.bytes_ = 0;
  pending_.erase(std::remove(pending_.begin(), pending_.end(), &op), pending_.end());
  if (ctx_->core != nullptr) ctx_->core->post_ready(*ctx_, &op);
}

std::size_t stdio_service::cancel(process_stdio& s) noexcept {
  std::vector<stdio_op*> mine;
  for (stdio_op* op : pending_)
    if (op->stdio_ == &s) mine.push_back(op);
  for (stdio_op* op : mine) cancel_op(*op);
  return mine.size();
}

void stdio_service::abandon() noexcept {
  std::vector<stdio_op*> ops;
  ops.swap(pending_);
  for (stdio_op* op : ops) {
    if (op->stdio_ != nullptr) {
      auto& reads = op->stdio_->reads;
      reads.erase(std::remove(reads.begin(), reads.end(), op), reads.end());
      op->stdio_ = nullptr;
    }
    op->destroy();
    --ctx_->work;
  }
}

void stdio_service::describe(std::vector<std::string>& out) const {
  for (std::size_t i = 0; i < pending_.size(); ++i)
    out.push_back("posix::stream_descriptor read of standard input (process::write_stdin feeds it, "
                  "process::close_stdin ends it)");
}

}  // namespace simasio::detail

// ---- simasio::interpose: read(), write(), dup() and close() of the standard streams ----

namespace simasio::detail::interpose {

namespace {

// The calling process's streams and fd's role there: 0, 1, 2 or a recorded dup.
std::shared_ptr<process_stdio> stdio_for(int fd, stdio_role& role) {
  world_core* core = running_core_tls;
  if (core == nullptr || fd < 0) return nullptr;
  std::shared_ptr<process_stdio> s = calling_stdio(*core);
  return s && s->known_role(fd, role) ? s : nullptr;
}

}  // namespace

bool stdio_read(int fd, void* buf, std::size_t n, long& result) {
  stdio_role role{};
  const std::shared_ptr<process_stdio> s = stdio_for(fd, role);
  if (!s) return false;
  if (role != stdio_role::in) {
    errno = EBADF;  // the write end of a pipe
    result = -1;
    return true;
  }
  if (n == 0) {
    result = 0;
    return true;
  }
  const std::vector<boost::asio::mutable_buffer> buffers{boost::asio::mutable_buffer(buf, n)};
  boost::system::error_code ec;
  const std::size_t got = read_stdin(*running_core_tls, *s, &buffers, ec);
  if (ec == boost::asio::error::would_block) {
    errno = EAGAIN;  // a handler, not the process's own stack: it cannot block
    result = -1;
    return true;
  }
  if (ec && ec != boost::asio::error::eof) {
    errno = EIO;  // its host is going down
    result = -1;
    return true;
  }
  result = static_cast<long>(got);
  return true;
}

bool stdio_unget(unsigned char ch) noexcept {
  stdio_role role{};
  const std::shared_ptr<process_stdio> s = stdio_for(0, role);
  if (!s || role != stdio_role::in) return false;
  if (s->in_read > 0) {
    s->in[--s->in_read] = static_cast<char>(ch);
  } else {
    try {
      s->in.insert(s->in.begin(), static_cast<char>(ch));
    } catch (...) {
      return false;
    }
  }
  return true;
}

bool stdio_write(int fd, const void* buf, std::size_t n, long& result) {
  stdio_role role{};
  const std::shared_ptr<process_stdio> s = stdio_for(fd, role);
  if (!s) return false;
  if (role == stdio_role::in) {
    errno = EBADF;  // the read end of a pipe
    result = -1;
    return true;
  }
  result = static_cast<long>(write_stdio(*s, role, buf, n));
  return true;
}

void stdio_dup(int from, int to) noexcept {
  stdio_role role{};
  if (const std::shared_ptr<process_stdio> s = stdio_for(from, role)) s->dups.emplace_back(to, role);
}

void stdio_close(int fd) noexcept {
  if (fd <= 2) return;
  stdio_role role{};
  if (const std::shared_ptr<process_stdio> s = stdio_for(fd, role)) s->forget_dup(fd);
}

}  // namespace simasio::detail::interpose
