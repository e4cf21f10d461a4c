// descriptors.cpp — the descriptor table of simulated processes, and the calls every kind shares
//
// close, dup/dup2/dup3, fcntl, ioctl(FIONBIO, FIONREAD), fstat, read, write,
// readv and writev on a simulated descriptor; pipes, socketpairs, eventfds
// and timerfds (the objects that are not sockets or epoll sets); and the
// one way a call waits: block_on.
#include "descriptors.hpp"

#include <simasio/clock.hpp>
#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/interpose.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

namespace simasio::detail::posix {

namespace {

struct entry {
  std::shared_ptr<desc_object> obj;
  world_core* core = nullptr;
  bool cloexec = false;
};

// Indexed by descriptor number. close() and read() run during static
// destruction too, after this thread's table is gone: the flag says so.
thread_local bool table_alive = true;
struct descriptor_table {
  std::vector<entry> slots;
  ~descriptor_table() { table_alive = false; }
};
thread_local descriptor_table table;

entry* slot(int fd) noexcept {
  if (!table_alive || fd < 0 || static_cast<std::size_t>(fd) >= table.slots.size()) return nullptr;
  entry& e = table.slots[static_cast<std::size_t>(fd)];
  return e.obj ? &e : nullptr;
}

int placeholder() noexcept {
  return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC));
}

void raw_close(int fd) noexcept { ::syscall(SYS_close, fd); }

// Drops descriptor fd's reference; the object's last one closes it.
void release(int fd) noexcept {
  entry& e = table.slots[static_cast<std::size_t>(fd)];
  std::shared_ptr<desc_object> obj = std::move(e.obj);
  e = entry{};
  if (--obj->refs == 0) {
    forget_watchers(*obj);
    obj->last_close();
    obj->changed();
  }
}

}  // namespace

desc_object::~desc_object() = default;

void desc_object::changed() noexcept {
  for (const process_wakeup& w : std::exchange(waiters, {})) w();
  for (epoll_item* item : watchers) mark_ready(*item);
}

desc_object* find(int fd) noexcept {
  entry* e = slot(fd);
  return e != nullptr && e->core == running_core_tls ? e->obj.get() : nullptr;
}

std::shared_ptr<desc_object> shared(int fd) noexcept {
  entry* e = slot(fd);
  return e != nullptr && e->core == running_core_tls ? e->obj : nullptr;
}

int install(std::shared_ptr<desc_object> obj, bool cloexec) {
  const int fd = placeholder();
  if (fd < 0) return -1;
  if (static_cast<std::size_t>(fd) >= table.slots.size()) table.slots.resize(static_cast<std::size_t>(fd) + 16);
  ++obj->refs;
  table.slots[static_cast<std::size_t>(fd)] = entry{std::move(obj), running_core_tls, cloexec};
  return fd;
}

std::uint32_t caller(world_core& c) noexcept { return c.calling_owner(); }

bool block_on(world_core& c, const std::vector<desc_object*>& objs, duration deadline, const char* what) {
  if (!c.in_process()) {
    // A handler of a process's io_context: the world runs on this stack, so it cannot wait.
    c.refuse((std::string("simasio: ") + what +
              " would block in a handler of a simulated process's io_context; the handler runs on the world's own "
              "stack, where nothing can wait. Make the descriptor non-blocking (O_NONBLOCK, SOCK_NONBLOCK) in "
              "handlers, or make the call on the process's own stack (its main() or a thread of it).")
                 .c_str());
    errno = EAGAIN;
    return false;
  }
  if (!c.may_block()) {
    errno = EINTR;
    return false;
  }
  const process_wakeup wake = c.prepare_wait();
  duration until = deadline;
  for (desc_object* o : objs) {
    o->waiters.push_back(wake);
    until = std::min(until, o->next_change());
  }
  const bool ok = c.block_until(until, what);
  if (!ok) errno = EINTR;
  return ok;
}

