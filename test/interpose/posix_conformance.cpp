// posix_conformance.cpp — one POSIX program, on the kernel's loopback and in a simulated process
//
// The program below calls sockets, poll, epoll, eventfd, pipes and
// timerfds the way C code does, and logs each call's result, errno and
// poll mask. `--real` runs it on the test machine's kernel (the test runs
// that side in a network namespace of its own, loopback up); without it,
// the same function runs as a simulated process, on simasio's network,
// and the two logs must be equal line for line.
#include <simasio/simasio.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

std::vector<std::string>* out = nullptr;

std::string mask(int m) {
  std::string s;
  const std::pair<int, const char*> bits[] = {{POLLIN, "IN"},   {POLLOUT, "OUT"},   {POLLERR, "ERR"},
                                              {POLLHUP, "HUP"}, {POLLRDHUP, "RDHUP"}, {POLLNVAL, "NVAL"}};
  for (const auto& [bit, name] : bits)
    if ((m & bit) != 0) s += std::string(s.empty() ? "" : "|") + name;
  return s.empty() ? "0" : s;
}

// Logs what a call returned, and errno when it failed.
long note(const char* what, long r) {
  const int e = errno;
  out->push_back(std::string(what) + " = " + std::to_string(r) + (r < 0 ? std::string(" ") + strerrorname_np(e) : ""));
  errno = e;
  return r;
}

// A call that returns a descriptor: its number differs from run to run.
long note_fd(const char* what, long r) {
  const int e = errno;
  out->push_back(std::string(what) + (r >= 0 ? std::string(" = a descriptor") : " = -1 " + std::string(strerrorname_np(e))));
  errno = e;
  return r;
}

std::string polled(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  const int n = ::poll(&p, 1, timeout_ms);
  return std::to_string(n) + " " + mask(p.revents);
}

void note_poll(const char* what, int fd, short events, int timeout_ms) {
  out->push_back(std::string(what) + " -> " + polled(fd, events, timeout_ms));
}

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

