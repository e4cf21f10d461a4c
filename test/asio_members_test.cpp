// asio_members_test.cpp — Asio 1.81 members older services still use, run in simulation
// (the member audit, simasio_asio_surface, proves they compile; these prove what they do)
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::tcp;

BOOST_AUTO_TEST_SUITE(asio_members)

// The pre-1.66 client: resolver::query, resolver::iterator, connect(socket, begin).
BOOST_AUTO_TEST_CASE(a_query_resolves_and_a_lone_iterator_connects) {
  simasio::world w;
  auto& client = w.add_host("client");
  auto& server = w.add_host("server");
  tcp::acceptor acc(server.context(), tcp::endpoint(tcp::v4(), 7000));
  tcp::socket peer(server.context());
  acc.async_accept(peer, [](boost::system::error_code ec) { BOOST_TEST(!ec); });

  tcp::resolver resolver(client.context());
  tcp::resolver::query query("server", "7000");
  tcp::resolver::iterator it = resolver.resolve(query);
  BOOST_REQUIRE((it != tcp::resolver::iterator()));
  BOOST_TEST(it->endpoint().address() == server.address());
  tcp::socket s(client.context());
  const tcp::resolver::iterator connected = net::connect(s, it);
  BOOST_TEST(connected->endpoint().port() == 7000);
  w.run();
  BOOST_TEST(s.remote_endpoint().address() == server.address());

  bool resolved = false;
  resolver.async_resolve(query, [&](boost::system::error_code ec, tcp::resolver::results_type r) {
    BOOST_TEST(!ec);
    BOOST_TEST(r.begin()->endpoint().port() == 7000);
    resolved = true;
  });
  w.run();
  BOOST_TEST(resolved);
  boost::system::error_code ec;
  resolver.resolve(tcp::resolver::query("nobody", "7000"), ec);
  BOOST_TEST(ec == net::error::host_not_found);
}

// A connect condition skips what it refuses and sees the last error.
BOOST_AUTO_TEST_CASE(a_connect_condition_chooses_the_endpoints_tried) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  tcp::acceptor acc(b.context(), tcp::endpoint(tcp::v4(), 443));
  const std::vector<tcp::endpoint> eps{tcp::endpoint(b.address(), 1), tcp::endpoint(b.address(), 2),
                                       tcp::endpoint(b.address(), 443)};
  std::vector<std::pair<int, unsigned short>> asked;  // (last error, port)
  auto skip_2 = [&](const boost::system::error_code& ec, const tcp::endpoint& ep) {
    asked.emplace_back(ec.value(), ep.port());
    return ep.port() != 2;
  };
  tcp::socket s(a.context());
  BOOST_TEST(net::connect(s, eps, skip_2).port() == 443);
  BOOST_TEST(asked.size() == 3u);
  BOOST_TEST(asked[0].first == 0);
  BOOST_TEST(asked[1].first == int(boost::asio::error::connection_refused));

  asked.clear();
  tcp::socket s2(a.context());
  std::vector<tcp::endpoint>::const_iterator chosen;
  net::async_connect(s2, eps.begin(), eps.end(), skip_2,
                     [&](boost::system::error_code ec, std::vector<tcp::endpoint>::const_iterator at) {
                       BOOST_TEST(!ec);
                       chosen = at;
                     });
  w.run();
  BOOST_TEST(chosen->port() == 443);
  BOOST_TEST(asked.size() == 3u);

  // Refusing every endpoint tries none: not_found.
  tcp::socket s3(a.context());
  boost::system::error_code ec;
  net::connect(s3, eps, [](const boost::system::error_code&, const tcp::endpoint&) { return false; }, ec);
  BOOST_TEST(ec == net::error::not_found);
  BOOST_TEST(!s3.is_open());
}