duration deadline_ms(world_core& c, long long ms) noexcept {
  if (ms < 0) return duration::max();
  return deadline_after(c.now(), std::chrono::milliseconds(ms));
}

duration deadline_ns(world_core& c, long long ns) noexcept {
  if (ns < 0) return duration::max();
  return deadline_after(c.now(), duration(ns));
}

void close_owned(world_core& c, std::uint32_t owner) noexcept {
  if (!table_alive) return;
  for (std::size_t fd = 0; fd < table.slots.size(); ++fd) {
    entry& e = table.slots[fd];
    if (e.obj && e.core == &c && e.obj->owner == owner) {
      release(static_cast<int>(fd));
      raw_close(static_cast<int>(fd));
    }
  }
}

void forget_world(world_core& c) noexcept {
  if (!table_alive) return;
  for (std::size_t fd = 0; fd < table.slots.size(); ++fd) {
    entry& e = table.slots[fd];
    if (e.obj && e.core == &c) {
      release(static_cast<int>(fd));
      raw_close(static_cast<int>(fd));
    }
  }
}

// ---- pipes and socketpairs ----------------------------------------------------------

namespace {

// One end: reads `in`, writes `out` (a pipe's end has one of them).
struct stream_end final : desc_object {
  stream_end(world_core& c, std::uint32_t o, std::shared_ptr<stream_buffer> i, std::shared_ptr<stream_buffer> w)
      : desc_object(desc_kind::stream_end, c, o), in(std::move(i)), out(std::move(w)) {
    if (in) in->reader = this;
    if (out) out->writer = this;
  }
  std::shared_ptr<stream_buffer> in, out;
  bool socket = false;  // a socketpair's end (send/recv work on it; a closed peer is EPIPE, not SIGPIPE)

  unsigned events() const noexcept override {
    unsigned m = 0;
    if (in) {
      if (!in->bytes.empty()) m |= POLLIN;
      if (in->writer_gone) m |= socket ? (POLLIN | POLLRDHUP) : POLLHUP;
    }
    if (out) {
      if (out->reader_gone) m |= socket ? POLLOUT : POLLERR;
      else if (out->bytes.size() < stream_buffer::capacity) m |= POLLOUT;
    }
    if (socket && in && out && in->writer_gone && out->reader_gone) m |= POLLHUP;
    return m;
  }
  long read_some(void* buf, std::size_t n) override {
    if (!in) return -EBADF;
    if (in->bytes.empty()) return in->writer_gone || n == 0 ? 0 : -EAGAIN;
    const std::size_t k = std::min(n, in->bytes.size());
    std::memcpy(buf, in->bytes.data(), k);
    in->bytes.pop_front(k);
    if (in->writer != nullptr) in->writer->changed();
    return static_cast<long>(k);
  }
  long write_some(const void* buf, std::size_t n) override {
    if (!out) return -EBADF;
    if (out->reader_gone) return -EPIPE;
    if (n == 0) return 0;
    const std::size_t room = stream_buffer::capacity - std::min(stream_buffer::capacity, out->bytes.size());
    if (room == 0) return -EAGAIN;
    const std::size_t k = std::min(n, room);
    const char* p = static_cast<const char*>(buf);
    out->bytes.append(p, p + k);
    if (out->reader != nullptr) out->reader->changed();
    return static_cast<long>(k);
  }
  void last_close() noexcept override {
    if (in) {
      in->reader = nullptr;
      in->reader_gone = true;
      if (in->writer != nullptr) in->writer->changed();
    }
    if (out) {
      out->writer = nullptr;
      out->writer_gone = true;
      if (out->reader != nullptr) out->reader->changed();
    }
  }
};

// ---- eventfd ------------------------------------------------------------------------------

struct event_counter final : desc_object {
  event_counter(world_core& c, std::uint32_t o, std::uint64_t v, bool sem)
      : desc_object(desc_kind::eventfd, c, o), value(v), semaphore(sem) {}
  static constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max() - 1;
  std::uint64_t value;
  bool semaphore;

