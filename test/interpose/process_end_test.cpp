// process_end_test.cpp — a simulated process dies alone, as on Linux: abort, assert, exit, pthread_exit, signals
//
// Each way a Linux process ends, called inside a simulated process, ends
// that process and only it: its threads stop, its sockets and files close,
// another host's process carries on, and the handle says how it ended.
#undef NDEBUG  // the asserts below must fire in every build
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include "../support.hpp"

#include <cassert>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/epoll.h>
#include <thread>
#include <unistd.h>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

simasio::world_options expecting_crashes(std::uint64_t seed) {
  simasio::world_options o;
  o.seed = seed;
  o.abnormal_exits_fail = false;
  return o;
}

// A bystander on another host: counts to n in steps of 1 ms of virtual time.
simasio::process bystander(simasio::world& w, int n) {
  return w.add_host("bystander").spawn_main(
      [](int argc, char** argv) {
        const int count = std::atoi(argv[argc - 1]);
        for (int i = 0; i < count; ++i) std::this_thread::sleep_for(1ms);
        return 7;
      },
      {"bystander", std::to_string(n)});
}

// Runs `body` as a process of host "h" next to a bystander; returns its handle.
template <class F>
simasio::process run_beside_bystander(simasio::world& w, F body) {
  const simasio::process other = bystander(w, 20);
  const simasio::process p = w.add_host("h").spawn(body);
  w.run();
  BOOST_TEST(other.ended());
  BOOST_TEST(other.exit_code().value_or(-1) == 7);  // the world went on, and so did the other host
  BOOST_TEST(p.ended());
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(process_end)

// ../shared/repro/crash_outside_run.cpp: host::crash() from the scenario
// body, between runs, unwinds the host's processes inside the world: a
// destructor that waits on a condition variable (timed, or with nobody to
// notify it) meets the simulation, not a real futex wait on the test
// program's thread, which would hang the seed (the watchdog then reports
// it hung: a test of the defect that cannot hang the suite).
BOOST_AUTO_TEST_CASE(a_crash_from_the_scenario_body_unwinds_processes_inside_the_world) {
  struct waits_in_destructor {
    bool timed;
    std::mutex m;
    std::condition_variable cv;
    ~waits_in_destructor() {
      std::unique_lock<std::mutex> l(m);
      if (timed) cv.wait_for(l, 2s);
      else cv.wait(l);
    }
  };
  for (const bool timed : {true, false}) {
    const auto r = simasio::check(
        [timed](simasio::world& w) {
          auto& h = w.add_host("h");
          const simasio::process p = h.spawn([timed] {
            waits_in_destructor guard{timed};
            std::thread helper([] { std::this_thread::sleep_for(1h); });
            helper.detach();
            for (;;) std::this_thread::sleep_for(1h);
          });
          w.run_for(1s);
          h.crash();  // from the scenario body, between runs
          if (!p.ended()) throw std::runtime_error("the crashed host's process did not end");
          h.restart();
          w.run_for(1s);
        },
        simasio_test::watched_sweep(10));
    BOOST_TEST(r.ok(), (timed ? "timed: " : "untimed: ") << (r.failure ? r.failure->what : ""));
  }
}

// With abnormal ends expected, an uncaught exception in a std::thread still
// ends the whole process at once with SIGABRT, as std::terminate does on
// Linux: main does not go on.
BOOST_AUTO_TEST_CASE(an_uncaught_exception_in_a_thread_ends_the_whole_process_when_abnormal_ends_are_expected) {
  simasio::world_options o;
  o.seed = 3;
  o.abnormal_exits_fail = false;
  simasio::world w(o);
  auto& h = w.add_host("h");
  auto main_went_on = std::make_shared<bool>(false);
  const simasio::process p = h.spawn([main_went_on] {
    std::thread t([] { throw std::runtime_error("a worker's bug"); });
    std::this_thread::sleep_for(1s);
    *main_went_on = true;
    t.join();
  });
  w.run_for(5s);
  BOOST_TEST(p.ended());
  BOOST_TEST((p.signal() == SIGABRT));
  BOOST_TEST(!*main_went_on);
  BOOST_TEST(p.why().find("a worker's bug") != std::string::npos, p.why());
}

BOOST_AUTO_TEST_CASE(abort_ends_only_its_process_with_sigabrt) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(expecting_crashes(seed));
    bool after = false;
    const simasio::process p = run_beside_bystander(w, [&after] {
      std::this_thread::sleep_for(3ms);
      std::abort();
      after = true;
    });
    BOOST_TEST(p.signal().value_or(0) == SIGABRT);
    BOOST_TEST(!p.exit_code().has_value());
    BOOST_TEST(!p.killed());
    BOOST_TEST(!after);
  }
}