// The deadline_timer of older services waits on virtual time, not the wall clock.
BOOST_AUTO_TEST_CASE(a_deadline_timer_expires_on_virtual_time) {
  simasio::world w;
  auto& h = w.add_host("h");
  auto& ahead = w.add_host("ahead");
  ahead.set_clock(std::chrono::hours(24));
  net::deadline_timer t(h.context(), boost::posix_time::seconds(90));
  BOOST_TEST((t.expires_at() == boost::posix_time::ptime(boost::gregorian::date(2020, 1, 1),
                                                         boost::posix_time::seconds(90))));
  // On its own host's clock, wherever it is asked from.
  net::deadline_timer on_ahead(ahead.context(), boost::posix_time::seconds(30));
  BOOST_TEST((on_ahead.expires_at() == boost::posix_time::ptime(boost::gregorian::date(2020, 1, 2),
                                                                boost::posix_time::seconds(30))));
  BOOST_TEST((on_ahead.expires_from_now() == boost::posix_time::seconds(30)));
  BOOST_TEST((t.expires_from_now() == boost::posix_time::seconds(90)));
  simasio::duration fired_at{-1};
  t.async_wait([&](boost::system::error_code ec) {
    BOOST_TEST(!ec);
    fired_at = w.now();
  });
  net::deadline_timer cancelled(h.context());
  cancelled.expires_from_now(boost::posix_time::hours(1));
  boost::system::error_code cancelled_ec;
  cancelled.async_wait([&](boost::system::error_code ec) { cancelled_ec = ec; });
  net::deadline_timer canceller(h.context(), boost::posix_time::milliseconds(10));
  canceller.async_wait([&](boost::system::error_code) { cancelled.cancel(); });
  w.run();
  BOOST_TEST(fired_at == std::chrono::seconds(90));
  BOOST_TEST(cancelled_ec == net::error::operation_aborted);
}

// io_service, io_service::work, io_service::strand, wrap and run(ec): the
// names of Boost 1.65 code.
BOOST_AUTO_TEST_CASE(io_service_work_strand_and_wrap_run_as_asio_says) {
  simasio::world w;
  auto& h = w.add_host("h");
  net::io_service& io = h.context();
  std::vector<std::string> order;
  net::io_service::strand strand(io);
  io.post(strand.wrap([&] { order.push_back("strand"); }));
  auto wrapped = io.wrap([&](int n) { order.push_back("wrapped " + std::to_string(n)); });
  wrapped(7);
  boost::system::error_code ec = net::error::eof;
  const std::size_t ran = io.run(ec);
  BOOST_TEST(!ec);
  // 2, as Boost.Asio's own io_service counts them (checked on it): the
  // strand's dispatch runs inside the posted handler, not as a handler of its own.
  BOOST_TEST(ran == 2u);
  std::sort(order.begin(), order.end());  // the scheduler may run the two in either order
  BOOST_TEST((order == std::vector<std::string>{"strand", "wrapped 7"}));

  // work keeps run() going until it is gone: a timer ends it.
  io.restart();
  auto work = std::make_unique<net::io_service::work>(io);
  net::deadline_timer t(io, boost::posix_time::seconds(5));
  t.async_wait([&](boost::system::error_code) { work.reset(); });
  io.run();
  BOOST_TEST(w.now() == std::chrono::seconds(5));
}

// Accept forms that return the socket and report the peer.
BOOST_AUTO_TEST_CASE(accept_reports_the_peer_endpoint) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  tcp::acceptor acc(b.context(), tcp::endpoint(tcp::v4(), 80));
  tcp::socket c1(a.context()), c2(a.context());
  c1.async_connect(tcp::endpoint(b.address(), 80), [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  c2.async_connect(tcp::endpoint(b.address(), 80), [](boost::system::error_code ec) { BOOST_TEST(!ec); });
  tcp::endpoint first, second;
  bool accepted = false;
  acc.async_accept(first, [&](boost::system::error_code ec, tcp::socket s) {
    BOOST_TEST(!ec);
    BOOST_TEST(s.remote_endpoint() == first);
    accepted = true;
  });
  w.run();
  BOOST_TEST(accepted);
  BOOST_TEST(first.address() == a.address());
  tcp::socket s = acc.accept(b.context(), second);
  BOOST_TEST(second.address() == a.address());
  BOOST_TEST(second != first);
  BOOST_TEST(s.remote_endpoint() == second);
  net::ip::tcp proto = first.protocol();  // the façade holds Asio's protocol value
  BOOST_TEST(proto.family() == AF_INET);
  BOOST_TEST(proto.type() == SOCK_STREAM);
  BOOST_TEST((proto == tcp::v4()));
}

BOOST_AUTO_TEST_SUITE_END()
