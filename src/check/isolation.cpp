// isolation.cpp — forked children for seeds: a fresh program each, a death of its own
#include "isolation.hpp"

#include "guard.hpp"

#include <simasio/error.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace simasio::detail::isolation {

namespace {

// A frame on the result pipe: kind, length, bytes.
constexpr std::uint64_t frame_message = 1;  // the body's message: the child's last act
constexpr std::uint64_t frame_dying = 2;    // a fatal signal arrived: its number follows

bool child_flag = false;
int result_fd = -1;
last_words* words = nullptr;

// write(2) until done; false when the pipe is gone.
bool write_all(int fd, const void* data, std::size_t n) noexcept {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

void write_frame(int fd, std::uint64_t kind, std::string_view bytes) noexcept {
  const std::uint64_t head[2] = {kind, bytes.size()};
  if (write_all(fd, head, sizeof head)) write_all(fd, bytes.data(), bytes.size());
}

// SIGXCPU is the parent's: a child past its wall-clock timeout gets it.
constexpr int fatal_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGXCPU};

// A fatal signal in a child: say which, let the run say its last words
// (within a deadline: the heap may be broken), then die of it.
void on_fatal_signal(int sig) {
  const int saved = errno;
  const std::uint64_t number = static_cast<std::uint64_t>(sig);
  write_frame(result_fd, frame_dying, std::string_view(reinterpret_cast<const char*>(&number), sizeof number));
  if (words != nullptr && *words) {
    last_words say = std::exchange(*words, nullptr);  // once: a second fault dies at once
    ::alarm(10);
    try {
      const std::string message = say(sig);
      if (!message.empty()) write_frame(result_fd, frame_message, message);
    } catch (...) {
    }
  }
  ::signal(sig, SIG_DFL);
  errno = saved;
  ::raise(sig);
}

// In a new child: fatal signals end it (whatever handlers the test
// framework installed in the parent, which would resume the framework's
// own test loop in the child), on a stack of their own (a stack overflow
// leaves none).
void install_child_handlers() noexcept {
  constexpr std::size_t alt_size = 256 * 1024;
  void* alt = ::mmap(nullptr, alt_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (alt != MAP_FAILED) {
    stack_t st{};
    st.ss_sp = alt;
    st.ss_size = alt_size;
    ::sigaltstack(&st, nullptr);
  }
  struct sigaction sa {};
  sa.sa_handler = &on_fatal_signal;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : fatal_signals) ::sigaction(sig, &sa, nullptr);
  // A parent's timeout alarm (Boost.Test's --catch_system_errors) is not the child's.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGALRM, &dfl, nullptr);
  ::sigaction(SIGPIPE, &dfl, nullptr);
  // The sweep's SIGINT/SIGTERM handling is the parent's: here they end the child.
  ::sigaction(SIGINT, &dfl, nullptr);
  ::sigaction(SIGTERM, &dfl, nullptr);
  ::alarm(0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

void flush_everything() noexcept {
  try {
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
  } catch (...) {
  }
  std::fflush(nullptr);
}

}  // namespace

void set_last_words(last_words w) {
  static last_words held;
  held = std::move(w);
  words = &held;
}

bool in_child() noexcept { return child_flag; }

struct children::child {
  std::uint64_t tag = 0;
  pid_t pid = -1;
  int result = -1;  // read end of the result pipe
  int err = -1;     // read end of its standard error
  std::string bytes;
  std::string tail;
  child_outcome out;
  std::chrono::steady_clock::time_point started;
  std::chrono::steady_clock::time_point warned;  // when SIGXCPU went, for a hung child
  bool hung = false;
};

children::~children() {
  for (child* c : live_) {
    if (c->pid > 0) {
      ::kill(c->pid, SIGKILL);
      int status = 0;
      while (::waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
      }
      check_impl::guard::child_ended(c->pid);
    }
    if (c->result >= 0) ::close(c->result);
    if (c->err >= 0) ::close(c->err);
    delete c;
  }
}

namespace {

// Why a seed's process could not start, naming the limit it met.
[[noreturn]] void cannot_start(int e, const char* call, std::size_t running) {
  std::string why = std::string("simasio: cannot start a seed's process (") + call + ": " + std::strerror(e) + ")";
  rlimit lim{};
  const std::string at_once = std::to_string(running + 1) + " seeds' processes at once";
  if (e == EMFILE && ::getrlimit(RLIMIT_NOFILE, &lim) == 0)
    why += ": " + at_once + " need two descriptors each, and this program may open " +
           std::to_string(lim.rlim_cur) + " (ulimit -n): lower SIMASIO_JOBS (check_options::jobs) or raise the limit";
  else if (e == EAGAIN && ::getrlimit(RLIMIT_NPROC, &lim) == 0)
    why += ": " + at_once + " and this user's process limit is " +
           (lim.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(lim.rlim_cur)) +
           " (ulimit -u), or memory is short: lower SIMASIO_JOBS (check_options::jobs)";
  else if (e == ENFILE || e == ENOMEM)
    why += ": the system is out of descriptors or memory; lower SIMASIO_JOBS (check_options::jobs)";
  throw config_error(why);
}

}  // namespace

void children::start(std::uint64_t tag, child_body body) {
  int result[2], err[2];
  if (::pipe2(result, O_CLOEXEC) != 0) cannot_start(errno, "pipe", live_.size());
  if (::pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(result[0]);
    ::close(result[1]);
    cannot_start(e, "pipe", live_.size());
  }
  flush_everything();  // else the child would print the parent's buffered output again
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {result[0], result[1], err[0], err[1]}) ::close(fd);
    cannot_start(e, "fork", live_.size());
  }
  if (pid == 0) {
    child_flag = true;
    ::close(result[0]);
    ::close(err[0]);
    ::dup2(err[1], 2);
    if (capture_) ::dup2(err[1], 1);
    ::close(err[1]);
    result_fd = result[1];
    install_child_handlers();
    int status = 0;
    try {
      const std::string message = body();
      write_frame(result_fd, frame_message, message);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simasio: a seed's process failed outside its run: %s\n", e.what());
      status = 3;
    } catch (...) {
      status = 3;
    }
    flush_everything();
    ::_exit(status);
  }
  ::close(result[1]);
  ::close(err[1]);
  check_impl::guard::child_started(pid);
  auto* c = new child;
  c->tag = tag;
  c->pid = pid;
  c->result = result[0];
  c->err = err[0];
  c->started = std::chrono::steady_clock::now();
  live_.push_back(c);
}

