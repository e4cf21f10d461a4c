// simasio/detail/interpose.hpp — what the interposition library (simasio::interpose) asks of the core
//
// simasio::interpose (src/interpose/) defines clock_gettime, getrandom,
// pthread_create, socket, ... in the test executable, so that they preempt
// libc's. Each asks `active()` first: only while a world runs on the calling
// thread (a run of world::run*, io_context::run*/poll*) do these answer;
// otherwise the interposer calls the real function. Nothing here changes a
// world that never calls them: no draw from the seeded streams, no event.
#ifndef SIMASIO_DETAIL_INTERPOSE_HPP
#define SIMASIO_DETAIL_INTERPOSE_HPP

#include <simasio/detail/current.hpp>

#include <cstddef>
#include <cstdint>

struct addrinfo;
struct epoll_event;
struct hostent;
struct iovec;
struct itimerspec;
struct msghdr;
struct pollfd;
struct sockaddr;
struct stat;

namespace simasio::detail::posix {
struct desc_object;
}

namespace simasio::detail::interpose {

// Whether a world runs on this thread.
inline bool active() noexcept { return running_core_tls != nullptr; }

// In a simulated process's code, CLOCK_MONOTONIC reads time since its host
// booted, this long before world time 0: Linux's never reads 0 on a running
// machine, and code takes a zero time for "not set" (libcurl's timers do).
// See steady_boot_ns() (clock.hpp).
inline constexpr std::int64_t monotonic_boot_ns = 1'000'000'000'000;  // 1000 s

// What get_nprocs(), sysconf(_SC_NPROCESSORS_ONLN) and so
// std::thread::hardware_concurrency() say in a simulated process's code.
inline constexpr int simulated_cpus = 4;

// The steady time of the host whose handler runs (world time outside a
// handler), in nanoseconds; the simasio::steady_clock reading. Requires active().
std::int64_t steady_ns() noexcept;

// Unix time in nanoseconds on that host: simasio::system_clock's reading
// (world time 0 is 2020-01-01T00:00:00Z). Requires active().
std::int64_t realtime_ns() noexcept;

// Fills [buf, buf + n) from the running world's entropy stream: seeded
// from the world's seed, apart from the scheduler, network, user and
// buggify streams (drawing here moves none of them), and not on the tape.
// Requires active().
void entropy(void* buf, std::size_t n) noexcept;

// A call that must not run inside a simulation (a thread, a real socket).
// The interposer returns an error without calling the kernel; the run that
// is in progress throws escape_error(message) when the handler returns (or,
// if the refused call made the handler throw, instead of that exception).
// The first refusal of a run wins. Requires active().
void refuse(const char* message) noexcept;

// A real epoll_wait (a descriptor no process made) that would wait
// (timeout_ms != 0) while a world is alive on this thread, in a run or
// between runs (the scenario body; the implicit world only in its runs):
// a real io_context about to wait on real time while the virtual clock
// stands. Throws escape_error naming it and the fix; otherwise returns.
void refuse_real_wait(const char* call, int timeout_ms);

// Asio's epoll_reactor arms its timerfd with the time to its earliest
// timer (timerfd_settime): the world keeps that deadline on virtual time
// instead of the kernel's real one. `absolute` is TFD_TIMER_ABSTIME;
// `ns` < 0 disarms. Returns false when fd is not a timerfd (errno left by
// the kernel's answer). Requires active().
bool set_timerfd(int fd, bool absolute, std::int64_t ns) noexcept;

// ---- simulated threads (threads.cpp) ------------------------------------------
// Inside a simulated process (host::spawn), std::thread, std::mutex,
// std::condition_variable, std::this_thread::sleep_for/yield and the
// futexes behind std::future and std::atomic::wait block and wake the
// process's fibers instead of OS threads. Outside one, the interposer uses
// the real functions (and refuses a thread).

// Whether the calling code runs on a simulated process's stack: a world
// runs on this thread and one of its processes (or threads) is running.
bool in_process() noexcept;

// Whether the calling code is a simulated process's: its stack, or a
// handler of an io_context it made. Requires active().
bool in_process_code() noexcept;

// A simulated thread's pthread_t: odd, with a tag in its top bits, so that
// it can never be a real thread's (a pointer).
bool is_thread_handle(unsigned long handle) noexcept;

// pthread_create in a process's code: start(arg) runs as a thread of it, a
// fiber of the same host scheduled like a process. 0 or an errno value.
// in_process_code().
int thread_create(unsigned long* handle, void* (*start)(void*), void* arg) noexcept;
// pthread_join: blocks until the thread ends (throws process_exit if the
// host crashes meanwhile). 0 or an errno value. Requires active().
int thread_join(unsigned long handle, void** retval);
int thread_detach(unsigned long handle) noexcept;
// pthread_self in a simulated thread: its handle. False elsewhere.
bool thread_self(unsigned long* handle) noexcept;

// The real pthread functions, for a mutex that is free of fibers.
struct real_mutex_ops {
  int (*trylock)(void* mutex);
  int (*lock)(void* mutex);
  int (*unlock)(void* mutex);
};
// pthread_mutex_lock / trylock in a process: a contention point (the
// world may run another fiber first); waits while another fiber of the
// world holds the mutex. Never throws: a killed process gets an error.
int mutex_lock(void* mutex, bool try_only, const real_mutex_ops& real) noexcept;
// pthread_mutex_unlock while a world runs (in a process or not): releases
// it and wakes the fibers waiting for it. active().
int mutex_unlock(void* mutex, const real_mutex_ops& real) noexcept;
// pthread_mutex_lock outside a process while a world runs: -1 when no
// fiber holds the mutex (the caller locks it for real), else refuses the
// call (a handler would wait forever) and returns EDEADLK.
int mutex_lock_outside(void* mutex, bool try_only, const real_mutex_ops& real) noexcept;

// pthread_cond_wait / timedwait / clockwait in a process: `abs_ns` on
// `clock` (CLOCK_REALTIME or CLOCK_MONOTONIC), < 0 for no deadline. 0 or
// ETIMEDOUT; throws process_exit if the host crashes meanwhile.
int cond_wait(void* cond, void* mutex, int clock, std::int64_t abs_ns, const real_mutex_ops& real);
// pthread_cond_signal / broadcast while a world runs: wakes one waiting
// fiber (a seeded choice among them) or all. False when no fiber waits on
// it (the caller signals it for real too).
bool cond_wake(void* cond, bool all) noexcept;

// nanosleep / clock_nanosleep / sched_yield in a process. `ns` on `clock`,
// absolute or relative; throws process_exit if the host crashes meanwhile.
void sleep(int clock, bool absolute, std::int64_t ns);
void yield() noexcept;

// syscall(SYS_futex, ...) while a world runs: FUTEX_WAIT(_BITSET) in a
// process blocks the fiber; FUTEX_WAKE(_BITSET) anywhere wakes waiting
// fibers. Sets `handled` false for any other operation (or a wait outside
// a process whose value differs: the caller asks the kernel). The result as
// the system call's: -1 with errno set on error. Throws process_exit when
// the process's host crashed (the interposed syscall is declared without
// glibc's noexcept for that).
long futex(std::uint32_t* addr, int op, std::uint32_t val, const void* timeout, std::uint32_t val3, bool& handled);

// ---- a process's end (threads.cpp) ----------------------------------------------
// In a process (in_process()), these end it as the kernel would, and only
// it: its threads stop where they are, nothing on their stacks is unwound,
// the OS closes its sockets and files, its io_contexts die with it; its
// host and the world go on (world_core::end_running_process). None returns.
// exit, _exit, _Exit, quick_exit: the process's exit status.
[[noreturn]] void exit_process(int status);
// abort, a failed assert (`why` is its message), std::terminate, raise or
// kill of a signal whose action is to end the process.
[[noreturn]] void end_by_signal(int signal, const char* why);
// pthread_exit: the calling thread unwinds and ends (main()'s too: the
// process then lives while another thread does).
[[noreturn]] void exit_thread(void* retval);
// sigaction / signal in a process: the action is the process's own, kept by
// simasio (a fresh process starts with every action at its default; the
// test program's handlers are not the process's). `act` and `old` are
// struct sigaction pointers, either may be null. 0 or an errno value.
int process_sigaction(int sig, const void* act, void* old) noexcept;
// raise / kill of the calling process by itself: its own action decides:
// a handler runs here, on the process's stack; ignored does nothing; the
// default ends the process when the signal's default is to end one.
int process_raise(int sig);

// ---- files (src/disk/posix_files.cpp) -------------------------------------------
// Paths under disk_root, opened while a world runs on the thread, are files
// of the simulated disk of the host whose code calls (its process, or the
// handler's io_context). Each simulated descriptor holds a real descriptor
// of /dev/null, so its number is taken and no real file gets it. The calls
// return like the system calls: -1 with errno set on failure.
inline constexpr const char disk_root[] = "/simdisk";
// Cheap tests first: a world runs here and path is under disk_root / fd is simulated.
// read() and write() of a simulated process's descriptors 0, 1 and 2 (and
// of duplicates dup() made of them): its standard streams (stdio.cpp). False
// (the caller goes to libc) outside a process and for other descriptors;
// else `result` is the call's, -1 with errno set on error. A read of an
// empty stdin blocks the process (process_exit if its host crashes).
bool stdio_read(int fd, void* buf, std::size_t n, long& result);
bool stdio_write(int fd, const void* buf, std::size_t n, long& result);
// ungetc() on stdin in a process: ch is read again next; false elsewhere.
bool stdio_unget(unsigned char ch) noexcept;
// dup() in a process made `to` from `from`; close() of fd.
void stdio_dup(int from, int to) noexcept;
void stdio_close(int fd) noexcept;
bool sim_path(const char* path) noexcept;
bool sim_fd(int fd) noexcept;
int file_open(const char* path, int flags, unsigned mode);
int file_close(int fd) noexcept;
long file_read(int fd, void* buf, std::size_t n, std::int64_t offset);   // offset -1: at the position
long file_write(int fd, const void* buf, std::size_t n, std::int64_t offset);
std::int64_t file_lseek(int fd, std::int64_t offset, int whence) noexcept;
int file_sync(int fd);
int file_truncate(int fd, std::int64_t size, bool wait);
int file_fstat(int fd, void* stat_buf) noexcept;  // a struct stat
int file_stat(const char* path, void* stat_buf) noexcept;
int file_access(const char* path, int mode) noexcept;
int file_unlink(const char* path, bool wait);
int file_rename(const char* from, const char* to, bool wait);
int file_fcntl(int fd, int cmd, void* arg) noexcept;
// mmap of a simulated descriptor: MAP_SHARED only, one block of memory per
// file, offset and length, shared by the host's processes (SQLite's -shm).
// MAP_FAILED with errno set on failure.
void* file_mmap(int fd, std::size_t length, int prot, int flags, std::int64_t offset) noexcept;
// munmap of such a block: 0; -2 when the address is not one (libc's then).
int file_munmap(void* address, std::size_t length) noexcept;

// ---- sockets, pipes, eventfds, timerfds, epoll (src/posix/) ----------------------
// Inside a simulated process (its stack, or a handler of an io_context it
// made: makes_descriptors()), socket(), socketpair(), pipe(), eventfd(),
// timerfd_create() and epoll_create1() make simulated descriptors of the
// process's host, each holding a real descriptor of /dev/null so that its
// number is taken; every call on one (sim_desc()) is served here, on the
// simulated network and virtual time. Blocking calls suspend the calling
// fiber. Results as the system calls': -1 with errno set on failure
// (getaddrinfo and getnameinfo: an EAI_ value).
bool makes_descriptors() noexcept;
bool sim_desc(int fd) noexcept;
int desc_close(int fd) noexcept;
long desc_read(int fd, void* buf, std::size_t n);
long desc_write(int fd, const void* buf, std::size_t n);
long desc_readv(int fd, const iovec* iov, int n);
long desc_writev(int fd, const iovec* iov, int n);
// dup (to < 0), dup2/dup3 (to: the number wanted); flags: O_CLOEXEC.
int desc_dup(int fd, int to, int flags);
int desc_fcntl(int fd, int cmd, long arg);
int desc_ioctl(int fd, unsigned long request, void* arg);
int desc_fstat(int fd, struct stat* st);
int socket_available(posix::desc_object& socket);  // FIONREAD: bytes readable, or -EINVAL on a listener
int posix_socket(int domain, int type, int protocol);
int posix_socketpair(int domain, int type, int protocol, int* sv);
int posix_bind(int fd, const sockaddr* addr, unsigned len);
int posix_listen(int fd, int backlog);
int posix_accept(int fd, sockaddr* addr, unsigned* len, int flags);
int posix_connect(int fd, const sockaddr* addr, unsigned len);
long posix_sendmsg(int fd, const msghdr* msg, int flags);
long posix_recvmsg(int fd, msghdr* msg, int flags);
int posix_shutdown(int fd, int how);
int posix_getsockopt(int fd, int level, int name, void* value, unsigned* len);
int posix_setsockopt(int fd, int level, int name, const void* value, unsigned len);
int posix_getsockname(int fd, sockaddr* addr, unsigned* len);
int posix_getpeername(int fd, sockaddr* addr, unsigned* len);
// poll over simulated descriptors (and real ones, asked without waiting
// through real_poll); timeouts in nanoseconds, negative: none.
int posix_poll(pollfd* fds, unsigned long n, long long timeout_ns, int (*real_poll)(pollfd*, unsigned long, int));
int posix_select(int nfds, void* read_set, void* write_set, void* except_set, long long timeout_ns);  // fd_set*
int posix_epoll_create(int flags);
int posix_epoll_ctl(int epfd, int op, int fd, epoll_event* ev);
int posix_epoll_wait(int epfd, epoll_event* events, int max, long long timeout_ns);
int posix_eventfd(unsigned initval, int flags);
// pipe/pipe2 (O_NONBLOCK, O_CLOEXEC), or a stream socketpair.
int posix_pipe(int* fds, int flags, bool socket_pair = false);
int posix_timerfd_create(int clock, int flags);
int posix_timerfd_settime(int fd, int flags, const itimerspec* value, itimerspec* old);
int posix_timerfd_gettime(int fd, itimerspec* value);
int posix_getaddrinfo(const char* node, const char* service, const addrinfo* hints, addrinfo** res);
int posix_getnameinfo(const sockaddr* sa, unsigned salen, char* host, unsigned hostlen, char* serv, unsigned servlen,
                      int flags);
int posix_gethostbyname_r(const char* name, hostent* out, char* buf, std::size_t buflen, hostent** result, int* h_err);
hostent* posix_gethostbyname(const char* name);
int posix_gethostname(char* name, std::size_t len);

}  // namespace simasio::detail::interpose

#endif  // SIMASIO_DETAIL_INTERPOSE_HPP