BOOST_AUTO_TEST_CASE(an_abnormal_end_fails_the_run_naming_host_process_and_cause_by_default) {
  simasio::world w(1);
  bystander(w, 5);
  w.add_host("db").spawn([] {
    const int replicas = 2;
    assert(replicas == 3 && "three replicas");
  });
  try {
    w.run();
    BOOST_FAIL("the abnormal end did not fail the run");
  } catch (const simasio::abnormal_exit& e) {
    BOOST_TEST(e.host() == "db");
    BOOST_TEST(e.signal() == SIGABRT);
    const std::string what = e.what();
    BOOST_TEST(what.find("process #1 of host 'db'") != std::string::npos, what);
    BOOST_TEST(what.find("SIGABRT") != std::string::npos, what);
    BOOST_TEST(what.find("three replicas") != std::string::npos, what);
  }
  // The world goes on after the failure: the bystander finishes.
  w.run();
  BOOST_TEST(w.get_host("bystander").up());
}

BOOST_AUTO_TEST_CASE(a_failed_assert_in_a_thread_ends_the_whole_process_and_no_other) {
  simasio::world w(expecting_crashes(3));
  auto after_join = std::make_shared<bool>(false);
  const simasio::process p = run_beside_bystander(w, [after_join] {
    std::thread t([] {
      std::this_thread::sleep_for(2ms);
      const int x = 1;
      assert(x == 2);
    });
    t.join();
    *after_join = true;
  });
  BOOST_TEST(p.signal().value_or(0) == SIGABRT);
  BOOST_TEST(p.why().find("Assertion `x == 2' failed") != std::string::npos, p.why());
  BOOST_TEST(!*after_join);  // main() never came back from join: its process was gone
}

BOOST_AUTO_TEST_CASE(exit_from_a_thread_ends_the_process_with_its_status_and_is_no_failure) {
  for (auto how : {0, 1, 2, 3}) {
    simasio::world w(static_cast<std::uint64_t>(how));  // abnormal ends fail by default; these are normal
    const simasio::process p = run_beside_bystander(w, [how] {
      std::thread t([how] {
        std::this_thread::sleep_for(1ms);
        if (how == 0) std::exit(3);
        if (how == 1) ::_exit(3);
        if (how == 2) std::_Exit(3);
        std::quick_exit(3);
      });
      std::this_thread::sleep_for(1h);  // never woken: the thread's exit ends it
      t.join();
    });
    BOOST_TEST(p.exit_code().value_or(-1) == 3);
    BOOST_TEST(!p.signal().has_value());
    BOOST_TEST(w.now() < 1h);
  }
}

BOOST_AUTO_TEST_CASE(pthread_exit_ends_a_thread_with_its_value_and_main_waits_for_the_rest) {
  simasio::world w(2);
  auto got = std::make_shared<long>(0);
  const simasio::process p = run_beside_bystander(w, [got] {
    pthread_t t;
    pthread_create(
        &t, nullptr,
        [](void*) -> void* {
          std::string on_the_stack = "unwound";  // pthread_exit unwinds, as glibc's does
          pthread_exit(reinterpret_cast<void*>(42));
        },
        nullptr);
    void* value = nullptr;
    pthread_join(t, &value);
    *got = reinterpret_cast<long>(value);
  });
  BOOST_TEST(*got == 42);
  BOOST_TEST(p.exit_code().value_or(-1) == 0);

  // main() itself calls pthread_exit: the process lives until its thread ends.
  simasio::world w2(3);
  auto finished = std::make_shared<bool>(false);
  const simasio::process q = w2.add_host("h").spawn([finished] {
    std::thread([finished] {
      std::this_thread::sleep_for(10ms);
      *finished = true;
    }).detach();
    pthread_exit(nullptr);
  });
  w2.run_for(5ms);
  BOOST_TEST(!q.ended());
  w2.run();
  BOOST_TEST(*finished);
  BOOST_TEST(q.ended());
  BOOST_TEST(q.exit_code().value_or(-1) == 0);
}

