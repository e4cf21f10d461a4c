// stdio_test.cpp — a simulated process's stdin, stdout and stderr: pipes the scenario feeds and reads
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include "../support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace net = simasio::asio;
using namespace std::chrono_literals;

namespace {

// A filter as a shell pipeline runs one: reads stdin until its end,
// writes each chunk upper-cased to stdout, asynchronously.
class upper_filter : public std::enable_shared_from_this<upper_filter> {
 public:
  explicit upper_filter(net::io_context& ioc) : in_(ioc, 0), out_(ioc, 1) {}
  void start() { read(); }

 private:
  void read() {
    in_.async_read_some(net::buffer(buf_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
      if (ec == net::error::eof) {
        self->out_.write_some(net::buffer(std::string("<eof>\n")));
        return;
      }
      if (ec) throw boost::system::system_error(ec);
      std::string chunk(self->buf_.data(), n);
      std::transform(chunk.begin(), chunk.end(), chunk.begin(), [](unsigned char c) { return std::toupper(c); });
      net::async_write(self->out_, net::buffer(chunk), [self, chunk](boost::system::error_code wec, std::size_t) {
        if (wec) throw boost::system::system_error(wec);
        self->read();
      });
    });
  }

  net::posix::stream_descriptor in_, out_;
  std::array<char, 4> buf_{};  // small: a line arrives in several reads
};

}  // namespace

BOOST_AUTO_TEST_SUITE(process_stdio)

// The scenario writes lines at 1 s, 2 s and 3 s and then closes stdin; the
// process's asynchronous reads take them as they come, across seeds.
BOOST_AUTO_TEST_CASE(an_async_filter_reads_what_the_scenario_writes_and_its_end) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    const simasio::process p = h.spawn([] {
      net::io_context ioc;
      std::make_shared<upper_filter>(ioc)->start();
      ioc.run();
    });
    net::steady_timer feed(h.context());
    int sent = 0;
    std::function<void()> next = [&] {
      feed.expires_after(1s);
      feed.async_wait([&](boost::system::error_code) {
        if (++sent <= 3) {
          p.write_stdin("line " + std::to_string(sent) + "\n");
          next();
        } else {
          p.close_stdin();
        }
      });
    };
    next();
    w.run();
    BOOST_TEST_REQUIRE(p.ended(), "seed " << seed);
    BOOST_TEST((p.exit_code() == 0));
    BOOST_TEST(p.stdout_text() == "LINE 1\nLINE 2\nLINE 3\n<eof>\n", "seed " << seed << ": " << p.stdout_text());
    BOOST_TEST(p.stderr_text().empty());
    BOOST_TEST(w.now() == std::chrono::nanoseconds(4s));
  }
}

// A blocking read suspends the process until the scenario writes: it
// returns at the virtual time of the write, with what was written before
// the process first ran too.
BOOST_AUTO_TEST_CASE(a_blocking_read_waits_for_the_scenario_in_virtual_time) {
  simasio::world w(7);
  auto& h = w.add_host("h");
  std::vector<std::pair<std::string, std::chrono::nanoseconds>> reads;
  const simasio::process p = h.spawn([&] {
    net::io_context ioc;
    net::posix::stream_descriptor in(ioc, 0), err(ioc, 2);
    std::array<char, 64> buf{};
    boost::system::error_code ec;
    for (;;) {
      const std::size_t n = in.read_some(net::buffer(buf), ec);
      if (ec == net::error::eof) break;
      reads.emplace_back(std::string(buf.data(), n), w.now());
    }
    net::write(err, net::buffer(std::string("read ") + std::to_string(reads.size()) + " times\n"));
  });
  p.write_stdin("early ");
  w.run_for(5s);
  BOOST_TEST(!p.ended());
  p.write_stdin("late");
  w.run_for(5s);
  p.close_stdin();
  w.run();
  BOOST_TEST_REQUIRE(reads.size() == 2u);
  BOOST_TEST(reads[0].first == "early ");
  BOOST_TEST(reads[0].second == std::chrono::nanoseconds(0));
  BOOST_TEST(reads[1].first == "late");
  BOOST_TEST(reads[1].second == std::chrono::nanoseconds(5s));
  BOOST_TEST(p.stderr_text() == "read 2 times\n");
  BOOST_TEST(p.stdout_text().empty());
}