  unsigned events() const noexcept override { return (value > 0 ? POLLIN : 0u) | (value < max ? POLLOUT : 0u); }
  long read_some(void* buf, std::size_t n) override {
    if (n < sizeof(std::uint64_t)) return -EINVAL;
    if (value == 0) return -EAGAIN;
    const std::uint64_t v = semaphore ? 1 : value;
    value -= v;
    std::memcpy(buf, &v, sizeof v);
    changed();
    return sizeof v;
  }
  long write_some(const void* buf, std::size_t n) override {
    if (n < sizeof(std::uint64_t)) return -EINVAL;
    std::uint64_t v;
    std::memcpy(&v, buf, sizeof v);
    if (v == std::numeric_limits<std::uint64_t>::max()) return -EINVAL;
    if (max - value < v) return -EAGAIN;
    value += v;
    changed();
    return sizeof v;
  }
};

// ---- timerfd ------------------------------------------------------------------------------

struct timer_desc final : desc_object {
  timer_desc(world_core& c, std::uint32_t o, int clk, host_state* h)
      : desc_object(desc_kind::timerfd, c, o), clock(clk), host(h) {}
  int clock;
  host_state* host;
  duration deadline = duration::max();  // world time of the next expiry
  duration interval{0};
  std::uint64_t pending = 0;  // expiries counted before a re-arm
  bool signalled = false;     // this expiry's edge was given to epoll sets
  int registered_fd = -1;     // told to the world (set_real_timerfd)

  // An expiry is an edge for the epoll sets watching it: given when one of
  // them next looks (no event of its own keeps the world going).
  void catch_up() noexcept override {
    if (!signalled && deadline != duration::max() && core->now() >= deadline) {
      signalled = true;
      changed();
    }
  }
  void last_close() noexcept override {
    if (registered_fd >= 0) core->set_real_timerfd(registered_fd, duration::max(), true);
  }