BOOST_AUTO_TEST_CASE(std_terminate_an_uncaught_exception_and_raised_signals_end_the_process) {
  {
    simasio::world w(expecting_crashes(4));
    const simasio::process p = run_beside_bystander(w, [] { std::terminate(); });
    BOOST_TEST(p.signal().value_or(0) == SIGABRT);
    BOOST_TEST(p.why().find("std::terminate") != std::string::npos);
  }
  {
    simasio::world w(expecting_crashes(5));
    const simasio::process p = run_beside_bystander(w, [] { throw std::runtime_error("nobody catches this"); });
    BOOST_TEST(p.signal().value_or(0) == SIGABRT);
  }
  for (int sig : {SIGSEGV, SIGTERM, SIGKILL}) {
    simasio::world w(expecting_crashes(6));
    const simasio::process p = run_beside_bystander(w, [sig] { std::raise(sig); });
    BOOST_TEST(p.signal().value_or(0) == sig);
  }
  {
    simasio::world w(expecting_crashes(7));
    const simasio::process p = run_beside_bystander(w, [] { ::kill(::getpid(), SIGINT); });
    BOOST_TEST(p.signal().value_or(0) == SIGINT);
  }
}

BOOST_AUTO_TEST_CASE(the_os_closes_a_dead_processs_socket_and_its_peer_reads_eof) {
  simasio::world w(expecting_crashes(8));
  auto& server = w.add_host("server");
  auto& client = w.add_host("client");
  auto peer_saw = std::make_shared<boost::system::error_code>();
  auto got = std::make_shared<std::string>();
  server.spawn([peer_saw, got] {
    net::io_context ioc;
    tcp::acceptor acceptor(ioc, {tcp::v4(), 7000});
    tcp::socket s = acceptor.accept();
    char buf[64];
    for (;;) {
      boost::system::error_code ec;
      const std::size_t n = s.read_some(net::buffer(buf), ec);
      if (ec) {
        *peer_saw = ec;
        return;
      }
      got->append(buf, n);
    }
  });
  const simasio::process c = client.spawn([at = server.address()] {
    net::io_context ioc;
    tcp::socket s(ioc);
    s.connect({at, 7000});
    net::write(s, net::buffer(std::string("hello")));
    std::abort();  // never closes s: the OS does
  });
  w.run();
  BOOST_TEST(c.signal().value_or(0) == SIGABRT);
  BOOST_TEST(*got == "hello");
  BOOST_TEST(*peer_saw == net::error::eof, peer_saw->message());
}

BOOST_AUTO_TEST_CASE(a_dead_processs_files_are_closed_and_its_host_runs_the_next_one) {
  simasio::world w(expecting_crashes(9));
  auto& h = w.add_host("h");
  auto fd = std::make_shared<int>(-1);
  const simasio::process first = h.spawn([fd] {
    *fd = ::open("/simdisk/f", O_RDWR | O_CREAT, 0644);
    ::pwrite(*fd, "abc", 3, 0);
    ::_exit(1);
  });
  w.run();
  BOOST_TEST(first.exit_code().value_or(-1) == 1);
  auto read_back = std::make_shared<std::string>();
  auto stale = std::make_shared<int>(0);
  h.spawn([fd, read_back, stale] {
    char buf[3];
    *stale = static_cast<int>(::pread(*fd, buf, 1, 0));  // the dead process's descriptor
    const int mine = ::open("/simdisk/f", O_RDONLY);
    if (::pread(mine, buf, 3, 0) == 3) read_back->assign(buf, 3);
    ::close(mine);
  });
  w.run();
  BOOST_TEST(*stale == -1);
  BOOST_TEST(*read_back == "abc");  // exit is no crash: the page cache kept it
  ::close(*fd);
}

