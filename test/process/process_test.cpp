// process_test.cpp — simulated processes: blocking code on its own stack, scheduled like contexts
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include "../support.hpp"

#include <array>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;
using namespace std::chrono_literals;

namespace {

// A blocking echo server, as a textbook writes one: accept, then echo until
// the peer closes or fails, one connection after another.
void sync_echo_server(std::uint16_t port, std::shared_ptr<int> served = nullptr) {
  net::io_context ioc;  // joins the process's host
  tcp::acceptor acceptor(ioc, tcp::endpoint(tcp::v4(), port));
  for (;;) {
    tcp::socket socket(ioc);
    acceptor.accept(socket);
    if (served) ++*served;
    boost::system::error_code ec;
    std::array<char, 256> buf{};
    for (;;) {
      const std::size_t n = socket.read_some(net::buffer(buf), ec);
      if (ec) break;
      net::write(socket, net::buffer(buf.data(), n), ec);
      if (ec) break;
    }
  }
}

// A blocking client: resolve, connect, then one line at a time, each read
// back whole before the next is sent.
void sync_echo_client(const std::string& server, int lines, std::vector<std::string>& replies) {
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  tcp::socket socket(ioc);
  net::connect(socket, resolver.resolve(server, "7000"));
  for (int i = 0; i < lines; ++i) {
    const std::string line = "line " + std::to_string(i) + "\n";
    net::write(socket, net::buffer(line));
    std::string reply;
    net::read_until(socket, net::dynamic_buffer(reply), '\n');
    replies.push_back(reply);
  }
  socket.shutdown(tcp::socket::shutdown_both);
}

std::vector<std::string> expected_lines(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("line " + std::to_string(i) + "\n");
  return out;
}

simasio::link_config faulty_link() {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 30ms;
  link.loss = 0.05;
  return link;
}

// The echo pair on two hosts under latency, loss and a partition that
// heals; returns what the client got back.
std::vector<std::string> echo_under_faults(simasio::world& w, int lines) {
  w.net().configure(faulty_link());
  simasio::host& server = w.add_host("server");
  simasio::host& client = w.add_host("client");
  server.spawn([] { sync_echo_server(7000); });
  auto replies = std::make_shared<std::vector<std::string>>();
  const simasio::process c = client.spawn([replies, lines] { sync_echo_client("server", lines, *replies); });
  w.run_for(10ms);
  w.net().partition({{&server}, {&client}});
  w.run_for(790ms);
  w.net().heal();
  if (!w.run_until([&] { return c.ended(); }, 120s))
    throw std::runtime_error("the client process did not end: " + w.pending_report());
  if (c.exit_code() != 0) throw std::runtime_error("the client process did not return normally");
  return *replies;
}

// One connection of an Asio-style async echo server.
struct echo_session : std::enable_shared_from_this<echo_session> {
  explicit echo_session(tcp::socket s) : socket(std::move(s)) {}
  void read() {
    net::async_read_until(socket, net::dynamic_buffer(buf), '\n',
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                            if (ec) return;
                            auto out = std::make_shared<std::string>(self->buf.substr(0, n));
                            self->buf.erase(0, n);
                            net::async_write(self->socket, net::buffer(*out),
                                             [self, out](boost::system::error_code ec, std::size_t) {
                                               if (!ec) self->read();
                                             });
                          });
  }
  tcp::socket socket;
  std::string buf;
};

// A sweep of `seeds` seeds that reports without shrinking or artifacts.
simasio::check_options sweep(std::uint64_t seeds) {
  simasio::check_options o;
  o.seeds = seeds;
  o.shrink = false;
  o.artifacts = false;
  return o;
}

std::string failure_of(const simasio::check_result& r) { return r.failure ? r.failure->what : "ok"; }

}  // namespace

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(sync_echo_server_and_client_processes_survive_latency_loss_and_a_partition) {
  // Seeds that spawn run in processes of their own: they count in the result.
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        const std::vector<std::string> got = echo_under_faults(w, 5);
        if (got != expected_lines(5)) throw std::runtime_error("the client got other lines back");
        if (w.now() > 800ms) simasio::count_in_run("finished after the heal");
      },
      sweep(120));
  BOOST_TEST(r.ok(), failure_of(r));
  BOOST_TEST(r.runs == 120u);
  BOOST_TEST(r.isolated);
  // The partition at 10 ms always caught the exchange in flight.
  BOOST_TEST(r.counts.at("finished after the heal") == 120u);
}