  std::uint64_t expiries() const noexcept {
    std::uint64_t n = pending;
    if (deadline != duration::max() && core->now() >= deadline) {
      n += 1;
      if (interval > duration::zero()) n += static_cast<std::uint64_t>((core->now() - deadline) / interval);
    }
    return n;
  }
  unsigned events() const noexcept override { return expiries() > 0 ? POLLIN : 0u; }
  duration next_change() const noexcept override {
    return pending == 0 && deadline != duration::max() && core->now() < deadline ? deadline : duration::max();
  }
  long read_some(void* buf, std::size_t n) override {
    if (n < sizeof(std::uint64_t)) return -EINVAL;
    const std::uint64_t k = expiries();
    if (k == 0) return -EAGAIN;
    if (deadline != duration::max() && core->now() >= deadline)
      deadline = interval > duration::zero() ? deadline + interval * static_cast<std::int64_t>(k - pending) : duration::max();
    pending = 0;
    signalled = false;
    std::memcpy(buf, &k, sizeof k);
    return sizeof k;
  }
  long write_some(const void*, std::size_t) override { return -EINVAL; }
  // The host's clock reading of world time w, in ns on this timer's clock.
  std::int64_t local(duration w) const noexcept {
    std::int64_t ns = host != nullptr ? host->local_from_world(w.count()) : w.count();
    if (clock == CLOCK_REALTIME) ns += std::chrono::duration_cast<std::chrono::nanoseconds>(system_clock::epoch).count();
    else ns += steady_boot_ns();
    return ns;
  }
  duration world(std::int64_t local_ns) const noexcept {
    if (clock == CLOCK_REALTIME)
      local_ns -= std::chrono::duration_cast<std::chrono::nanoseconds>(system_clock::epoch).count();
    else
      local_ns -= steady_boot_ns();
    return duration(host != nullptr ? host->world_from_local(local_ns) : local_ns);
  }
};

host_state* calling_host(world_core& c) noexcept {
  if (c.in_process()) return &access::state(c.process_host());
  return c.current() != nullptr ? c.current()->host : nullptr;
}

std::int64_t ns_of(const timespec& t) noexcept { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }
timespec ts_of(std::int64_t ns) noexcept {
  if (ns < 0) ns = 0;
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

}  // namespace simasio::detail::posix

namespace simasio::detail::interpose {

using posix::desc_object;

bool makes_descriptors() noexcept { return active() && running_core_tls->calling_owner() != 0; }

bool sim_desc(int fd) noexcept { return running_core_tls != nullptr && posix::find(fd) != nullptr; }

int desc_close(int fd) noexcept {
  if (posix::find(fd) == nullptr) return posix::fail(EBADF);
  posix::release(fd);
  posix::raw_close(fd);
  return 0;
}

namespace {

// read/write of any simulated descriptor: waits in a blocking one.
template <class Op>
long transfer(int fd, bool reading, Op&& op) {
  const std::shared_ptr<desc_object> keep = posix::shared(fd);  // alive though another thread closes fd
  desc_object* d = keep.get();
  if (d == nullptr) return posix::fail(EBADF);
  world_core& c = *d->core;
  long r = 0;
  const bool done = posix::wait_for(c, {d}, duration::max(), reading ? "a read() of a pipe, eventfd or timerfd"
                                                                       : "a write() to a full pipe", [&] {
    r = op(*d);
    return r != -EAGAIN || d->non_blocking;
  });
  if (!done) return -1;
  if (r < 0) {
    if (r == -EPIPE && !(d->kind == posix::desc_kind::stream_end && static_cast<posix::stream_end*>(d)->socket))
      process_raise(SIGPIPE);
    return posix::fail(static_cast<int>(-r));
  }
  return r;
}

}  // namespace

long desc_read(int fd, void* buf, std::size_t n) {
  desc_object* d = posix::find(fd);
  if (d != nullptr && d->kind == posix::desc_kind::socket) {
    iovec v{buf, n};
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    return posix_recvmsg(fd, &m, 0);
  }
  return transfer(fd, true, [&](desc_object& o) { return o.read_some(buf, n); });
}

long desc_write(int fd, const void* buf, std::size_t n) {
  desc_object* d = posix::find(fd);
  if (d != nullptr && d->kind == posix::desc_kind::socket) {
    iovec v{const_cast<void*>(buf), n};
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    return posix_sendmsg(fd, &m, 0);
  }
  return transfer(fd, false, [&](desc_object& o) { return o.write_some(buf, n); });
}

long desc_readv(int fd, const iovec* iov, int n) {
  desc_object* d = posix::find(fd);
  if (d != nullptr && d->kind == posix::desc_kind::socket) {
    msghdr m{};
    m.msg_iov = const_cast<iovec*>(iov);
    m.msg_iovlen = static_cast<std::size_t>(n);
    return posix_recvmsg(fd, &m, 0);
  }
  // A pipe: the first non-empty buffer (what Asio's descriptors pass is one).
  for (int i = 0; i < n; ++i)
    if (iov[i].iov_len > 0) return desc_read(fd, iov[i].iov_base, iov[i].iov_len);
  return desc_read(fd, nullptr, 0);
}

long desc_writev(int fd, const iovec* iov, int n) {
  desc_object* d = posix::find(fd);
  if (d != nullptr && d->kind == posix::desc_kind::socket) {
    msghdr m{};
    m.msg_iov = const_cast<iovec*>(iov);
    m.msg_iovlen = static_cast<std::size_t>(n);
    return posix_sendmsg(fd, &m, 0);
  }
  std::vector<char> all;
  for (int i = 0; i < n; ++i) {
    const char* p = static_cast<const char*>(iov[i].iov_base);
    all.insert(all.end(), p, p + iov[i].iov_len);
  }
  return desc_write(fd, all.data(), all.size());
}

int desc_dup(int fd, int to, int flags) {
  if (posix::find(fd) == nullptr) return posix::fail(EBADF);
  std::shared_ptr<desc_object> obj = posix::table.slots[static_cast<std::size_t>(fd)].obj;
  if (to < 0) return posix::install(std::move(obj), (flags & O_CLOEXEC) != 0);
  if (to == fd) return to;
  // dup2 over a descriptor: it closes first (a real one too); the number is
  // then a placeholder of /dev/null.
  if (posix::find(to) != nullptr) posix::release(to);
  const int p = posix::placeholder();
  if (p < 0) return -1;
  if (::syscall(SYS_dup3, p, to, O_CLOEXEC) < 0) {
    const int e = errno;
    posix::raw_close(p);
    return posix::fail(e);
  }
  posix::raw_close(p);
  if (static_cast<std::size_t>(to) >= posix::table.slots.size()) posix::table.slots.resize(static_cast<std::size_t>(to) + 16);
  ++obj->refs;
  posix::table.slots[static_cast<std::size_t>(to)] = posix::entry{std::move(obj), running_core_tls, (flags & O_CLOEXEC) != 0};
  return to;
}

int desc_fcntl(int fd, int cmd, long arg) {
  posix::entry* e = posix::slot(fd);
  if (e == nullptr || e->core != running_core_tls) return posix::fail(EBADF);
  desc_object& d = *e->obj;
  switch (cmd) {
    case F_GETFL: {
      int fl = O_RDWR;
      if (d.kind == posix::desc_kind::stream_end) {
        const auto& s = static_cast<const posix::stream_end&>(d);
        fl = s.in && s.out ? O_RDWR : s.in ? O_RDONLY : O_WRONLY;
      }
      return fl | (d.non_blocking ? O_NONBLOCK : 0);
    }
    case F_SETFL:
      d.non_blocking = (arg & O_NONBLOCK) != 0;
      return 0;
    case F_GETFD: return e->cloexec ? FD_CLOEXEC : 0;
    case F_SETFD:
      e->cloexec = (arg & FD_CLOEXEC) != 0;
      return 0;
    case F_DUPFD:
    case F_DUPFD_CLOEXEC: return desc_dup(fd, -1, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0);
    case F_GETPIPE_SZ: return d.kind == posix::desc_kind::stream_end ? static_cast<int>(posix::stream_buffer::capacity) : posix::fail(EBADF);
    default: return posix::fail(EINVAL);
  }
}

int desc_ioctl(int fd, unsigned long request, void* arg) {
  desc_object* d = posix::find(fd);
  if (d == nullptr) return posix::fail(EBADF);
  switch (request) {
    case FIONBIO:
      d->non_blocking = *static_cast<const int*>(arg) != 0;
      return 0;
    case FIONREAD: {
      int n = 0;
      if (d->kind == posix::desc_kind::socket) {
        n = socket_available(*d);
        if (n < 0) return posix::fail(-n);
      }
      else if (d->kind == posix::desc_kind::stream_end) {
        const auto& s = static_cast<const posix::stream_end&>(*d);
        n = s.in ? static_cast<int>(s.in->bytes.size()) : 0;
      } else {
        return posix::fail(EINVAL);
      }
      *static_cast<int*>(arg) = n;
      return 0;
    }
    case FIOCLEX:
    case FIONCLEX: return desc_fcntl(fd, F_SETFD, request == FIOCLEX ? FD_CLOEXEC : 0);
    default: return posix::fail(ENOTTY);
  }
}

int desc_fstat(int fd, struct stat* st) {
  desc_object* d = posix::find(fd);
  if (d == nullptr) return posix::fail(EBADF);
  std::memset(st, 0, sizeof *st);
  const bool sock = d->kind == posix::desc_kind::socket ||
                    (d->kind == posix::desc_kind::stream_end && static_cast<posix::stream_end*>(d)->socket);
  st->st_mode = sock ? (S_IFSOCK | 0777) : d->kind == posix::desc_kind::stream_end ? (S_IFIFO | 0600) : 0600;
  st->st_nlink = 1;
  st->st_ino = static_cast<ino_t>(fd) + 1;
  st->st_blksize = 4096;
  return 0;
}

int posix_pipe(int* fds, int flags, bool socket_pair) {
  world_core& c = *running_core_tls;
  const std::uint32_t owner = posix::caller(c);
  auto a = std::make_shared<posix::stream_buffer>();
  std::shared_ptr<posix::stream_buffer> b = socket_pair ? std::make_shared<posix::stream_buffer>() : nullptr;
  std::shared_ptr<posix::stream_end> r, w;
  if (socket_pair) {
    r = std::make_shared<posix::stream_end>(c, owner, a, b);
    w = std::make_shared<posix::stream_end>(c, owner, b, a);
    r->socket = w->socket = true;
  } else {
    r = std::make_shared<posix::stream_end>(c, owner, a, nullptr);
    w = std::make_shared<posix::stream_end>(c, owner, nullptr, a);
  }
  r->non_blocking = w->non_blocking = (flags & O_NONBLOCK) != 0;
  const bool cloexec = (flags & O_CLOEXEC) != 0;
  const int f0 = posix::install(r, cloexec);
  if (f0 < 0) return -1;
  const int f1 = posix::install(w, cloexec);
  if (f1 < 0) {
    const int e = errno;
    desc_close(f0);
    return posix::fail(e);
  }
  fds[0] = f0;
  fds[1] = f1;
  return 0;
}

int posix_eventfd(unsigned initval, int flags) {
  world_core& c = *running_core_tls;
  auto e = std::make_shared<posix::event_counter>(c, posix::caller(c), initval, (flags & EFD_SEMAPHORE) != 0);
  e->non_blocking = (flags & EFD_NONBLOCK) != 0;
  return posix::install(std::move(e), (flags & EFD_CLOEXEC) != 0);
}

long eventfd_io(int fd, std::uint64_t* value, bool reading) {
  return reading ? desc_read(fd, value, sizeof *value) : desc_write(fd, value, sizeof *value);
}

int posix_timerfd_create(int clock, int flags) {
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_BOOTTIME) return posix::fail(EINVAL);
  world_core& c = *running_core_tls;
  auto t = std::make_shared<posix::timer_desc>(c, posix::caller(c), clock, posix::calling_host(c));
  t->non_blocking = (flags & TFD_NONBLOCK) != 0;
  return posix::install(std::move(t), (flags & TFD_CLOEXEC) != 0);
}

int posix_timerfd_settime(int fd, int flags, const itimerspec* value, itimerspec* old) {
  desc_object* d = posix::find(fd);
  if (d == nullptr) return posix::fail(EBADF);
  if (d->kind != posix::desc_kind::timerfd) return posix::fail(EINVAL);
  auto& t = static_cast<posix::timer_desc&>(*d);
  if (old != nullptr) posix_timerfd_gettime(fd, old);
  const std::int64_t v = posix::ns_of(value->it_value);
  t.pending = 0;
  t.signalled = false;
  t.registered_fd = fd;
  t.interval = duration(posix::ns_of(value->it_interval));
  if (v == 0) {
    t.deadline = duration::max();
  } else {
    const std::int64_t local = (flags & TFD_TIMER_ABSTIME) != 0 ? v : t.local(t.core->now()) + v;
    t.deadline = std::max(t.world(local), t.core->now());
  }
  // Asio's reactor serving a simulated io_context is polled, not waited on:
  // the world polls it when this deadline comes (support.cpp).
  t.core->set_real_timerfd(fd, t.deadline, true);
  t.changed();
  return 0;
}

int posix_timerfd_gettime(int fd, itimerspec* value) {
  desc_object* d = posix::find(fd);
  if (d == nullptr) return posix::fail(EBADF);
  if (d->kind != posix::desc_kind::timerfd) return posix::fail(EINVAL);
  const auto& t = static_cast<const posix::timer_desc&>(*d);
  value->it_interval = posix::ts_of(t.interval.count());
  value->it_value = t.deadline == duration::max() ? timespec{} : posix::ts_of((t.deadline - t.core->now()).count());
  return 0;
}

}  // namespace simasio::detail::interpose
