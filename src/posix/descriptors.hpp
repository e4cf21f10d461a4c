// descriptors.hpp — a simulated process's POSIX descriptors: sockets, pipes, eventfds, timerfds, epoll (not installed)
//
// With simasio::interpose, socket(), pipe(), eventfd(), timerfd_create()
// and epoll_create1() called by a simulated process's code make simulated
// descriptors: each holds a real descriptor of /dev/null underneath, so its
// number is taken in the test program and nothing else gets it, and an
// object here serves every call on it. Several descriptors (dup) share one
// object, as they share one open file description in Linux.
//
// Readiness is Linux's poll mask, computed when asked. An object that may
// have changed (data arrived, a peer closed, a counter moved) calls
// changed(): the processes blocked on it wake and look again, and the epoll
// sets watching it put it on their ready lists. Timers need no event of
// their own: a waiter's deadline includes the next instant a timerfd it
// watches expires.
#ifndef SIMASIO_SRC_POSIX_DESCRIPTORS_HPP
#define SIMASIO_SRC_POSIX_DESCRIPTORS_HPP

#include <simasio/detail/fifo.hpp>
#include <simasio/detail/net/socket_state.hpp>
#include <simasio/detail/world_core.hpp>

#include <cerrno>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <sys/socket.h>

namespace simasio::detail::posix {

// A failed call's result: -1, with errno set to e.
inline int fail(int e) noexcept {
  errno = e;
  return -1;
}

// A sockaddr (AF_INET or AF_INET6) as the network's endpoint; false with e
// set (EINVAL: too short or null, EAFNOSUPPORT: another family) when it is none.
bool endpoint_of(const sockaddr* a, socklen_t len, net_endpoint& ep, int& e) noexcept;

enum class desc_kind : std::uint8_t { socket, stream_end, eventfd, timerfd, epoll };

struct epoll_item;

struct desc_object {
  desc_object(desc_kind k, world_core& c, std::uint32_t o) noexcept : kind(k), core(&c), owner(o) {}
  virtual ~desc_object();
  desc_object(const desc_object&) = delete;
  desc_object& operator=(const desc_object&) = delete;

  // poll()'s mask now: POLLIN, POLLOUT, POLLERR, POLLHUP, POLLRDHUP.
  virtual unsigned events() const noexcept = 0;
  // The next world time its readiness changes by itself (a timerfd's
  // expiry), or duration::max().
  virtual duration next_change() const noexcept { return duration::max(); }
  // read()/write() of it without waiting: the byte count, or -errno
  // (-EAGAIN when it would have to wait).
  virtual long read_some(void* buf, std::size_t n) = 0;
  virtual long write_some(const void* buf, std::size_t n) = 0;
  // A timerfd whose expiry came gives its edge to the epoll sets watching
  // it (changed()); called by epoll_wait before it collects.
  virtual void catch_up() noexcept {}
  // Its last descriptor is closed.
  virtual void last_close() noexcept {}
  // Readiness may have changed: waiters wake, epoll sets take note.
  void changed() noexcept;

  desc_kind kind;
  world_core* core;
  std::uint32_t owner;        // the process group that made it, + 1
  bool non_blocking = false;  // O_NONBLOCK: the open file description's
  int refs = 0;               // descriptors naming it
  std::vector<process_wakeup> waiters;
  std::vector<epoll_item*> watchers;
};

// The descriptor fd, when it is a simulated one of the running world.
desc_object* find(int fd) noexcept;
// The same, held: a call that may wait keeps its object alive though
// another thread closes the descriptor meanwhile.
std::shared_ptr<desc_object> shared(int fd) noexcept;
// A new descriptor for obj (a placeholder of /dev/null underneath); -1 with
// errno EMFILE when the test program is out of descriptors.
int install(std::shared_ptr<desc_object> obj, bool cloexec);
// Whose code calls: its group + 1 (0: none, and no descriptor may be made).
std::uint32_t caller(world_core& c) noexcept;

// Waits, in a process, until `ready()` or world time `deadline`, waking
// whenever one of `objs` changes (and at their next_change()). Returns
// true when ready() holds; false at the deadline, or with errno set when
// it may not wait (EAGAIN: a handler, which cannot block; EINTR: a dying
// process). Throws process_exit when the host crashed meanwhile.
template <class Ready>
bool wait_for(world_core& c, const std::vector<desc_object*>& objs, duration deadline, const char* what,
              Ready&& ready);
bool block_on(world_core& c, const std::vector<desc_object*>& objs, duration deadline, const char* what);

template <class Ready>
bool wait_for(world_core& c, const std::vector<desc_object*>& objs, duration deadline, const char* what,
              Ready&& ready) {
  for (;;) {
    if (ready()) return true;
    if (c.now() >= deadline) return false;
    if (!block_on(c, objs, deadline, what)) return false;
  }
}

// A relative timeout in milliseconds (poll, epoll_wait; negative: none)
// or nanoseconds, as a world-time deadline.
duration deadline_ms(world_core& c, long long ms) noexcept;
duration deadline_ns(world_core& c, long long ns) noexcept;

// A pipe's (or one direction of a socketpair's) bytes.
struct stream_buffer {
  static constexpr std::size_t capacity = 65536;  // Linux's default pipe size
  fifo<char> bytes;
  desc_object* reader = nullptr;  // the end reading it, while open
  desc_object* writer = nullptr;
  bool reader_gone = false;
  bool writer_gone = false;
};

// ---- epoll (events.cpp) --------------------------------------------------------
struct epoll_set;
struct epoll_item {
  epoll_set* set = nullptr;
  int fd = -1;
  desc_object* obj = nullptr;
  std::uint32_t interest = 0;  // EPOLLIN | EPOLLOUT | ... | EPOLLET | EPOLLONESHOT
  std::uint64_t data = 0;
  bool on_ready_list = false;
};
// Takes obj out of every epoll set (its last descriptor closed).
void forget_watchers(desc_object& obj) noexcept;
// Puts item on its set's ready list (obj changed, or was just added).
void mark_ready(epoll_item& item) noexcept;

// The descriptors left open by a process group that ended, or by a world
// that ends: closed as the kernel closes them.
void close_owned(world_core& c, std::uint32_t owner) noexcept;
void forget_world(world_core& c) noexcept;

}  // namespace simasio::detail::posix

#endif  // SIMASIO_SRC_POSIX_DESCRIPTORS_HPP