BOOST_AUTO_TEST_CASE(a_blocking_call_suspends_the_process_not_the_world) {
  simasio::world w(3);
  simasio::host& a = w.add_host("a");
  simasio::host& b = w.add_host("b");
  std::vector<std::string> log;
  a.spawn([&] {
    net::io_context ioc;
    net::steady_timer t(ioc, 100ms);
    log.push_back("a sleeps");
    t.wait();
    log.push_back("a wakes at " + std::to_string(simasio::steady_clock::now().time_since_epoch().count()));
  });
  b.spawn([&] {
    net::io_context ioc;
    net::steady_timer t(ioc, 40ms);
    t.wait();
    log.push_back("b wakes at " + std::to_string(simasio::steady_clock::now().time_since_epoch().count()));
  });
  w.run();
  BOOST_TEST(log.size() == 3u);
  BOOST_TEST(log[0] == "a sleeps");
  BOOST_TEST(log[1] == "b wakes at 40000000");
  BOOST_TEST(log[2] == "a wakes at 100000000");
  BOOST_TEST(!w.stalled());
}

BOOST_AUTO_TEST_CASE(a_process_running_an_io_context_runs_its_async_handlers) {
  simasio::world w(5);
  simasio::host& h = w.add_host("app");
  std::size_t ran = 0;
  simasio::duration returned_at{};
  int fired = 0;
  const simasio::process p = h.spawn([&] {
    net::io_context ioc;
    net::steady_timer t1(ioc, 30ms), t2(ioc, 70ms);
    t1.async_wait([&](boost::system::error_code ec) { fired += !ec; });
    t2.async_wait([&](boost::system::error_code ec) {
      fired += !ec;
      net::post(ioc, [&] { ++fired; });
    });
    ran = ioc.run();
    returned_at = w.now();
    BOOST_TEST(ioc.stopped());  // out of work: stopped, as Asio leaves it
  });
  w.run();
  BOOST_TEST(p.ended());
  BOOST_TEST(p.exit_code().value_or(-1) == 0);
  BOOST_TEST(fired == 3);
  BOOST_TEST(ran == 3u);
  BOOST_TEST(returned_at == simasio::duration(70ms));
}

BOOST_AUTO_TEST_CASE(an_async_server_main_in_a_process_serves_a_blocking_client_process) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        w.net().configure(faulty_link());
        simasio::host& server = w.add_host("server");
        simasio::host& client = w.add_host("client");
        server.spawn([] {
          // An Asio-style async server whose main() runs the context.
          net::io_context ioc;
          tcp::acceptor acceptor(ioc, tcp::endpoint(tcp::v4(), 7000));
          std::function<void()> accept = [&] {
            acceptor.async_accept([&](boost::system::error_code ec, tcp::socket s) {
              if (ec) return;
              std::make_shared<echo_session>(std::move(s))->read();
              accept();
            });
          };
          accept();
          ioc.run();
        });
        std::vector<std::string> replies;
        const simasio::process c = client.spawn([&] { sync_echo_client("server", 4, replies); });
        if (!w.run_until([&] { return c.ended(); }, 60s)) throw std::runtime_error("client stuck: " + w.pending_report());
        if (replies != expected_lines(4)) throw std::runtime_error("wrong replies");
      },
      sweep(100));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_default_io_context_in_a_process_joins_the_process_host) {
  simasio::world w(1);
  simasio::host& alpha = w.add_host("alpha");
  std::string joined;
  alpha.spawn([&] {
    net::io_context ioc;
    joined = ioc.get_host().name();
  });
  w.run();
  BOOST_TEST(joined == "alpha");
  net::io_context outside;  // the test body's default context still joins localhost
  BOOST_TEST(outside.get_host().name() == "localhost");
}

BOOST_AUTO_TEST_CASE(spawn_main_passes_argv_and_keeps_the_exit_code) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  std::vector<std::string> seen;
  const simasio::process p = h.spawn_main(
      [&](int argc, char** argv) {
        for (int i = 0; i < argc; ++i) seen.emplace_back(argv[i]);
        return argv[argc] == nullptr ? 3 : 4;
      },
      {"prog", "--port", "7000"});
  BOOST_TEST(!p.ended());  // it runs when the world does
  w.run();
  BOOST_TEST(p.ended());
  BOOST_TEST(!p.killed());
  BOOST_TEST(p.exit_code().value_or(-1) == 3);
  BOOST_TEST((seen == std::vector<std::string>{"prog", "--port", "7000"}));
}

