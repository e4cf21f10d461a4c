// sockets.cpp — simasio::interpose for sockets and event descriptors: the system-call boundary of a simulated process
//
// While a world runs on the calling thread:
//   in a simulated process's code (its stack, or a handler of an
//   io_context it made), socket, socketpair, pipe, pipe2, eventfd,
//   timerfd_create, epoll_create and epoll_create1 make simulated
//   descriptors of its host (src/posix/), and every call on one of them is
//   served there: bind, listen, accept, accept4, connect, send, sendto,
//   sendmsg, sendmmsg, recv, recvfrom, recvmsg, recvmmsg, read, write,
//   readv, writev, shutdown, getsockopt, setsockopt, getsockname,
//   getpeername, ioctl, fcntl, dup, dup2, dup3, close, poll, ppoll, select,
//   pselect, epoll_ctl, epoll_wait, epoll_pwait, eventfd_read,
//   eventfd_write, timerfd_settime, timerfd_gettime (read, write, close,
//   dup, fcntl and fstat in files.cpp); getaddrinfo, getnameinfo,
//   gethostbyname(_r) and gethostname answer from the world's host names.
//   So Boost.Asio's own io_context (its epoll reactor, eventfd interrupter
//   and timerfd), libcurl or a blocking server library run unchanged on
//   the simulated network.
//   Elsewhere (a handler of an io_context no process made, the test body
//   while a world runs) socket, socketpair, connect, send*, getaddrinfo,
//   getnameinfo and gethostbyname are refused before they reach the
//   kernel, as a real socket would reach real hosts.
// Without a world, every call is libc's.
#include <simasio/detail/interpose.hpp>

#include "real_symbol.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <string>
#include <type_traits>

#include <dlfcn.h>
#include <netdb.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

namespace __sanitizer {
[[gnu::weak]] bool IsAccessibleMemoryRange(unsigned long beg, unsigned long size);
}

namespace {

namespace sim = simasio::detail::interpose;

constexpr const char* socket_advice =
    "A real socket would reach real hosts on real time, outside the seed's control. Run the code as a process of a "
    "host (host.spawn(...) or host.spawn_main(...)), where POSIX sockets, poll, epoll and Boost.Asio's own "
    "io_context are simulated; or use simasio's sockets and resolver (`namespace net = simasio::asio;`).";

void refuse(const char* call) noexcept {
  try {
    sim::refuse((std::string("simasio: ") + call +
                 " was called while a simulated world runs on this thread, outside a simulated process; "
                 "simasio::interpose refused it before it reached the kernel. " + socket_advice)
                    .c_str());
  } catch (...) {
    sim::refuse("simasio: a refused socket call (simasio::interpose) while a simulated world runs");
  }
}

int refused(const char* call) noexcept {
  refuse(call);
  errno = EPERM;
  return -1;
}

long long ns_of(const timespec* t) noexcept {
  return t == nullptr ? -1 : static_cast<long long>(t->tv_sec) * 1'000'000'000 + t->tv_nsec;
}

long long ns_of_ms(int ms) noexcept { return ms < 0 ? -1 : static_cast<long long>(ms) * 1'000'000; }

// UBSan's dynamic type check asks whether memory is readable by writing it
// into a pipe() it makes, then closes the pipe with raw system calls: that
// pipe must be the kernel's, in a process too. A weak reference: null when
// no sanitizer runtime is linked.
bool from_sanitizer(const void* return_address) noexcept {
  const auto* f = reinterpret_cast<const char*>(&__sanitizer::IsAccessibleMemoryRange);
  const auto* r = static_cast<const char*>(return_address);
  return f != nullptr && r >= f && r < f + 1024;
}

int real_poll_one(pollfd* fds, unsigned long n, int timeout) {
  return static_cast<int>(::syscall(SYS_poll, fds, n, timeout));
}

}  // namespace