int program() {
  // TCP: a listener, a non-blocking connect, data both ways, half-close, close.
  const int s = static_cast<int>(note_fd("socket(listener)", ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)));
  note_poll("poll(fresh tcp socket)", s, POLLIN | POLLOUT, 0);
  const int one = 1;
  note("setsockopt(SO_REUSEADDR)", ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  sockaddr_in a = loopback(7000);
  note("bind(127.0.0.1:7000)", ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a));
  note("listen", ::listen(s, 8));
  note("accept(nothing yet)", ::accept(s, nullptr, nullptr));
  note_poll("poll(idle listener)", s, POLLIN | POLLOUT, 0);
  int type = 0;
  socklen_t len = sizeof type;
  note("getsockopt(SO_TYPE)", ::getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &len));
  out->push_back("SO_TYPE is SOCK_STREAM: " + std::to_string(type == SOCK_STREAM));

  const int c = static_cast<int>(note_fd("socket(client)", ::socket(AF_INET, SOCK_STREAM, 0)));
  note("fcntl(O_NONBLOCK)", ::fcntl(c, F_SETFL, ::fcntl(c, F_GETFL) | O_NONBLOCK));
  out->push_back("F_GETFL has O_NONBLOCK: " + std::to_string((::fcntl(c, F_GETFL) & O_NONBLOCK) != 0));
  note("connect(listener)", ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a));
  note_poll("poll(connecting client, 2 s)", c, POLLOUT, 2000);
  int err = -1;
  len = sizeof err;
  note("getsockopt(SO_ERROR)", ::getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len));
  out->push_back("SO_ERROR = " + std::to_string(err));
  note("connect(again, connected)", ::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a));
  note_poll("poll(listener with a connection, 2 s)", s, POLLIN, 2000);
  sockaddr_in peer{};
  len = sizeof peer;
  const int d = static_cast<int>(note_fd("accept4(SOCK_NONBLOCK)", ::accept4(s, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK)));
  sockaddr_in mine{};
  socklen_t mine_len = sizeof mine;
  ::getsockname(c, reinterpret_cast<sockaddr*>(&mine), &mine_len);
  out->push_back("accept's peer is the client's address: " +
                 std::to_string(peer.sin_port == mine.sin_port && peer.sin_addr.s_addr == mine.sin_addr.s_addr));
  note("recv(nothing yet)", ::recv(d, nullptr, 0, 0) < 0 ? -1 : 0);
  char buf[64];
  note("recv(empty, non-blocking)", ::recv(d, buf, sizeof buf, 0));
  note("send(hello)", ::send(c, "hello", 5, 0));
  note_poll("poll(server side, 2 s)", d, POLLIN | POLLRDHUP, 2000);
  int avail = 0;
  note("ioctl(FIONREAD)", ::ioctl(d, FIONREAD, &avail));
  out->push_back("FIONREAD = " + std::to_string(avail));
  note("recv(MSG_PEEK)", ::recv(d, buf, sizeof buf, MSG_PEEK));
  note("recv", ::recv(d, buf, sizeof buf, 0));
  out->push_back("got " + std::string(buf, 5));
  note("shutdown(client, SHUT_WR)", ::shutdown(c, SHUT_WR));
  note_poll("poll(server after the client's FIN, 2 s)", d, POLLIN | POLLRDHUP, 2000);
  note("recv(after FIN)", ::recv(d, buf, sizeof buf, 0));
  note("send(client after SHUT_WR, MSG_NOSIGNAL)", ::send(c, "x", 1, MSG_NOSIGNAL));
  note("send(bye)", ::send(d, "bye", 3, 0));
  note_poll("poll(client, 2 s)", c, POLLIN, 2000);
  note("recv(client)", ::recv(c, buf, sizeof buf, 0));
  note("close(server side)", ::close(d));
  note_poll("poll(client after the server closed, 2 s)", c, POLLIN | POLLRDHUP, 2000);
  note("recv(client, eof)", ::recv(c, buf, sizeof buf, 0));
  note("getpeername(client)", ::getpeername(c, reinterpret_cast<sockaddr*>(&peer), &len) < 0 ? -1 : 0);
  note("close(client)", ::close(c));
  note("close(closed)", ::close(c));

  // A refused connection.
  const int r = static_cast<int>(note_fd("socket(refused)", ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)));
  sockaddr_in nobody = loopback(7999);
  note("connect(nobody listens)", ::connect(r, reinterpret_cast<sockaddr*>(&nobody), sizeof nobody));
  note_poll("poll(refused, 2 s)", r, POLLOUT, 2000);
  err = -1;
  len = sizeof err;
  ::getsockopt(r, SOL_SOCKET, SO_ERROR, &err, &len);
  out->push_back(std::string("SO_ERROR = ") + strerrorname_np(err));
  ::getsockopt(r, SOL_SOCKET, SO_ERROR, &err, &len);
  out->push_back("SO_ERROR again = " + std::to_string(err));
  ::close(r);

  // epoll, edge- and level-triggered, over the listener.
  const int ep = static_cast<int>(note_fd("epoll_create1", ::epoll_create1(EPOLL_CLOEXEC)));
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  ev.data.u64 = 42;
  note("epoll_ctl(ADD listener, EPOLLET)", ::epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
  note("epoll_ctl(ADD again)", ::epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev));
  epoll_event got[4];
  note("epoll_wait(idle, 0)", ::epoll_wait(ep, got, 4, 0));
  const int c2 = ::socket(AF_INET, SOCK_STREAM, 0);
  note("connect(blocking)", ::connect(c2, reinterpret_cast<sockaddr*>(&a), sizeof a));
  const int n1 = static_cast<int>(note("epoll_wait(2 s)", ::epoll_wait(ep, got, 4, 2000)));
  if (n1 > 0) out->push_back("event " + mask(static_cast<int>(got[0].events)) + " data " + std::to_string(got[0].data.u64));
  note("epoll_wait(edge already given, 0)", ::epoll_wait(ep, got, 4, 0));
  ev.events = EPOLLIN;
  note("epoll_ctl(MOD level)", ::epoll_ctl(ep, EPOLL_CTL_MOD, s, &ev));
  note("epoll_wait(level, 0)", ::epoll_wait(ep, got, 4, 0));
  note("epoll_wait(level again, 0)", ::epoll_wait(ep, got, 4, 0));
  const int d2 = ::accept(s, nullptr, nullptr);
  note("epoll_wait(accepted, 0)", ::epoll_wait(ep, got, 4, 0));
  note("epoll_ctl(DEL)", ::epoll_ctl(ep, EPOLL_CTL_DEL, s, &ev));
  note("epoll_ctl(DEL again)", ::epoll_ctl(ep, EPOLL_CTL_DEL, s, &ev));
  ::close(d2);
  ::close(c2);
  ::close(ep);
  ::close(s);

  // UDP: a datagram, truncated.
  const int u1 = ::socket(AF_INET, SOCK_DGRAM, 0);
  const int u2 = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_in ua = loopback(7100);
  note("bind(udp)", ::bind(u2, reinterpret_cast<sockaddr*>(&ua), sizeof ua));
  note("send(udp, unconnected)", ::send(u1, "x", 1, 0));
  note("recvfrom(udp, empty)", ::recvfrom(u2, buf, sizeof buf, 0, nullptr, nullptr));
  note("sendto(udp 10 bytes)", ::sendto(u1, "0123456789", 10, 0, reinterpret_cast<sockaddr*>(&ua), sizeof ua));
  note_poll("poll(udp, 2 s)", u2, POLLIN, 2000);
  iovec v{buf, 4};
  msghdr m{};
  m.msg_iov = &v;
  m.msg_iovlen = 1;
  note("recvmsg(4 of 10)", ::recvmsg(u2, &m, 0));
  out->push_back("MSG_TRUNC: " + std::to_string((m.msg_flags & MSG_TRUNC) != 0));
  ::close(u1);
  ::close(u2);

  // eventfd, pipe, timerfd.
  const int e = static_cast<int>(note_fd("eventfd(0, EFD_NONBLOCK)", ::eventfd(0, EFD_NONBLOCK)));
  std::uint64_t value = 0;
  note("read(eventfd, empty)", ::read(e, &value, sizeof value));
  value = 3;
  note("write(eventfd, 3)", ::write(e, &value, sizeof value));
  note_poll("poll(eventfd)", e, POLLIN | POLLOUT, 0);
  note("read(eventfd)", ::read(e, &value, sizeof value));
  out->push_back("eventfd value " + std::to_string(value));
  ::close(e);
  int fds[2];
  note("pipe2(O_NONBLOCK)", ::pipe2(fds, O_NONBLOCK));
  note_poll("poll(pipe write end)", fds[1], POLLIN | POLLOUT, 0);
  note("write(pipe)", ::write(fds[1], "abc", 3));
  note("read(pipe)", ::read(fds[0], buf, sizeof buf));
  note("read(pipe, empty)", ::read(fds[0], buf, sizeof buf));
  note("close(pipe write end)", ::close(fds[1]));
  note_poll("poll(pipe read end, writer gone)", fds[0], POLLIN, 0);
  note("read(pipe, eof)", ::read(fds[0], buf, sizeof buf));
  ::close(fds[0]);
  const int t = static_cast<int>(note_fd("timerfd_create", ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK)));
  itimerspec spec{};
  spec.it_value.tv_nsec = 50'000'000;
  note("timerfd_settime(50 ms)", ::timerfd_settime(t, 0, &spec, nullptr));
  note("read(timerfd, not yet)", ::read(t, &value, sizeof value));
  note_poll("poll(timerfd, 1 s)", t, POLLIN, 1000);
  note("read(timerfd)", ::read(t, &value, sizeof value));
  out->push_back("expirations " + std::to_string(value));
  ::close(t);

  // Numeric name lookups (what a name resolves to is the world's, or the machine's /etc/hosts).
  sockaddr_in numeric = loopback(7000);
  char host[64] = "", serv[16] = "";
  note("getnameinfo(numeric)", ::getnameinfo(reinterpret_cast<sockaddr*>(&numeric), sizeof numeric, host, sizeof host,
                                             serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV));
  out->push_back(std::string(host) + " " + serv);
  // An EAI_ code, not errno.
  out->push_back("getnameinfo(too short) = " +
                 std::to_string(::getnameinfo(reinterpret_cast<sockaddr*>(&numeric), 4, host, sizeof host, serv,
                                              sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV)));
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  note("getaddrinfo(127.0.0.1, 7000)", ::getaddrinfo("127.0.0.1", "7000", &hints, &res));
  if (res != nullptr) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(res->ai_addr);
    out->push_back("family " + std::to_string(res->ai_family) + " port " + std::to_string(ntohs(in->sin_port)) +
                   " more " + std::to_string(res->ai_next != nullptr));
    ::freeaddrinfo(res);
  }
  return 0;
}

