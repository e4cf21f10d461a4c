// threads_test.cpp — std::thread, mutexes, condition variables, sleeps and futures inside simulated processes
//
// With simasio::interpose linked, the threads a process starts are fibers
// of its host; their locks, waits and sleeps block fibers, and each
// contention point is a seeded scheduling choice. These tests show the
// interleavings are explored (a missing lock or predicate fails on some
// seeds), replay per seed, and survive crashes.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/detail/thread_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <pthread.h>
#include <sys/single_threaded.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

simasio::check_options sweep(std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.shrink = false;
  o.artifacts = false;
  o.print = false;
  return o;
}

std::string failure_of(const simasio::check_result& r) { return r.failure ? r.failure->what : "ok"; }

// Two threads each add 1 to a shared counter `n` times, reading and
// writing it around a yield (a scheduling point), with or without a mutex.
int racing_increments(simasio::world& w, bool locked, int n) {
  auto& h = w.add_host("h");
  auto total = std::make_shared<int>(0);
  const simasio::process p = h.spawn([total, locked, n] {
    std::mutex m;
    auto work = [&] {
      for (int i = 0; i < n; ++i) {
        std::unique_lock<std::mutex> lock(m, std::defer_lock);
        if (locked) lock.lock();
        const int seen = *total;
        std::this_thread::yield();
        *total = seen + 1;
      }
    };
    std::thread a(work);
    std::thread b(work);
    a.join();
    b.join();
  });
  w.run();
  if (!p.ended() || p.exit_code() != 0) throw std::runtime_error("the process did not end: " + w.pending_report());
  return *total;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(threads)

BOOST_AUTO_TEST_CASE(a_std_thread_in_a_process_runs_on_its_host_and_join_returns_its_work) {
  simasio::world w(7);
  auto& h = w.add_host("alpha");
  std::string host_of_thread;
  std::thread::id main_id, thread_id;
  const simasio::process p = h.spawn([&] {
    main_id = std::this_thread::get_id();
    std::thread t([&] {
      net::io_context ioc;  // a default context in a thread joins the host, as in its process
      host_of_thread = ioc.get_host().name();
      thread_id = std::this_thread::get_id();
    });
    t.join();
  });
  w.run();
  BOOST_TEST((p.exit_code() == 0));
  BOOST_TEST(host_of_thread == "alpha");
  BOOST_TEST((thread_id != main_id));
  BOOST_TEST((thread_id != std::thread::id()));
}

// ../shared/repro/static_init_race.cpp: two simulated threads reach one
// function-local static whose constructor locks a mutex (a scheduling
// point). On Linux the second waits in __cxa_guard_acquire; simulated
// threads make the program multi-threaded as glibc's pthread_create does,
// so libstdc++ waits too (a futex wait, simulated) instead of throwing
// recursive_init_error on the seeds where the second thread runs first.
namespace static_init {
struct helper {
  std::mutex m;
  std::chrono::steady_clock::time_point t;
  helper() {
    std::lock_guard<std::mutex> l(m);
    t = std::chrono::steady_clock::now();
  }
};
int worker() {
  static helper h;
  return h.t.time_since_epoch().count() != 0 ? 1 : 0;
}
}  // namespace static_init

BOOST_AUTO_TEST_CASE(two_threads_reaching_a_static_whose_constructor_blocks_wait_for_it_on_every_seed) {
  const auto r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        auto multi = std::make_shared<int>(-1);
        const simasio::process p = h.spawn_main(
            [multi](int, char**) {
              int a = 0, b = 0;
              std::thread t1([&] { a = static_init::worker(); });
              *multi = __libc_single_threaded;
              std::thread t2([&] { b = static_init::worker(); });
              t1.join();
              t2.join();
              return a + b == 2 ? 0 : 1;
            },
            {"static_init_race"});
        w.run_until([&] { return p.ended(); }, std::chrono::seconds(10));
        if (!p.ended() || p.exit_code() != 0)
          throw std::runtime_error("the process did not return 0: " +
                                   (p.ended() ? p.why() + p.stderr_text() : w.pending_report()));
        if (*multi != 0) throw std::runtime_error("__libc_single_threaded stayed set after a thread started");
      },
      sweep(40));
  BOOST_TEST(r.ok(), failure_of(r));
  BOOST_TEST(r.runs == 40u);
}