extern "C" {

// ---- making descriptors ----------------------------------------------------------

int socket(int domain, int type, int protocol) __THROW {
  if (sim::makes_descriptors()) return sim::posix_socket(domain, type, protocol);
  if (sim::active()) return refused("socket()");
  SIMASIO_REAL(socket, int (*)(int, int, int));
  return real_socket != nullptr ? real_socket(domain, type, protocol)
                                : static_cast<int>(::syscall(SYS_socket, domain, type, protocol));
}

int socketpair(int domain, int type, int protocol, int sv[2]) __THROW {
  if (sim::makes_descriptors()) return sim::posix_socketpair(domain, type, protocol, sv);
  if (sim::active()) return refused("socketpair()");
  SIMASIO_REAL(socketpair, int (*)(int, int, int, int*));
  return real_socketpair(domain, type, protocol, sv);
}

int pipe(int fds[2]) __THROW {
  if (sim::makes_descriptors() && !from_sanitizer(__builtin_return_address(0))) return sim::posix_pipe(fds, 0);
  SIMASIO_REAL(pipe, int (*)(int*));
  return real_pipe(fds);
}

int pipe2(int fds[2], int flags) __THROW {
  if (sim::makes_descriptors() && !from_sanitizer(__builtin_return_address(0))) return sim::posix_pipe(fds, flags);
  SIMASIO_REAL(pipe2, int (*)(int*, int));
  return real_pipe2(fds, flags);
}

int eventfd(unsigned int count, int flags) __THROW {
  if (sim::makes_descriptors()) return sim::posix_eventfd(count, flags);
  SIMASIO_REAL(eventfd, int (*)(unsigned int, int));
  return real_eventfd(count, flags);
}

int eventfd_read(int fd, eventfd_t* value) {
  if (sim::sim_desc(fd)) return sim::desc_read(fd, value, sizeof *value) == sizeof *value ? 0 : -1;
  SIMASIO_REAL(eventfd_read, int (*)(int, eventfd_t*));
  return real_eventfd_read(fd, value);
}

int eventfd_write(int fd, eventfd_t value) {
  if (sim::sim_desc(fd)) return sim::desc_write(fd, &value, sizeof value) == sizeof value ? 0 : -1;
  SIMASIO_REAL(eventfd_write, int (*)(int, eventfd_t));
  return real_eventfd_write(fd, value);
}

int timerfd_create(int clock, int flags) __THROW {
  if (sim::makes_descriptors()) return sim::posix_timerfd_create(clock, flags);
  SIMASIO_REAL(timerfd_create, int (*)(int, int));
  return real_timerfd_create(clock, flags);
}

int timerfd_gettime(int fd, itimerspec* value) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_timerfd_gettime(fd, value);
  SIMASIO_REAL(timerfd_gettime, int (*)(int, itimerspec*));
  return real_timerfd_gettime(fd, value);
}

int epoll_create(int size) __THROW {
  if (sim::makes_descriptors()) return size <= 0 ? (errno = EINVAL, -1) : sim::posix_epoll_create(0);
  SIMASIO_REAL(epoll_create, int (*)(int));
  return real_epoll_create(size);
}

int epoll_create1(int flags) __THROW {
  if (sim::makes_descriptors()) return sim::posix_epoll_create(flags);
  SIMASIO_REAL(epoll_create1, int (*)(int));
  return real_epoll_create1(flags);
}

// ---- sockets ------------------------------------------------------------------------

int bind(int fd, const sockaddr* addr, socklen_t len) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_bind(fd, addr, len);
  SIMASIO_REAL(bind, int (*)(int, const sockaddr*, socklen_t));
  return real_bind(fd, addr, len);
}

int listen(int fd, int backlog) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_listen(fd, backlog);
  SIMASIO_REAL(listen, int (*)(int, int));
  return real_listen(fd, backlog);
}

int accept(int fd, sockaddr* addr, socklen_t* len) {
  if (sim::sim_desc(fd)) return sim::posix_accept(fd, addr, len, 0);
  SIMASIO_REAL(accept, int (*)(int, sockaddr*, socklen_t*));
  return real_accept(fd, addr, len);
}

int accept4(int fd, sockaddr* addr, socklen_t* len, int flags) {
  if (sim::sim_desc(fd)) return sim::posix_accept(fd, addr, len, flags);
  SIMASIO_REAL(accept4, int (*)(int, sockaddr*, socklen_t*, int));
  return real_accept4(fd, addr, len, flags);
}

