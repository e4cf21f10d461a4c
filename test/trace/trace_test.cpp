// trace_test.cpp — the rolling hash, the recent-event ring, full recording, the exports
#include <simasio/simasio.hpp>
#include <simasio/trace/export.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

using simasio::event_kind;
using namespace std::chrono_literals;

namespace {

// What the three exporters wrote for one recorded run, read back.
struct exported {
  std::string jsonl, chrome, html;
  std::vector<std::string> lines;  // jsonl, one event a line
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

exported export_run(const simasio::world& w, const std::string& stem) {
  std::vector<std::string> names(w.hosts().size());
  for (const simasio::host* h : w.hosts()) names.at(h->id()) = h->name();
  const auto base = std::filesystem::temp_directory_path() / ("simasio_trace_" + stem + "_" + std::to_string(::getpid()));
  simasio::write_json_lines(base.string() + ".jsonl", w.events().events(), names);
  simasio::write_chrome_trace(base.string() + ".json", w.events().events(), names);
  simasio::write_html_diagram(base.string() + ".html", stem, w.events().events(), names);
  exported out{slurp(base.string() + ".jsonl"), slurp(base.string() + ".json"), slurp(base.string() + ".html"), {}};
  for (const char* ext : {".jsonl", ".json", ".html"}) std::filesystem::remove(base.string() + ext);
  std::istringstream lines(out.jsonl);
  for (std::string line; std::getline(lines, line);) out.lines.push_back(line);
  return out;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> lines_of_kind(const exported& e, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& line : e.lines)
    if (has(line, "\"kind\":\"" + kind + "\"")) out.push_back(line);
  return out;
}

simasio::world_options recording(std::uint64_t seed = 1) {
  simasio::world_options opts;
  opts.seed = seed;
  opts.record_trace = true;
  return opts;
}

// b streams to a over TCP (accepted on `port`) while `disturb` runs after 20 ms.
template <class Disturb>
void stream_between(simasio::world& w, simasio::host& a, simasio::host& b, std::size_t bytes, Disturb disturb,
                    std::uint16_t port = 80) {
  namespace ip = boost::asio::ip;
  auto acc = std::make_shared<simasio::ip::tcp::acceptor>(a.context(), ip::tcp::endpoint(ip::tcp::v4(), port));
  auto peer = std::make_shared<simasio::ip::tcp::socket>(a.context());
  auto got = std::make_shared<std::string>();
  acc->async_accept(*peer, [acc, peer, got](boost::system::error_code ec) {
    if (!ec) boost::asio::async_read(*peer, boost::asio::dynamic_buffer(*got), [peer, got](auto, auto) {});
  });
  auto s = std::make_shared<simasio::ip::tcp::socket>(b.context());
  auto payload = std::make_shared<std::string>(bytes, 'x');
  s->async_connect({a.address(), port}, [s, payload](boost::system::error_code ec) {
    if (!ec) boost::asio::async_write(*s, boost::asio::buffer(*payload), [s, payload](auto, auto) { s->close(); });
  });
  w.run_for(20ms);
  disturb();
  w.run_for(10s);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(trace)

BOOST_AUTO_TEST_CASE(hash_depends_on_every_field_and_on_order) {
  auto hash_of = [](std::initializer_list<std::array<std::uint64_t, 3>> events) {
    simasio::trace t;
    for (const auto& e : events) t.record(0, 0, static_cast<std::uint32_t>(e[0]), event_kind::handler, e[1], e[2]);
    return t.hash();
  };
  const auto base = hash_of({{1, 2, 3}, {4, 5, 6}});
  BOOST_TEST(base == hash_of({{1, 2, 3}, {4, 5, 6}}));
  BOOST_TEST(base != hash_of({{4, 5, 6}, {1, 2, 3}}));  // order
  BOOST_TEST(base != hash_of({{1, 2, 3}, {4, 5, 7}}));  // b
  BOOST_TEST(base != hash_of({{1, 2, 3}, {4, 6, 6}}));  // a
  BOOST_TEST(base != hash_of({{1, 2, 3}, {5, 5, 6}}));  // host
  BOOST_TEST(base != hash_of({{1, 2, 3}}));             // length
  simasio::trace k1, k2;
  k1.record(0, 0, 1, event_kind::handler, 2, 3);
  k2.record(0, 0, 1, event_kind::timer_fire, 2, 3);
  BOOST_TEST(k1.hash() != k2.hash());  // kind
}

BOOST_AUTO_TEST_CASE(ring_keeps_the_most_recent_events_in_order) {
  simasio::trace t;
  for (std::uint64_t i = 0; i < 100; ++i) t.record(i, 0, 0, event_kind::user, i, 0);
  const auto recent = t.recent();
  BOOST_REQUIRE(recent.size() == simasio::trace::ring_size);
  BOOST_TEST(recent.front().a == 100 - simasio::trace::ring_size);
  BOOST_TEST(recent.back().a == 99u);
  BOOST_TEST(t.events().empty());  // full recording is off by default
  BOOST_TEST(t.size() == 100u);
}

BOOST_AUTO_TEST_CASE(full_recording_keeps_every_event_of_a_run) {
  simasio::world_options opts;
  opts.record_trace = true;
  simasio::world w(opts);
  auto& a = w.add_host("a");
  simasio::steady_timer t(a.context(), std::chrono::milliseconds(5));
  t.async_wait([](auto) {});
  boost::asio::post(a.context(), [] {});
  w.run();
  const auto& ev = w.events().events();
  BOOST_REQUIRE(ev.size() == 4u);  // handler, time_advance, timer_fire, handler
  BOOST_TEST(ev[0].kind == event_kind::handler);
  BOOST_TEST(ev[0].host == a.id());
  BOOST_TEST(ev[1].kind == event_kind::time_advance);
  BOOST_TEST(ev[1].a == 5'000'000u);
  BOOST_TEST(ev[2].kind == event_kind::timer_fire);
  BOOST_TEST(ev[3].kind == event_kind::handler);
  BOOST_TEST(ev[3].time_ns == 5'000'000);
  BOOST_TEST(simasio::describe(ev[1]).find("time_advance time_ns=5000000") != std::string::npos);
  BOOST_TEST(simasio::describe(ev[0]).find("handler context=") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(power_cut_drops_are_exported_as_power_off_not_partitioned) {
  simasio::world w(recording());
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  namespace ip = boost::asio::ip;
  simasio::ip::udp::socket rx(a.context(), ip::udp::endpoint(ip::udp::v4(), 53));
  simasio::ip::udp::socket tx(b.context(), ip::udp::v4());
  stream_between(w, a, b, 200'000, [&] {
    a.crash(simasio::crash_kind::power);
    tx.send_to(boost::asio::buffer("ping", 4), {a.address(), 53});  // into the dark
  });
  const exported e = export_run(w, "power_cut");
  const auto drops = lines_of_kind(e, "net_drop");
  BOOST_TEST(drops.size() >= 3u);  // the datagram, segments in flight, retransmissions
  for (const auto& line : drops) BOOST_TEST(has(line, "\"reason\":\"power_off\""), line);
  BOOST_TEST(!has(e.jsonl, "partitioned"));
  BOOST_TEST(has(e.chrome, "\"reason\":\"power_off\""));
  BOOST_TEST(has(lines_of_kind(e, "crash").at(0), "\"crash\":\"power\""));
}

BOOST_AUTO_TEST_CASE(a_partition_still_drops_as_partitioned) {
  simasio::world w(recording());
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  stream_between(w, a, b, 200'000, [&] { w.net().partition({{&a}, {&b}}); });
  const exported e = export_run(w, "partition");
  const auto drops = lines_of_kind(e, "net_drop");
  BOOST_TEST(!drops.empty());
  for (const auto& line : drops) BOOST_TEST(has(line, "\"reason\":\"partitioned\""), line);
}

BOOST_AUTO_TEST_CASE(block_fault_names_the_fault_and_both_hosts) {
  simasio::world w(recording());
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  boost::asio::post(a.context(), [] {});
  w.run();
  w.net().block(a, b);
  w.net().heal();
  const exported e = export_run(w, "block");
  const auto faults = lines_of_kind(e, "net_fault");
  BOOST_REQUIRE(faults.size() == 2u);
  BOOST_TEST(has(faults[0], R"("fault":"block","from":"alice","to":"bob")"), faults[0]);
  BOOST_TEST(has(faults[1], R"("fault":"heal")"), faults[1]);
  for (const std::string* text : {&e.jsonl, &e.chrome, &e.html}) {
    BOOST_TEST(!has(*text, "4294967295"));
    BOOST_TEST(!has(*text, "\"a\":"));  // no raw integers for a reader to decode
  }
  BOOST_TEST(has(e.chrome, R"("fault":"block","from":"alice","to":"bob")"));
  BOOST_TEST(has(e.html, "\"fault\":\"block\""));
  const auto& ev = w.events().events();
  BOOST_REQUIRE(ev.size() >= 2u);
  BOOST_TEST(simasio::describe(ev[ev.size() - 2]).find("net_fault fault=block") != std::string::npos);
  BOOST_TEST(simasio::describe(ev.back()).find("4294967295") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_dropped_packet_was_sent_first) {
  simasio::link_config lossy;
  lossy.loss = 0.3;
  simasio::world_options opts = recording(7);
  opts.link = lossy;
  simasio::world w(opts);
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  namespace ip = boost::asio::ip;
  simasio::ip::udp::socket tx(b.context(), ip::udp::v4());
  stream_between(w, a, b, 100'000, [&] {
    tx.send_to(boost::asio::buffer("ping", 4), {ip::make_address("198.18.0.99"), 53});  // nobody has it
  });
  const exported e = export_run(w, "loss");
  const std::regex packet_of("\"packet\":([0-9]+)");
  std::set<std::string> sent;
  std::size_t drops = 0, lost = 0;
  std::smatch m;
  for (const auto& line : e.lines) {
    if (has(line, "\"kind\":\"net_send\"") && std::regex_search(line, m, packet_of)) sent.insert(m[1]);
    if (!has(line, "\"kind\":\"net_drop\"")) continue;
    ++drops;
    if (has(line, "\"reason\":\"lost\"")) ++lost;
    BOOST_TEST_REQUIRE(std::regex_search(line, m, packet_of), line);
    BOOST_TEST(sent.count(m[1]) == 1u, "no net_send before " << line);
  }
  BOOST_TEST(lost >= 5u);
  BOOST_TEST(drops > lost);  // the datagram to nobody
  // The raw events agree: a net_drop's a is always a sent packet's seq.
  std::set<std::uint64_t> seqs;
  for (const auto& ev : w.events().events()) {
    if (ev.kind == event_kind::net_send) seqs.insert(ev.a);
    if (ev.kind == event_kind::net_drop) BOOST_TEST(seqs.count(ev.a) == 1u, simasio::describe(ev));
  }
}

BOOST_AUTO_TEST_CASE(tcp_events_name_the_connection_and_the_error) {
  simasio::world w(recording());
  auto& a = w.add_host("alice");
  auto& b = w.add_host("bob");
  stream_between(w, a, b, 1000, [] {});
  stream_between(w, a, b, 5'000'000, [&] { w.net().reset(a, b); }, 81);  // still streaming at 20 ms
  const exported e = export_run(w, "tcp");
  const auto connects = lines_of_kind(e, "tcp_connect");
  BOOST_REQUIRE(connects.size() == 4u);
  BOOST_TEST(has(e.jsonl, R"("connection":1,"side":"server")"));
  BOOST_TEST(has(e.jsonl, R"("connection":1,"side":"client")"));
  const auto resets = lines_of_kind(e, "tcp_reset");
  BOOST_REQUIRE(resets.size() == 2u);  // both ends of the second connection
  for (const auto& line : resets) BOOST_TEST(has(line, R"("connection":2,"error":"connection_reset")"), line);
  BOOST_TEST(has(lines_of_kind(e, "tcp_close").at(0), R"("connection":1,"abortive":false)"));
  BOOST_TEST(has(lines_of_kind(e, "net_send").at(0), R"("to":"alice")"));
  BOOST_TEST(has(lines_of_kind(e, "handler").at(0), "\"context\":"));
}

BOOST_AUTO_TEST_CASE(disk_faults_and_power_cut_outcomes_are_named_in_every_export) {
  simasio::world w(recording());
  auto& a = w.add_host("alice");
  simasio::disk_config cfg;
  cfg.write_error = 1.0;
  a.disk().configure(cfg);
  simasio::random_access_file f(a.context(), "/f", simasio::file_base::read_write |
                                                     simasio::file_base::create);
  a.disk().sync_directory("/");
  boost::system::error_code ec;
  f.write_some_at(0, boost::asio::buffer("x", 1), ec);
  BOOST_TEST(ec == boost::system::errc::io_error);
  a.disk().configure({});
  f.write_some_at(0, boost::asio::buffer("y", 1));
  a.crash(simasio::crash_kind::power);
  const exported e = export_run(w, "disk");
  const auto faults = lines_of_kind(e, "disk_fault");
  BOOST_REQUIRE(faults.size() == 1u);
  BOOST_TEST(has(faults[0], R"("fault":"write_error")"), faults[0]);
  const auto resolved = lines_of_kind(e, "disk_resolve");
  BOOST_REQUIRE(resolved.size() == 1u);  // the one write that reached the page cache
  BOOST_TEST(has(resolved[0], R"("outcome":")"), resolved[0]);
  BOOST_TEST(has(e.html, R"("fault":"write_error")"));
  BOOST_TEST(has(e.chrome, "disk_resolve"));
  for (const std::string* text : {&e.jsonl, &e.chrome, &e.html}) BOOST_TEST(!has(*text, "\"a\":"));
}

BOOST_AUTO_TEST_SUITE_END()