BOOST_AUTO_TEST_CASE(sleep_for_and_timed_waits_take_virtual_time_exactly) {
  simasio::world w(3);
  auto& h = w.add_host("h");
  std::vector<std::chrono::nanoseconds> took;
  bool timed_out = false;
  h.spawn([&] {
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(5s);
    const auto t1 = std::chrono::steady_clock::now();
    std::mutex m;
    std::condition_variable cv;
    std::unique_lock<std::mutex> lock(m);
    timed_out = cv.wait_for(lock, 250ms) == std::cv_status::timeout;
    const auto t2 = std::chrono::steady_clock::now();
    usleep(1000);
    const auto t3 = std::chrono::steady_clock::now();
    took = {t1 - t0, t2 - t1, t3 - t2};
  });
  w.run();
  BOOST_TEST(timed_out);
  BOOST_REQUIRE(took.size() == 3u);
  BOOST_TEST(took[0].count() == std::chrono::nanoseconds(5s).count());
  BOOST_TEST(took[1].count() == std::chrono::nanoseconds(250ms).count());
  BOOST_TEST(took[2].count() == std::chrono::nanoseconds(1ms).count());
  BOOST_TEST(w.now() == simasio::duration(5s + 250ms + 1ms));
}

BOOST_AUTO_TEST_CASE(a_missing_mutex_loses_updates_on_some_seeds_and_the_mutex_never_does) {
  // Each seed runs in a process of its own (it spawns): it counts its total
  // in the sweep's result, not in this program's memory.
  const simasio::check_result racy = simasio::check(
      [](simasio::world& w) {
        const int total = racing_increments(w, false, 20);
        simasio::count_in_run(total < 40 ? "lost updates" : "kept every update");
        simasio::count_in_run("total " + std::to_string(total));
      },
      sweep(60));
  BOOST_TEST(racy.ok(), failure_of(racy));
  BOOST_TEST(racy.isolated);
  BOOST_TEST(racy.counts.size() > 3u);              // two or more distinct totals: the interleaving depends on the seed
  BOOST_TEST(racy.counts.count("lost updates") == 1u);  // some seeds lose updates
  const simasio::check_result locked = simasio::check(
      [](simasio::world& w) {
        const int total = racing_increments(w, true, 20);
        if (total != 40) throw std::runtime_error("a locked counter lost updates: " + std::to_string(total));
      },
      sweep(60));
  BOOST_TEST(locked.ok(), failure_of(locked));
}

BOOST_AUTO_TEST_CASE(the_interleaving_replays_from_the_seed) {
  auto order_of = [](std::uint64_t seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    auto order = std::make_shared<std::string>();
    h.spawn([order] {
      std::mutex m;
      std::vector<std::thread> ts;
      for (char c : std::string("abcd"))
        ts.emplace_back([&, c] {
          for (int i = 0; i < 3; ++i) {
            std::lock_guard<std::mutex> lock(m);
            *order += c;
          }
        });
      for (auto& t : ts) t.join();
    });
    w.run();
    return *order;
  };
  std::set<std::string> orders;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const std::string first = order_of(seed);
    BOOST_TEST(first.size() == 12u);
    BOOST_TEST(order_of(seed) == first);
    orders.insert(first);
  }
  BOOST_TEST(orders.size() > 5u);
}