int connect(int fd, const sockaddr* addr, socklen_t len) {
  if (sim::sim_desc(fd)) return sim::posix_connect(fd, addr, len);
  if (sim::active()) return refused("connect()");
  SIMASIO_REAL(connect, int (*)(int, const sockaddr*, socklen_t));
  return real_connect != nullptr ? real_connect(fd, addr, len) : static_cast<int>(::syscall(SYS_connect, fd, addr, len));
}

int shutdown(int fd, int how) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_shutdown(fd, how);
  SIMASIO_REAL(shutdown, int (*)(int, int));
  return real_shutdown(fd, how);
}

int getsockopt(int fd, int level, int name, void* value, socklen_t* len) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_getsockopt(fd, level, name, value, len);
  SIMASIO_REAL(getsockopt, int (*)(int, int, int, void*, socklen_t*));
  return real_getsockopt(fd, level, name, value, len);
}

int setsockopt(int fd, int level, int name, const void* value, socklen_t len) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_setsockopt(fd, level, name, value, len);
  SIMASIO_REAL(setsockopt, int (*)(int, int, int, const void*, socklen_t));
  return real_setsockopt(fd, level, name, value, len);
}

int getsockname(int fd, sockaddr* addr, socklen_t* len) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_getsockname(fd, addr, len);
  SIMASIO_REAL(getsockname, int (*)(int, sockaddr*, socklen_t*));
  return real_getsockname(fd, addr, len);
}

int getpeername(int fd, sockaddr* addr, socklen_t* len) __THROW {
  if (sim::sim_desc(fd)) return sim::posix_getpeername(fd, addr, len);
  SIMASIO_REAL(getpeername, int (*)(int, sockaddr*, socklen_t*));
  return real_getpeername(fd, addr, len);
}

// ---- sending and receiving ---------------------------------------------------------------

ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if (sim::sim_desc(fd)) return sim::posix_sendmsg(fd, msg, flags);
  if (sim::active()) return refused("sendmsg()");
  SIMASIO_REAL(sendmsg, ssize_t (*)(int, const msghdr*, int));
  return real_sendmsg != nullptr ? real_sendmsg(fd, msg, flags) : ::syscall(SYS_sendmsg, fd, msg, flags);
}

ssize_t send(int fd, const void* buf, size_t n, int flags) {
  if (sim::sim_desc(fd)) {
    iovec v{const_cast<void*>(buf), n};
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    return sim::posix_sendmsg(fd, &m, flags);
  }
  if (sim::active()) return refused("send()");
  SIMASIO_REAL(send, ssize_t (*)(int, const void*, size_t, int));
  return real_send != nullptr ? real_send(fd, buf, n, flags) : ::syscall(SYS_sendto, fd, buf, n, flags, nullptr, 0);
}

ssize_t sendto(int fd, const void* buf, size_t n, int flags, const sockaddr* addr, socklen_t len) {
  if (sim::sim_desc(fd)) {
    iovec v{const_cast<void*>(buf), n};
    msghdr m{};
    m.msg_name = const_cast<sockaddr*>(addr);
    m.msg_namelen = addr != nullptr ? len : 0;
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    return sim::posix_sendmsg(fd, &m, flags);
  }
  if (sim::active()) return refused("sendto()");
  SIMASIO_REAL(sendto, ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t));
  return real_sendto != nullptr ? real_sendto(fd, buf, n, flags, addr, len)
                                : ::syscall(SYS_sendto, fd, buf, n, flags, addr, len);
}

int sendmmsg(int fd, mmsghdr* msgs, unsigned int n, int flags) {
  if (sim::sim_desc(fd)) {
    unsigned int i = 0;
    for (; i < n; ++i) {
      const long r = sim::posix_sendmsg(fd, &msgs[i].msg_hdr, flags);
      if (r < 0) return i > 0 ? static_cast<int>(i) : -1;
      msgs[i].msg_len = static_cast<unsigned int>(r);
    }
    return static_cast<int>(i);
  }
  if (sim::active()) return refused("sendmmsg()");
  SIMASIO_REAL(sendmmsg, int (*)(int, mmsghdr*, unsigned int, int));
  return real_sendmmsg != nullptr ? real_sendmmsg(fd, msgs, n, flags)
                                  : static_cast<int>(::syscall(SYS_sendmmsg, fd, msgs, n, flags));
}

