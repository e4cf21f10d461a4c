// trace_test.cpp — the rolling hash, the recent-event ring, full recording
#include <simasio/simasio.hpp>

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

using simasio::event_kind;

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
  BOOST_TEST(simasio::describe(ev[1]).find("time_advance a=5000000") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