BOOST_AUTO_TEST_CASE(a_condition_variable_with_a_predicate_hands_every_item_over) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        auto got = std::make_shared<std::vector<int>>();
        const simasio::process p = h.spawn([got] {
          std::mutex m;
          std::condition_variable cv;
          std::vector<int> queue;
          bool done = false;
          std::thread consumer([&] {
            std::unique_lock<std::mutex> lock(m);
            for (;;) {
              cv.wait(lock, [&] { return !queue.empty() || done; });
              if (queue.empty()) return;
              got->push_back(queue.front());
              queue.erase(queue.begin());
            }
          });
          for (int i = 0; i < 10; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(i % 3));
            {
              std::lock_guard<std::mutex> lock(m);
              queue.push_back(i);
            }
            cv.notify_one();
          }
          {
            std::lock_guard<std::mutex> lock(m);
            done = true;
          }
          cv.notify_all();
          consumer.join();
        });
        w.run();
        if (!p.ended()) throw std::runtime_error("stuck: " + w.pending_report());
        if (got->size() != 10u) throw std::runtime_error("items lost");
        for (int i = 0; i < 10; ++i)
          if ((*got)[static_cast<std::size_t>(i)] != i) throw std::runtime_error("items out of order");
      },
      sweep(100));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_wait_without_a_predicate_loses_the_wake_up_on_some_seeds_and_the_stall_names_it) {
  int stalled = 0, fine = 0;
  std::string report;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    simasio::world w(seed);
    auto& h = w.add_host("h");
    const simasio::process p = h.spawn([] {
      std::mutex m;
      std::condition_variable cv;
      bool ready = false;
      std::thread waiter([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock);  // the bug: no predicate, so a notify that came first is lost
        (void)ready;
      });
      {
        std::lock_guard<std::mutex> lock(m);
        ready = true;
      }
      cv.notify_one();
      waiter.join();
    });
    w.run();
    if (p.ended()) {
      ++fine;
    } else {
      ++stalled;
      BOOST_TEST(w.stalled());
      report = w.pending_report();
    }
  }
  BOOST_TEST(stalled > 0);
  BOOST_TEST(fine > 0);
  BOOST_TEST(report.find("std::condition_variable::wait") != std::string::npos, report);
  BOOST_TEST(report.find("std::thread::join") != std::string::npos, report);
}

BOOST_AUTO_TEST_CASE(futures_from_std_async_a_promise_and_use_future_complete_in_a_process) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        auto& server = w.add_host("server");
        auto& client = w.add_host("client");
        server.spawn([] {
          net::io_context ioc;
          tcp::acceptor acceptor(ioc, tcp::endpoint(tcp::v4(), 7000));
          tcp::socket s = acceptor.accept();
          net::write(s, net::buffer(std::string("pong")));
          ioc.run();
        });
        auto results = std::make_shared<std::vector<std::string>>();
        const simasio::process c = client.spawn([results] {
          auto twice = std::async(std::launch::async, [] {
            std::this_thread::sleep_for(10ms);
            return 21 * 2;
          });
          std::promise<std::string> promised;
          std::thread setter([&] {
            std::this_thread::sleep_for(3ms);
            promised.set_value("kept");
          });
          results->push_back(promised.get_future().get());
          setter.join();
          results->push_back(std::to_string(twice.get()));
          // An io_context run by a thread, and a read through use_future, as
          // Asio's futures/daytime_client does.
          net::io_context ioc;
          auto guard = net::make_work_guard(ioc);
          std::thread runner([&] { ioc.run(); });
          tcp::socket s(ioc);
          tcp::resolver resolver(ioc);
          net::async_connect(s, resolver.resolve("server", "7000"), net::use_future).get();
          std::string buf(4, '\0');
          const std::size_t n = net::async_read(s, net::buffer(buf), net::use_future).get();
          results->push_back(buf.substr(0, n));
          guard.reset();
          s.close();
          runner.join();
        });
        if (!w.run_until([&] { return c.ended(); }, 60s)) throw std::runtime_error("stuck: " + w.pending_report());
        if (*results != std::vector<std::string>{"kept", "42", "pong"}) throw std::runtime_error("wrong results");
      },
      sweep(50));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_crash_unwinds_threads_blocked_in_locks_waits_sleeps_and_futures) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        auto unwound = std::make_shared<int>(0);
        struct mark {
          std::shared_ptr<int> n;
          ~mark() { ++*n; }
        };
        const simasio::process p = h.spawn([unwound] {
          mark m{unwound};
          std::mutex mu;
          std::condition_variable cv;
          std::promise<int> never;
          std::unique_lock<std::mutex> held(mu, std::defer_lock);
          std::thread sleeper([&] {
            mark s{unwound};
            std::this_thread::sleep_for(1h);
          });
          std::thread waiter([&] {
            mark s{unwound};
            std::unique_lock<std::mutex> lock(mu);
            cv.wait(lock, [] { return false; });
          });
          std::thread future_waiter([&] {
            mark s{unwound};
            never.get_future().get();
          });
          sleeper.detach();
          waiter.detach();
          future_waiter.detach();
          std::this_thread::sleep_for(1h);
        });
        w.run_for(1s);
        h.crash();
        if (!p.ended() || !p.killed()) throw std::runtime_error("the process was not ended by the crash");
        if (*unwound != 4) throw std::runtime_error("unwound " + std::to_string(*unwound) + " of 4 stacks");
        w.run();
      },
      sweep(30));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(returning_from_main_ends_the_threads_it_left_running) {
  simasio::world w(1);
  auto& h = w.add_host("h");
  auto unwound = std::make_shared<bool>(false);
  const simasio::process p = h.spawn([unwound] {
    std::thread([unwound] {
      struct mark {
        std::shared_ptr<bool> b;
        ~mark() { *b = true; }
      } m{unwound};
      std::this_thread::sleep_for(24h);
    }).detach();
    std::this_thread::sleep_for(1s);
  });
  w.run();
  BOOST_TEST((p.exit_code() == 0));
  BOOST_TEST(*unwound);
  BOOST_TEST(w.now() == simasio::duration(1s));  // the thread's long sleep did not keep the world going
}