ssize_t recvmsg(int fd, msghdr* msg, int flags) {
  if (sim::sim_desc(fd)) return sim::posix_recvmsg(fd, msg, flags);
  SIMASIO_REAL(recvmsg, ssize_t (*)(int, msghdr*, int));
  return real_recvmsg(fd, msg, flags);
}

ssize_t recv(int fd, void* buf, size_t n, int flags) {
  if (sim::sim_desc(fd)) {
    iovec v{buf, n};
    msghdr m{};
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    return sim::posix_recvmsg(fd, &m, flags);
  }
  SIMASIO_REAL(recv, ssize_t (*)(int, void*, size_t, int));
  return real_recv(fd, buf, n, flags);
}

ssize_t recvfrom(int fd, void* buf, size_t n, int flags, sockaddr* addr, socklen_t* len) {
  if (sim::sim_desc(fd)) {
    iovec v{buf, n};
    msghdr m{};
    m.msg_name = addr;
    m.msg_namelen = len != nullptr ? *len : 0;
    m.msg_iov = &v;
    m.msg_iovlen = 1;
    const long r = sim::posix_recvmsg(fd, &m, flags);
    if (r >= 0 && len != nullptr && addr != nullptr) *len = m.msg_namelen;
    return r;
  }
  SIMASIO_REAL(recvfrom, ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*));
  return real_recvfrom(fd, buf, n, flags, addr, len);
}

int recvmmsg(int fd, mmsghdr* msgs, unsigned int n, int flags, timespec* timeout) {
  if (sim::sim_desc(fd)) {
    unsigned int i = 0;
    for (; i < n; ++i) {
      const long r = sim::posix_recvmsg(fd, &msgs[i].msg_hdr, i == 0 ? flags : flags | MSG_DONTWAIT);
      if (r < 0) return i > 0 ? static_cast<int>(i) : -1;
      msgs[i].msg_len = static_cast<unsigned int>(r);
      if ((flags & MSG_WAITFORONE) != 0) flags |= MSG_DONTWAIT;
    }
    return static_cast<int>(i);
  }
  SIMASIO_REAL(recvmmsg, int (*)(int, mmsghdr*, unsigned int, int, timespec*));
  return real_recvmmsg(fd, msgs, n, flags, timeout);
}

ssize_t readv(int fd, const iovec* iov, int n) {
  if (sim::sim_desc(fd)) return sim::desc_readv(fd, iov, n);
  SIMASIO_REAL(readv, ssize_t (*)(int, const iovec*, int));
  return real_readv(fd, iov, n);
}

ssize_t writev(int fd, const iovec* iov, int n) {
  if (sim::sim_desc(fd)) return sim::desc_writev(fd, iov, n);
  SIMASIO_REAL(writev, ssize_t (*)(int, const iovec*, int));
  return real_writev(fd, iov, n);
}

// _FORTIFY_SOURCE's checked forms (the buffer's size known at compile time).
ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  if (n > buflen) __builtin_trap();
  return read(fd, buf, n);
}

ssize_t __recv_chk(int fd, void* buf, size_t n, size_t buflen, int flags) {
  if (n > buflen) __builtin_trap();
  return recv(fd, buf, n, flags);
}

ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t buflen, int flags, sockaddr* addr, socklen_t* len) {
  if (n > buflen) __builtin_trap();
  return recvfrom(fd, buf, n, flags, addr, len);
}

// ---- descriptors ----------------------------------------------------------------------

int dup2(int fd, int to) __THROW {
  if (sim::sim_desc(fd)) return sim::desc_dup(fd, to, 0);
  SIMASIO_REAL(dup2, int (*)(int, int));
  return real_dup2(fd, to);
}

int dup3(int fd, int to, int flags) __THROW {
  if (sim::sim_desc(fd)) return fd == to ? (errno = EINVAL, -1) : sim::desc_dup(fd, to, flags);
  SIMASIO_REAL(dup3, int (*)(int, int, int));
  return real_dup3(fd, to, flags);
}

int ioctl(int fd, unsigned long request, ...) __THROW {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (sim::sim_desc(fd)) return sim::desc_ioctl(fd, request, arg);
  SIMASIO_REAL(ioctl, int (*)(int, unsigned long, ...));
  return real_ioctl(fd, request, arg);
}