// Boost's parallel_group example in miniature: a read of stdin races a
// timer. With input at 1 s the read wins; without, the timer at 5 s.
BOOST_AUTO_TEST_CASE(a_read_of_stdin_races_a_timer_and_cancellation_reaches_it) {
  for (const bool input : {true, false}) {
    simasio::world w(3);
    auto& h = w.add_host("h");
    std::string outcome;
    const simasio::process p = h.spawn([&] {
      net::io_context ioc;
      net::posix::stream_descriptor in(ioc, ::dup(STDIN_FILENO));  // a dup of 0 is stdin too
      net::steady_timer timer(ioc, 5s);
      std::array<char, 16> buf{};
      in.async_read_some(net::buffer(buf), [&](boost::system::error_code ec, std::size_t n) {
        if (!ec) {
          outcome = "read " + std::string(buf.data(), n);
          timer.cancel();
        } else {
          outcome += " read:" + ec.message();
        }
      });
      timer.async_wait([&](boost::system::error_code ec) {
        if (!ec) {
          outcome = "timer";
          in.cancel();
        }
      });
      ioc.run();
      in.close();
    });
    net::steady_timer t(h.context(), 1s);
    if (input) t.async_wait([&](boost::system::error_code) { p.write_stdin("go"); });
    w.run();
    BOOST_TEST(p.ended());
    if (input) {
      BOOST_TEST(outcome == "read go");
      BOOST_TEST(w.now() == std::chrono::nanoseconds(1s));
    } else {
      BOOST_TEST(outcome == "timer read:Operation canceled");
      BOOST_TEST(w.now() == std::chrono::nanoseconds(5s));
    }
  }
}

// Misuse and the wrong direction answer as Linux and Asio do, or name the fix.
BOOST_AUTO_TEST_CASE(wrong_descriptors_and_directions_are_refused_by_name) {
  simasio::world w(1);
  auto& h = w.add_host("h");
  // Outside a process: there are no standard streams to simulate.
  std::string what =
      simasio_test::what_of<simasio::escape_error>([&] { net::posix::stream_descriptor sd(h.context(), 0); });
  BOOST_TEST(what.find("outside a simulated process") != std::string::npos, what);
  BOOST_TEST(what.find("host::spawn") != std::string::npos, what);
  std::string in_process, read_out, write_in;
  const simasio::process p = h.spawn([&] {
    net::io_context ioc;
    const int fd = ::open("/dev/null", O_RDONLY);
    in_process = simasio_test::what_of<simasio::escape_error>([&] { net::posix::stream_descriptor sd(ioc, fd); });
    ::close(fd);
    net::posix::stream_descriptor out(ioc, 1), in(ioc, 0);
    std::array<char, 4> buf{};
    boost::system::error_code ec;
    out.read_some(net::buffer(buf), ec);
    read_out = ec.message();
    in.write_some(net::buffer(buf), ec);
    write_in = ec.message();
  });
  w.run();
  BOOST_TEST(p.ended());
  BOOST_TEST(in_process.find("not one of the process's standard streams") != std::string::npos, in_process);
  BOOST_TEST(read_out == "Bad file descriptor");
  BOOST_TEST(write_in == "Bad file descriptor");
  p.close_stdin();
  what = simasio_test::what_of<simasio::usage_error>([&] { p.write_stdin("x"); });
  BOOST_TEST(what.find("after process::close_stdin") != std::string::npos, what);
  what = simasio_test::what_of<simasio::usage_error>([] { simasio::process().write_stdin("x"); });
  BOOST_TEST(what.find("names no process") != std::string::npos, what);
}

// A read still pending when the world ends (or the host crashes) is
// abandoned with its process; the handle still reads what was written.
BOOST_AUTO_TEST_CASE(a_pending_read_ends_with_its_process) {
  simasio::process p;
  {
    simasio::world w(5);
    auto& h = w.add_host("h");
    p = h.spawn([] {
      net::io_context ioc;
      net::posix::stream_descriptor in(ioc, 0), out(ioc, 1);
      out.write_some(net::buffer(std::string("waiting\n")));
      std::array<char, 8> buf{};
      in.async_read_some(net::buffer(buf), [](boost::system::error_code, std::size_t) {});
      ioc.run();
    });
    w.run_for(1s);
    BOOST_TEST(w.pending_report().find("read of standard input") != std::string::npos, w.pending_report());
    h.crash();
    w.run_for(1s);
    BOOST_TEST(p.killed());
  }
  BOOST_TEST(p.stdout_text() == "waiting\n");
  p.write_stdin("after the world");  // nobody reads it; nothing breaks
}

// A deferred read and write start later, after the expression that named
// their buffers is over: the buffers travel with the operation.
BOOST_AUTO_TEST_CASE(deferred_operations_keep_their_buffers) {
  simasio::world w(9);
  auto& h = w.add_host("h");
  std::string got;
  const simasio::process p = h.spawn([&] {
    net::io_context ioc;
    net::posix::stream_descriptor in(ioc, 0), out(ioc, 1);
    std::array<char, 8> buf{};
    const std::string reply = "ok";
    auto read = in.async_read_some(net::buffer(buf), net::deferred);
    auto write = out.async_write_some(net::buffer(reply), net::deferred);
    std::move(read)([&](boost::system::error_code ec, std::size_t n) {
      if (!ec) got.assign(buf.data(), n);
      std::move(write)([](boost::system::error_code, std::size_t) {});
    });
    ioc.run();
  });
  p.write_stdin("abc");
  w.run();
  BOOST_TEST(got == "abc");
  BOOST_TEST(p.stdout_text() == "ok");
}

BOOST_AUTO_TEST_SUITE_END()