BOOST_AUTO_TEST_CASE(a_recursive_mutex_belongs_to_one_thread_at_a_time) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        auto& h = w.add_host("h");
        auto inside = std::make_shared<int>(0);
        auto worst = std::make_shared<int>(0);
        h.spawn([inside, worst] {
          std::recursive_mutex m;
          auto work = [&] {
            for (int i = 0; i < 5; ++i) {
              std::lock_guard<std::recursive_mutex> a(m);
              std::lock_guard<std::recursive_mutex> b(m);
              *worst = std::max(*worst, ++*inside);
              std::this_thread::yield();
              --*inside;
            }
          };
          std::thread t1(work), t2(work);
          t1.join();
          t2.join();
        });
        w.run();
        if (*worst != 1) throw std::runtime_error("two threads held the recursive mutex at once");
      },
      sweep(40));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_handler_locking_a_mutex_a_thread_holds_is_an_escape_error_naming_it) {
  simasio::world w(1);
  auto& h = w.add_host("h");
  auto m = std::make_shared<std::mutex>();
  h.spawn([m, &h] {
    std::lock_guard<std::mutex> lock(*m);
    net::post(h.context(), [m] {
      try {
        std::lock_guard<std::mutex> in_handler(*m);
      } catch (const std::system_error&) {
      }
    });
    std::this_thread::sleep_for(1s);
  });
  std::string what;
  try {
    w.run();
  } catch (const simasio::escape_error& e) {
    what = e.what();
  }
  BOOST_TEST(what.find("a mutex held by simulated process #0 of host 'h'") != std::string::npos, what);
  BOOST_TEST(what.find("would never return") != std::string::npos, what);
}

// Asio's thread pool: N threads calling run() on one io_context. Any ready
// handler may run next, as with io_context(host, N); a strand keeps order.
std::string pool_reports(simasio::world& w, int threads, bool with_strand) {
  auto& h = w.add_host("bank");
  auto reports = std::make_shared<std::string>();
  h.spawn([reports, threads, with_strand] {
    net::io_context ioc;
    int balance = 0;
    auto strand = net::make_strand(ioc);
    for (int request = 0; request < 3; ++request) {
      auto credit = [&balance] { balance += 10; };
      auto report = [&balance, reports] { *reports += std::to_string(balance) + " "; };
      if (with_strand) {
        net::post(strand, credit);
        net::post(strand, report);
      } else {
        net::post(ioc, credit);
        net::post(ioc, report);
      }
    }
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
    for (auto& t : pool) t.join();
  });
  w.run();
  return *reports;
}

BOOST_AUTO_TEST_CASE(threads_running_one_io_context_make_it_a_pool_where_only_a_strand_keeps_order) {
  int swapped = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    simasio::world one(seed), pooled(seed), stranded(seed);
    BOOST_TEST(pool_reports(one, 1, false) == "10 20 30 ");  // one thread: FIFO, as Asio
    if (pool_reports(pooled, 4, false) != "10 20 30 ") ++swapped;
    BOOST_TEST(pool_reports(stranded, 4, true) == "10 20 30 ");
  }
  BOOST_TEST(swapped > 0);
  BOOST_TEST(swapped < 60);
}