// ---- waiting ---------------------------------------------------------------------------

namespace {
// poll() with no descriptor to watch (none, or all negative): the portable
// sleep. In a simulated process it waits in virtual time, as every other
// wait there does (Boost.Asio's synchronous timer waits loop on it).
bool no_descriptors(const pollfd* fds, nfds_t n) {
  for (nfds_t i = 0; i < n; ++i)
    if (fds[i].fd >= 0) return false;
  return true;
}
}  // namespace

int poll(pollfd* fds, nfds_t n, int timeout) {
  if (sim::active()) {
    for (nfds_t i = 0; i < n; ++i)
      if (sim::sim_desc(fds[i].fd)) return sim::posix_poll(fds, n, ns_of_ms(timeout), &real_poll_one);
    if (sim::in_process() && no_descriptors(fds, n)) return sim::posix_poll(fds, n, ns_of_ms(timeout), nullptr);
  }
  SIMASIO_REAL(poll, int (*)(pollfd*, nfds_t, int));
  return real_poll(fds, n, timeout);
}

int __poll_chk(pollfd* fds, nfds_t n, int timeout, size_t fdslen) {
  if (fdslen / sizeof(*fds) < n) __builtin_trap();
  return poll(fds, n, timeout);
}

int ppoll(pollfd* fds, nfds_t n, const timespec* timeout, const sigset_t* mask) {
  if (sim::active()) {
    for (nfds_t i = 0; i < n; ++i)
      if (sim::sim_desc(fds[i].fd)) return sim::posix_poll(fds, n, ns_of(timeout), &real_poll_one);
    if (sim::in_process() && no_descriptors(fds, n)) return sim::posix_poll(fds, n, ns_of(timeout), nullptr);
  }
  SIMASIO_REAL(ppoll, int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*));
  return real_ppoll(fds, n, timeout, mask);
}

namespace {
bool any_simulated(int nfds, const fd_set* r, const fd_set* w, const fd_set* x) {
  if (!sim::active()) return false;
  for (int fd = 0; fd < nfds && fd < FD_SETSIZE; ++fd)
    if ((r != nullptr && FD_ISSET(fd, r)) || (w != nullptr && FD_ISSET(fd, w)) || (x != nullptr && FD_ISSET(fd, x)))
      if (sim::sim_desc(fd)) return true;
  return false;
}

// select() with no descriptor in any set: the portable sleep (Boost.Asio's
// synchronous deadline_timer::wait loops on select(0, ...)).
bool none_asked(int nfds, const fd_set* r, const fd_set* w, const fd_set* x) {
  for (int fd = 0; fd < nfds && fd < FD_SETSIZE; ++fd)
    if ((r != nullptr && FD_ISSET(fd, r)) || (w != nullptr && FD_ISSET(fd, w)) || (x != nullptr && FD_ISSET(fd, x)))
      return false;
  return true;
}

// Whether select() and pselect() are served by the simulation.
bool select_simulated(int nfds, const fd_set* r, const fd_set* w, const fd_set* x) {
  return any_simulated(nfds, r, w, x) || (sim::active() && sim::in_process() && none_asked(nfds, r, w, x));
}
}  // namespace

int select(int nfds, fd_set* r, fd_set* w, fd_set* x, timeval* timeout) {
  if (select_simulated(nfds, r, w, x)) {
    const long long ns =
        timeout == nullptr ? -1 : static_cast<long long>(timeout->tv_sec) * 1'000'000'000 + timeout->tv_usec * 1000LL;
    const int n = sim::posix_select(nfds, r, w, x, ns);
    if (n >= 0 && timeout != nullptr) *timeout = timeval{};  // Linux writes the time left: all of it passed, or none matters
    return n;
  }
  SIMASIO_REAL(select, int (*)(int, fd_set*, fd_set*, fd_set*, timeval*));
  return real_select(nfds, r, w, x, timeout);
}

int pselect(int nfds, fd_set* r, fd_set* w, fd_set* x, const timespec* timeout, const sigset_t* mask) {
  if (select_simulated(nfds, r, w, x)) return sim::posix_select(nfds, r, w, x, ns_of(timeout));
  SIMASIO_REAL(pselect, int (*)(int, fd_set*, fd_set*, fd_set*, const timespec*, const sigset_t*));
  return real_pselect(nfds, r, w, x, timeout, mask);
}