BOOST_AUTO_TEST_CASE(a_crash_unwinds_the_host_processes_and_restart_spawns_them_again_from_on_boot) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        w.net().configure(faulty_link());
        simasio::host& server = w.add_host("server");
        simasio::host& client = w.add_host("client");
        auto boots = std::make_shared<int>(0);
        auto unwound = std::make_shared<int>(0);
        auto served = std::make_shared<int>(0);
        std::vector<simasio::process> servers;
        server.on_boot([&servers, boots, unwound, served](simasio::host& h) {
          ++*boots;
          servers.push_back(h.spawn([unwound, served] {
            struct raii {
              std::shared_ptr<int> n;
              ~raii() { ++*n; }
            } guard{unwound};
            sync_echo_server(7000, served);
          }));
        });
        // The client retries until one whole exchange succeeds.
        std::vector<std::string> replies;
        int attempts = 0;
        const simasio::process c = client.spawn([&] {
          net::io_context ioc;
          net::steady_timer pause(ioc);
          for (;;) {
            ++attempts;
            replies.clear();
            try {
              sync_echo_client("server", 3, replies);
              return;
            } catch (const boost::system::system_error&) {
              pause.expires_after(200ms);
              pause.wait();
            }
          }
        });
        const auto crash_at = std::chrono::milliseconds(5 + w.random().below(60));
        w.run_for(crash_at);
        server.crash(w.random().chance(0.5) ? simasio::crash_kind::power : simasio::crash_kind::process);
        if (*unwound != 1) throw std::runtime_error("the server's stack was not unwound by the crash");
        if (!servers[0].killed() || !servers[0].ended()) throw std::runtime_error("the server process survived");
        w.run_for(300ms);
        server.restart();
        if (*boots != 2 || servers.size() != 2) throw std::runtime_error("on_boot did not spawn again");
        if (!w.run_until([&] { return c.ended(); }, 30min))
          throw std::runtime_error("the client never got through: " + w.pending_report());
        if (replies != expected_lines(3)) throw std::runtime_error("wrong replies");
        if (servers[1].ended()) throw std::runtime_error("the restarted server ended");
        if (*served < 1) throw std::runtime_error("the restarted server served nobody");
      },
      sweep(100));
  BOOST_TEST(r.ok(), failure_of(r));
}

BOOST_AUTO_TEST_CASE(a_process_that_crashes_its_own_host_ends_there) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  bool after = false, unwound = false;
  const simasio::process p = h.spawn([&] {
    struct raii {
      bool& flag;
      ~raii() { flag = true; }
    } guard{unwound};
    h.crash();
    after = true;
  });
  w.run();
  BOOST_TEST(!after);
  BOOST_TEST(unwound);
  BOOST_TEST(p.killed());
  BOOST_TEST(!h.up());
}

BOOST_AUTO_TEST_CASE(processes_and_contexts_are_scheduled_by_the_seed) {
  // Two processes and a context, all runnable at once: who goes first is a
  // seeded choice under random_walk, always the oldest under fifo.
  auto first = [](std::uint64_t seed, simasio::strategy s) {
    simasio::world w(simasio::world_options{.seed = seed, .strategy = s});
    simasio::host& h = w.add_host("h");
    std::string order;
    h.spawn([&] { order += 'A'; });
    h.spawn([&] { order += 'B'; });
    net::post(h.context(), [&] { order += 'c'; });
    w.run();
    return order;
  };
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    seen.insert(first(seed, simasio::strategy::random_walk));
    BOOST_TEST(first(seed, simasio::strategy::fifo) == "ABc");
    BOOST_TEST(first(seed, simasio::strategy::random_walk) == first(seed, simasio::strategy::random_walk));
  }
  BOOST_TEST(seen.size() == 6u);  // every order shows up
}

BOOST_AUTO_TEST_CASE(same_seed_same_trace_hash_and_different_seeds_differ) {
  for (const simasio::strategy s : {simasio::strategy::random_walk, simasio::strategy::fifo, simasio::strategy::pct}) {
    std::set<std::uint64_t> hashes;
    const std::uint64_t seeds = 100;
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      std::uint64_t h[2];
      for (std::uint64_t& out : h) {
        simasio::world w(simasio::world_options{.seed = seed, .strategy = s});
        echo_under_faults(w, 3);
        out = w.trace_hash();
      }
      BOOST_TEST(h[0] == h[1], "seed " << seed);
      hashes.insert(h[0]);
    }
    BOOST_TEST(hashes.size() == seeds);
  }
}