// A process's fiber keeps its own stack of running Asio schedulers: a real
// io_context run inside a process is still the one running after the
// process slept through the end of one run of the world and woke in the
// next (a run pushes a recycling cache of its own on Asio's call stack,
// which steps aside while a fiber runs), and nothing is left on the stack.
BOOST_AUTO_TEST_CASE(a_real_io_context_in_a_process_stays_current_across_its_suspensions) {
  simasio::world w(5);
  auto& h = w.add_host("h");
  std::vector<bool> running;
  h.spawn([&] {
    boost::asio::io_context real(1);
    boost::asio::post(real, [&] {
      running.push_back(real.get_executor().running_in_this_thread());
      std::this_thread::sleep_for(10ms);
      running.push_back(real.get_executor().running_in_this_thread());
    });
    real.run();
    running.push_back(real.get_executor().running_in_this_thread());
  });
  w.run_for(5ms);   // the process sleeps inside real.run()
  w.run_for(20ms);  // and wakes in the next run
  BOOST_TEST(running == (std::vector<bool>{true, true, false}));
  BOOST_TEST(boost::asio::detail::thread_context::top_of_thread_call_stack() == nullptr);
}

BOOST_AUTO_TEST_CASE(a_thread_started_from_a_handler_of_a_processs_io_context_is_a_thread_of_that_process) {
  simasio::world w(1);
  auto& h = w.add_host("h");
  auto result = std::make_shared<int>(0);
  const simasio::process p = h.spawn([result] {
    net::io_context ioc;
    // As a futures library does: its continuation's thread starts from a completion handler.
    net::post(ioc, [result] {
      std::thread([result] {
        std::this_thread::sleep_for(1ms);
        *result = 42;
      }).detach();
    });
    ioc.run();
    std::this_thread::sleep_for(5ms);
  });
  w.run();
  BOOST_TEST(p.ended());
  BOOST_TEST(p.exit_code().value_or(-1) == 0);
  BOOST_TEST(*result == 42);
}

// Two threads take two mutexes in opposite orders: on some seeds they
// deadlock. Tearing the stalled world down must never return either of
// them from pthread_mutex_lock into a critical section it does not hold.
BOOST_AUTO_TEST_CASE(tearing_down_a_deadlock_never_resumes_a_thread_into_a_lock_it_does_not_hold) {
  int deadlocks = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto entered = std::make_shared<int>(0);
    std::string report;
    {
      simasio::world w(seed);
      w.add_host("h").spawn([entered] {
        pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
        auto take = [entered](pthread_mutex_t* first, pthread_mutex_t* second) {
          pthread_mutex_lock(first);
          std::this_thread::yield();
          pthread_mutex_lock(second);  // C code: the result is not looked at
          ++*entered;
          pthread_mutex_unlock(second);
          pthread_mutex_unlock(first);
        };
        std::thread t1(take, &a, &b);
        std::thread t2(take, &b, &a);
        t1.join();
        t2.join();
      });
      w.run_for(60s);
      if (!w.stalled()) {
        BOOST_TEST(*entered == 2);
        continue;
      }
      ++deadlocks;
      report = w.pending_report();
      BOOST_TEST(*entered == 0);
    }  // the world ends here, its threads blocked in pthread_mutex_lock
    BOOST_TEST(*entered == 0, "seed " << seed << ": a thread entered a critical section during teardown");
    // The stall is dated when it began, not when the bounded run ended.
    BOOST_TEST(report.find("at t=0.000s") != std::string::npos, report);
    BOOST_TEST(report.find("went on to t=60.000s") != std::string::npos, report);
    BOOST_TEST(report.find("pthread_mutex_lock") != std::string::npos, report);
  }
  BOOST_TEST(deadlocks > 0);
}

BOOST_AUTO_TEST_CASE(a_thread_relocking_a_mutex_it_holds_deadlocks_and_teardown_does_not_hang) {
  auto after = std::make_shared<bool>(false);
  std::string report;
  {
    simasio::world w(1);
    w.add_host("h").spawn([after] {
      pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
      pthread_mutex_lock(&m);
      pthread_mutex_lock(&m);  // a normal mutex: a deadlock of its own, as on Linux
      *after = true;
    });
    w.run();
    BOOST_TEST(w.stalled());
    report = w.pending_report();
  }
  BOOST_TEST(!*after);
  BOOST_TEST(report.find("pthread_mutex_lock") != std::string::npos, report);
}

BOOST_AUTO_TEST_SUITE_END()