namespace {

// Parses the frames a child sent.
void read_frames(std::string_view bytes, child_outcome& out) {
  while (bytes.size() >= 16) {
    std::uint64_t head[2];
    std::memcpy(head, bytes.data(), sizeof head);
    if (bytes.size() - 16 < head[1]) break;  // cut short: it died while writing
    const std::string_view body = bytes.substr(16, head[1]);
    if (head[0] == frame_message) {
      out.message.assign(body);
    } else if (head[0] == frame_dying && body.size() == sizeof(std::uint64_t)) {
      std::uint64_t sig = 0;
      std::memcpy(&sig, body.data(), sizeof sig);
      out.signal = static_cast<int>(sig);
    }
    bytes.remove_prefix(16 + head[1]);
  }
}

// The last few lines of a child's standard error.
std::string last_lines(const std::string& text, std::size_t lines) {
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  std::size_t start = end;
  std::size_t seen = 0;
  while (start > 0) {
    if (text[start - 1] == '\n' && ++seen == lines) break;
    --start;
  }
  return text.substr(start, end - start);
}

constexpr std::size_t tail_kept = 4096;

}  // namespace

std::pair<std::uint64_t, child_outcome> children::wait_any() {
  if (live_.empty()) throw std::logic_error("simasio: isolation: no child to wait for");
  char buf[65536];
  for (;;) {
    // A child whose pipes are both closed has ended (or is about to): reap it.
    for (std::size_t i = 0; i < live_.size(); ++i) {
      child* c = live_[i];
      if (c->result >= 0 || c->err >= 0) continue;
      int status = 0;
      rusage usage{};
      while (::wait4(c->pid, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      check_impl::guard::child_ended(c->pid);
      c->pid = -1;
      c->out.peak_rss_kib = usage.ru_maxrss;
      c->out.hung = c->hung;
      read_frames(c->bytes, c->out);
      const int dying = c->out.signal;
      if (WIFSIGNALED(status)) {
        c->out.signal = dying != 0 ? dying : WTERMSIG(status);
      } else if (WIFEXITED(status)) {
        c->out.exit_status = WEXITSTATUS(status);
        c->out.complete = dying == 0 && c->out.exit_status == 0;
      }
      c->out.output_tail = last_lines(c->tail, 6);
      auto result = std::make_pair(c->tag, std::move(c->out));
      live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
      delete c;
      return result;
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<child*, int*>> owners;
    for (child* c : live_) {
      for (int* fd : {&c->result, &c->err}) {
        if (*fd < 0) continue;
        fds.push_back(pollfd{*fd, POLLIN, 0});
        owners.emplace_back(c, fd);
      }
    }
    if (check_impl::guard::interrupted() != 0) {
      child_outcome none;
      none.interrupted = true;
      return {interrupted_tag, std::move(none)};
    }
    if (::poll(fds.data(), fds.size(), watch()) < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "simasio: poll on a seed's process");
    }
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      auto [c, fd] = owners[k];
      const ssize_t n = ::read(*fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(*fd);
        *fd = -1;
        continue;
      }
      if (fd == &c->result) {
        c->bytes.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (capture_) {
        c->out.output.append(buf, static_cast<std::size_t>(n));
      } else {
        write_all(2, buf, static_cast<std::size_t>(n));
      }
      c->tail.append(buf, static_cast<std::size_t>(n));
      if (c->tail.size() > 2 * tail_kept) c->tail.erase(0, c->tail.size() - tail_kept);
    }
  }
}

// The watchdog: a child past the timeout gets SIGXCPU (its handler sends
// the run's last words: where it was), and SIGKILL when it is still there a
// few seconds later. Returns how long poll may wait for the next check.
int children::watch() {
  constexpr auto grace = std::chrono::seconds(5);
  constexpr int check_ms = 1000;  // also how late a SIGINT that came just before poll is seen
  if (limit_.count() == 0) return check_ms;
  const auto now = std::chrono::steady_clock::now();
  for (child* c : live_) {
    if (c->pid <= 0) continue;
    if (!c->hung && now - c->started >= limit_) {
      c->hung = true;
      c->warned = now;
      ::kill(c->pid, SIGXCPU);
    } else if (c->hung && now - c->warned >= grace) {
      ::kill(c->pid, SIGKILL);
    }
  }
  return check_ms;
}

child_outcome run_in_child(child_body body, bool capture_output, isolation::timeout limit) {
  children one(capture_output, limit);
  one.start(0, std::move(body));
  auto [tag, out] = one.wait_any();
  return std::move(out);
}

}  // namespace simasio::detail::isolation