BOOST_AUTO_TEST_CASE(the_trace_names_process_steps_spawns_and_ends) {
  simasio::world w(simasio::world_options{.seed = 1, .record_trace = true});
  simasio::host& h = w.add_host("h");
  h.spawn([] {});
  w.run();
  std::vector<std::string> kinds;
  for (const simasio::trace_event& e : w.events().events()) kinds.push_back(simasio::describe(e, {"h"}));
  BOOST_TEST_REQUIRE(kinds.size() == 3u);
  BOOST_TEST(kinds[0].find("process_spawn process=0") != std::string::npos, kinds[0]);
  BOOST_TEST(kinds[1].find("handler process=0") != std::string::npos, kinds[1]);
  BOOST_TEST(kinds[2].find("process_end process=0 how=returned") != std::string::npos, kinds[2]);
}

// ---- misuse -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_blocking_call_in_a_plain_handler_still_fails_with_would_block) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  std::string what;
  net::post(h.context(), [&] {
    net::steady_timer t(h.context(), 10ms);
    try {
      t.wait();
    } catch (const boost::system::system_error& e) {
      what = e.what();
    }
  });
  w.run();
  BOOST_TEST(what.find("wait() was called inside a handler") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(an_exception_escaping_a_process_fails_the_seed) {
  const simasio::check_result r = simasio::check(
      [](simasio::world& w) {
        simasio::host& h = w.add_host("h");
        h.spawn([] {
          net::io_context ioc;
          net::steady_timer t(ioc, 5ms);
          t.wait();
          throw std::runtime_error("the process gave up");
        });
        w.run();
      },
      sweep(3));
  BOOST_TEST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->seed == 0u);
  BOOST_TEST(r.failure->what.find("the process gave up") != std::string::npos, r.failure->what);
}

BOOST_AUTO_TEST_CASE(spawning_on_a_crashed_host_names_on_boot) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  h.crash();
  const std::string what = simasio_test::what_of<simasio::usage_error>([&] { h.spawn([] {}); });
  BOOST_TEST(what.find("host::spawn on host 'h', which is down") != std::string::npos, what);
  BOOST_TEST(what.find("on_boot") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(a_process_that_spins_without_blocking_is_a_runaway_naming_it) {
  simasio::world w(simasio::world_options{.seed = 1, .max_steps = 10'000});
  simasio::host& h = w.add_host("spinner");
  bool reply = false;
  h.spawn([&] {
    net::io_context ioc;
    while (!reply) ioc.poll();  // waits for something that needs time to pass
  });
  const std::string what = simasio_test::what_of<simasio::runaway_error>([&] { w.run(); });
  BOOST_TEST(what.find("process #0 of host 'spinner'") != std::string::npos, what);
  BOOST_TEST(what.find("never blocks") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(running_the_world_inside_a_process_is_a_usage_error) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  std::string what;
  h.spawn([&] { what = simasio_test::what_of<simasio::usage_error>([&] { w.run(); }); });
  w.run();
  BOOST_TEST(what.find("inside a simulated process") != std::string::npos, what);
}

// A crashed machine's program never runs again, whatever its catch blocks
// say: a process that swallows simasio's process_exit (catch (...) without
// a rethrow, as websocketpp's examples do around their run loop) ends at the
// end of that catch block; the code after it never runs, the crash and the
// world's end are clean.
BOOST_AUTO_TEST_CASE(a_process_that_swallows_its_end_ends_at_the_end_of_its_catch_block) {
  for (bool crash : {true, false}) {
    int caught = 0;
    int after = 0;
    {
      simasio::world w(1);
      simasio::host& h = w.add_host("h");
      const simasio::process p = h.spawn([&] {
        net::io_context ioc;
        net::steady_timer t(ioc);
        for (;;) {
          try {
            t.expires_after(1s);
            t.wait();
          } catch (...) {
            ++caught;  // swallows everything, simasio's process_exit too
          }
          ++after;
        }
      });
      w.run_for(2500ms);
      BOOST_TEST(after == 2);
      if (crash) {
        h.crash();
        BOOST_TEST(p.ended());
        BOOST_TEST(!h.up());
        w.run_for(10s);
      }
    }  // the world ends with the process alive (crash == false)
    BOOST_TEST(caught == 1);
    BOOST_TEST(after == 2);
  }
}

BOOST_AUTO_TEST_CASE(a_stall_report_lists_blocked_processes) {
  simasio::world w(1);
  simasio::host& h = w.add_host("h");
  h.spawn([] {
    net::io_context ioc;
    net::steady_timer t(ioc, net::steady_timer::time_point::max());
    t.wait();  // never expires
  });
  w.run();
  BOOST_TEST(w.stalled());
  const std::string report = w.pending_report();
  BOOST_TEST(report.find("process #0 of host 'h': blocked in a timer's wait() that never expires") != std::string::npos,
             report);
}

BOOST_AUTO_TEST_SUITE_END()