// As exit() does on Linux, main() returning ends the threads first and
// closes the process's descriptors after. A thread of a library's pool
// (Asio's scheduler in a shared object: a noexcept thread function) that
// its end finds at a scheduling point goes on to its next call, which must
// still find its descriptor simulated: it is unwound from that call, and
// nothing reaches the kernel.
namespace {

// The pool thread's view (one run at a time): its epoll descriptor and
// what it got to. A global, so that the thread owns nothing on the heap
// when its unwinding is cut short (std::terminate ends it, as the kernel
// discards a thread): nothing is left to leak.
struct pool_thread_state {
  int ep = -1;
  bool yielded = false;
  bool returned = false;
} pool_thread;

void* pool_thread_main(void*) noexcept {
  sched_yield();  // main returns meanwhile
  pool_thread.yielded = true;
  epoll_event got[4];
  ::epoll_wait(pool_thread.ep, got, 4, -1);  // nothing ever arrives
  pool_thread.returned = true;
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(main_returning_ends_its_threads_before_closing_their_descriptors) {
  int unwound = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::world w(expecting_crashes(seed));
    pool_thread = {};
    const simasio::process p = run_beside_bystander(w, [] {
      int ends[2];
      ::pipe(ends);
      pool_thread.ep = ::epoll_create1(0);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ::epoll_ctl(pool_thread.ep, EPOLL_CTL_ADD, ends[0], &ev);
      pthread_t worker;
      ::pthread_create(&worker, nullptr, &pool_thread_main, nullptr);
      ::pthread_detach(worker);
      sched_yield();
    });
    BOOST_TEST(p.exit_code().value_or(-1) == 0);
    BOOST_TEST(!pool_thread.returned);  // its wait did not reach the kernel (EBADF there)
    if (pool_thread.yielded) ++unwound;
  }
  BOOST_TEST(unwound > 0);  // the case arose
}

BOOST_AUTO_TEST_CASE(how_a_process_ended_is_in_the_trace) {
  simasio::world_options o = expecting_crashes(10);
  o.record_trace = true;
  simasio::world w(o);
  w.add_host("h").spawn([] { std::_Exit(5); });
  w.add_host("g").spawn([] { std::abort(); });
  w.run();
  std::string ends;
  for (const auto& e : w.events().events())
    if (e.kind == simasio::event_kind::process_end) ends += simasio::describe(e) + "\n";
  BOOST_TEST(ends.find("how=exited status=5") != std::string::npos, ends);
  BOOST_TEST(ends.find("how=signaled signal=6") != std::string::npos, ends);
  // ... and in the hosts' logs, at their virtual time.
  std::string log;
  for (const std::string& line : simasio::log::recent_lines(w)) log += line + "\n";
  BOOST_TEST(log.find("[h] [info] process #0 exited with status 5") != std::string::npos, log);
  BOOST_TEST(log.find("[g] [error] process #1 was killed by SIGABRT (Aborted): abort()") != std::string::npos, log);
}

BOOST_AUTO_TEST_CASE(a_sweep_of_aborting_processes_reports_the_seed_and_goes_on_to_the_next_test) {
  simasio::check_options o;
  o.seeds = 30;
  o.print = false;
  o.shrink = false;
  o.artifacts = false;
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        h.spawn([] {
          int shared = 0;
          std::thread a([&] {
            const int seen = shared;
            std::this_thread::yield();
            shared = seen + 1;
          });
          std::thread b([&] {
            const int seen = shared;
            std::this_thread::yield();
            shared = seen + 1;
          });
          a.join();
          b.join();
          assert(shared == 2);  // a lost update on some seeds
        });
        w.run();
      },
      o);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->type == "simasio::abnormal_exit");
  BOOST_TEST(r.failure->what.find("host 'h'") != std::string::npos);
  BOOST_TEST(r.failure->what.find("Assertion `shared == 2' failed") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_SUITE_END()