int epoll_ctl(int epfd, int op, int fd, epoll_event* ev) __THROW {
  if (sim::sim_desc(epfd)) return sim::posix_epoll_ctl(epfd, op, fd, ev);
  SIMASIO_REAL(epoll_ctl, int (*)(int, int, int, epoll_event*));
  return real_epoll_ctl(epfd, op, fd, ev);
}

int epoll_wait(int epfd, epoll_event* events, int max, int timeout) {
  if (sim::sim_desc(epfd)) return sim::posix_epoll_wait(epfd, events, max, ns_of_ms(timeout));
  if (timeout != 0) sim::refuse_real_wait("epoll_wait", timeout);
  SIMASIO_REAL(epoll_wait, int (*)(int, epoll_event*, int, int));
  return real_epoll_wait(epfd, events, max, timeout);
}

int epoll_pwait(int epfd, epoll_event* events, int max, int timeout, const sigset_t* mask) {
  if (sim::sim_desc(epfd)) return sim::posix_epoll_wait(epfd, events, max, ns_of_ms(timeout));
  if (timeout != 0) sim::refuse_real_wait("epoll_pwait", timeout);
  SIMASIO_REAL(epoll_pwait, int (*)(int, epoll_event*, int, int, const sigset_t*));
  return real_epoll_pwait(epfd, events, max, timeout, mask);
}

// ---- names ---------------------------------------------------------------------------------

int getaddrinfo(const char* node, const char* service, const addrinfo* hints, addrinfo** res) {
  if (sim::makes_descriptors()) return sim::posix_getaddrinfo(node, service, hints, res);
  if (sim::active()) {
    refuse("getaddrinfo() (a real DNS lookup)");
    return EAI_FAIL;
  }
  SIMASIO_REAL(getaddrinfo, int (*)(const char*, const char*, const addrinfo*, addrinfo**));
  return real_getaddrinfo != nullptr ? real_getaddrinfo(node, service, hints, res) : EAI_SYSTEM;
}

int getnameinfo(const sockaddr* sa, socklen_t salen, char* host, socklen_t hostlen, char* serv, socklen_t servlen,
                int flags) {
  if (sim::makes_descriptors()) return sim::posix_getnameinfo(sa, salen, host, hostlen, serv, servlen, flags);
  if (sim::active()) {
    refuse("getnameinfo() (a real DNS lookup)");
    return EAI_FAIL;
  }
  SIMASIO_REAL(getnameinfo, int (*)(const sockaddr*, socklen_t, char*, socklen_t, char*, socklen_t, int));
  return real_getnameinfo(sa, salen, host, hostlen, serv, servlen, flags);
}

hostent* gethostbyname(const char* name) {
  if (sim::makes_descriptors()) return sim::posix_gethostbyname(name);
  if (sim::active()) {
    refuse("gethostbyname() (a real DNS lookup)");
    h_errno = NO_RECOVERY;
    return nullptr;
  }
  SIMASIO_REAL(gethostbyname, hostent* (*)(const char*));
  return real_gethostbyname(name);
}

int gethostbyname_r(const char* name, hostent* out, char* buf, size_t buflen, hostent** result, int* h_err) {
  if (sim::makes_descriptors()) return sim::posix_gethostbyname_r(name, out, buf, buflen, result, h_err);
  if (sim::active()) {
    refuse("gethostbyname_r() (a real DNS lookup)");
    *result = nullptr;
    if (h_err != nullptr) *h_err = NO_RECOVERY;
    return EPERM;
  }
  SIMASIO_REAL(gethostbyname_r, int (*)(const char*, hostent*, char*, size_t, hostent**, int*));
  return real_gethostbyname_r(name, out, buf, buflen, result, h_err);
}

int gethostname(char* name, size_t len) __THROW {
  if (sim::makes_descriptors()) return sim::posix_gethostname(name, len);
  SIMASIO_REAL(gethostname, int (*)(char*, size_t));
  return real_gethostname(name, len);
}

}  // extern "C"