std::vector<std::string> simulated() {
  std::vector<std::string> log;
  // Seeded short writes and cut segments are simasio's exploration, off in
  // a comparison with Linux (the README's table of modelled differences).
  simasio::world_options options;
  options.seed = 7;
  options.link.partial_writes = 0;
  options.link.split_segments = 0;
  simasio::world w(options);
  auto& h = w.add_host("h");
  const simasio::process p = h.spawn([&] {
    out = &log;
    program();
  });
  w.run_for(std::chrono::seconds(60));
  if (!p.ended()) log.push_back("(the simulated program did not end: " + w.pending_report() + ")");
  return log;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--real") {
    std::vector<std::string> log;
    out = &log;
    program();
    for (const auto& line : log) std::cout << line << "\n";
    return 0;
  }
  // The real side, in a network namespace of its own with loopback up.
  const std::string cmd = "unshare -n sh -c 'ip link set lo up && exec \"$0\" --real' '" + std::string(argv[0]) + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string real_text;
  char chunk[4096];
  std::size_t n;
  while (pipe != nullptr && (n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) real_text.append(chunk, n);
  const int status = pipe != nullptr ? ::pclose(pipe) : -1;
  if (status != 0) {
    std::cout << "SKIP: no network namespace for the real side (unshare -n and ip, as root)\n" << real_text;
    return 77;
  }
  std::vector<std::string> real;
  std::size_t start = 0;
  for (std::size_t i; (i = real_text.find('\n', start)) != std::string::npos; start = i + 1)
    real.push_back(real_text.substr(start, i - start));
  const std::vector<std::string> sim = simulated();
  int differences = 0;
  for (std::size_t i = 0; i < std::max(real.size(), sim.size()); ++i) {
    const std::string r = i < real.size() ? real[i] : "(nothing)";
    const std::string s = i < sim.size() ? sim[i] : "(nothing)";
    if (r != s) {
      ++differences;
      std::cout << "DIFFERS line " << i + 1 << "\n  kernel:     " << r << "\n  simulation: " << s << "\n";
    }
  }
  std::cout << real.size() << " lines from the kernel, " << sim.size() << " from the simulation, " << differences
            << " differ\n";
  return differences == 0 && !real.empty() ? 0 : 1;
}
