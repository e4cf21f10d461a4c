// model_test.cpp — explicit-state models: invariants, deadlocks, liveness under weak fairness, bounds, refinement of a run
#include <simasio/asio.hpp>
#include <simasio/check/model.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/test/unit_test.hpp>

#include <compare>
#include <memory>
#include <string>
#include <vector>

namespace net = simasio::asio;
using namespace std::chrono_literals;

namespace {

// A counter that may go up or down, 0..9.
simasio::model<int> counter() {
  simasio::model<int> m("counter");
  m.initial(0)
      .action("up", [](const int& x) { return x < 9 ? std::vector<int>{x + 1} : std::vector<int>{}; })
      .action("down", [](const int& x) { return x > 0 ? std::vector<int>{x - 1} : std::vector<int>{}; })
      .describe([](const int& x) { return "x=" + std::to_string(x); });
  return m;
}

// Two processes taking two locks: p takes a then b, q takes b then a
// (ordered: both a then b). pc 0: holds nothing, 1: holds the first, 2: done.
struct locks {
  int p = 0, q = 0;
  int a = -1, b = -1;  // holder: 0 p, 1 q, -1 free
  auto operator<=>(const locks&) const = default;
};
simasio::model<locks> philosophers(bool ordered) {
  simasio::model<locks> m(ordered ? "ordered locks" : "crossed locks");
  m.initial({});
  auto take = [ordered](int who) {
    return [ordered, who](const locks& s) {
      std::vector<locks> out;
      const int pc = who == 0 ? s.p : s.q;
      const bool a_first = ordered || who == 0;
      locks n = s;
      int& f = a_first ? n.a : n.b;
      int& g = a_first ? n.b : n.a;
      int& npc = who == 0 ? n.p : n.q;
      if (pc == 0 && f == -1) {
        f = who;
        npc = 1;
        out.push_back(n);
      } else if (pc == 1 && g == -1) {
        g = who;
        npc = 2;
        f = -1;  // done: release both
        g = -1;
        out.push_back(n);
      }
      return out;
    };
  };
  m.action("p", take(0)).action("q", take(1));
  m.final_states([](const locks& s) { return s.p == 2 && s.q == 2; });
  m.describe([](const locks& s) {
    return "p@" + std::to_string(s.p) + " q@" + std::to_string(s.q) + " a:" + std::to_string(s.a) + " b:" + std::to_string(s.b);
  });
  return m;
}

// A config push: the server has version v (it bumps it once), the replica
// has r; a message in flight carries a version (0: none). Fire-and-forget
// sends once per version; the fix re-pushes whenever the replica lags and
// nothing is in flight. Loss drops the message.
struct push {
  int v = 1, r = 0, msg = 0;
  bool sent = false;
  auto operator<=>(const push&) const = default;
};
simasio::model<push> route_push(bool repush) {
  simasio::model<push> m(repush ? "re-push" : "fire-and-forget");
  m.initial({});
  m.action("bump", [](const push& s) {
    if (s.v >= 2) return std::vector<push>{};
    push n = s;
    ++n.v;
    n.sent = false;
    return std::vector<push>{n};
  });
  m.action("send", [repush](const push& s) {
    if (s.msg != 0 || s.r >= s.v || (s.sent && !repush)) return std::vector<push>{};
    push n = s;
    n.msg = s.v;
    n.sent = true;
    return std::vector<push>{n};
  });
  m.action(
      "deliver",
      [](const push& s) {
        if (s.msg == 0) return std::vector<push>{};
        push n = s;
        n.r = std::max(n.r, n.msg);
        n.msg = 0;
        return std::vector<push>{n};
      },
      simasio::fairness::strong);  // fair delivery: a message sent again and again gets through
  m.action("lose", [](const push& s) {
    if (s.msg == 0) return std::vector<push>{};
    push n = s;
    n.msg = 0;
    return std::vector<push>{n};
  });
  m.invariant("the replica never runs ahead", [](const push& s) { return s.r <= s.v; });
  m.eventually("the replica has the server's version", [](const push& s) { return s.r == s.v && s.v == 2; });
  m.final_states([](const push& s) { return s.msg == 0; });  // idle: the system may stop there
  m.describe([](const push& s) {
    return "v=" + std::to_string(s.v) + " r=" + std::to_string(s.r) + " in flight=" + std::to_string(s.msg);
  });
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(model)

BOOST_AUTO_TEST_CASE(an_invariant_violation_comes_with_a_shortest_trace) {
  auto m = counter();
  m.invariant("x stays below 4", [](const int& x) { return x < 4; });
  const auto r = simasio::check_model(m);
  BOOST_REQUIRE(!r.ok);
  BOOST_TEST(r.violation == "invariant 'x stays below 4'");
  BOOST_REQUIRE(r.trace.size() == 5u);  // initial, up, up, up, up
  BOOST_TEST(r.trace[0].action.empty());
  BOOST_TEST(r.trace[4].action == "up");
  BOOST_TEST(r.trace[4].state == "x=4");
  BOOST_TEST(r.explanation().find("4. up -> x=4") != std::string::npos, r.explanation());
  // The same model, the same answer.
  const auto again = simasio::check_model(m);
  BOOST_TEST(again.explanation() == r.explanation());
}

BOOST_AUTO_TEST_CASE(a_clean_model_reports_its_size) {
  auto m = counter();
  m.invariant("x in range", [](const int& x) { return x >= 0 && x <= 9; });
  const auto r = simasio::check_model(m);
  BOOST_TEST(r.ok);
  BOOST_TEST(r.complete);
  BOOST_TEST(r.states == 10u);
  BOOST_TEST(r.transitions == 18u);
  BOOST_TEST(r.depth == 9u);
}

BOOST_AUTO_TEST_CASE(crossed_locks_deadlock_and_ordered_locks_do_not) {
  const auto crossed = simasio::check_model(philosophers(false));
  BOOST_REQUIRE(!crossed.ok);
  BOOST_TEST(crossed.violation == "deadlock");
  BOOST_REQUIRE(crossed.trace.size() == 3u);  // p takes a, q takes b: stuck
  BOOST_TEST(crossed.trace.back().state == "p@1 q@1 a:0 b:1", crossed.explanation());
  const auto ordered = simasio::check_model(philosophers(true));
  BOOST_TEST(ordered.ok, ordered.explanation());
}

BOOST_AUTO_TEST_CASE(fire_and_forget_never_converges_under_loss_and_the_repush_does) {
  const auto flawed = simasio::check_model(route_push(false));
  BOOST_REQUIRE(!flawed.ok);
  BOOST_TEST(flawed.violation == "liveness 'the replica has the server's version'");
  BOOST_TEST(flawed.stops);  // a lost push is never sent again: nothing left to do
  BOOST_TEST(flawed.explanation().find("lose") != std::string::npos, flawed.explanation());
  BOOST_TEST_MESSAGE(flawed.explanation());
  // The re-push: 'send' stays enabled while the replica lags, and
  // delivery is strongly fair, so every fair behaviour converges.
  const auto fixed = simasio::check_model(route_push(true));
  BOOST_TEST(fixed.ok, fixed.explanation());
  BOOST_TEST(fixed.complete);
  // Without fair delivery, the network may lose every push for ever.
  simasio::model<push> unfair = route_push(true);
  simasio::model<push> weak("re-push, unfair network");
  weak.initial({});
  for (std::size_t a = 0; a < unfair.action_count(); ++a)
    weak.action(unfair.action_name(a), [unfair, a](const push& s) { return unfair.next(a, s); });
  weak.eventually("converged", [](const push& s) { return s.r == s.v && s.v == 2; })
      .final_states([](const push& s) { return s.msg == 0; })
      .describe([unfair](const push& s) { return unfair.show(s); });
  const auto lossy = simasio::check_model(weak);
  BOOST_REQUIRE(!lossy.ok);
  BOOST_TEST(!lossy.stops);
  BOOST_TEST(lossy.explanation().find("from here, for ever") != std::string::npos, lossy.explanation());
  BOOST_TEST(lossy.explanation().find("lose") != std::string::npos, lossy.explanation());
  BOOST_TEST(lossy.trace.back().state == lossy.trace[lossy.cycle_start].state);
  BOOST_TEST(lossy.trace.size() == lossy.cycle_start + 3);  // lose, send: each step once
  BOOST_TEST_MESSAGE(lossy.explanation());
}

BOOST_AUTO_TEST_CASE(weak_fairness_takes_an_action_that_stays_enabled) {
  // In 0, 'wait' loops and 'go' is always enabled: a fair behaviour goes.
  simasio::model<int> m("go");
  m.initial(0)
      .action("wait", [](const int& x) { return x == 0 ? std::vector<int>{0} : std::vector<int>{}; })
      .action("go", [](const int& x) { return x == 0 ? std::vector<int>{1} : std::vector<int>{}; })
      .eventually("gone", [](const int& x) { return x == 1; })
      .final_states([](const int& x) { return x == 1; });
  BOOST_TEST(simasio::check_model(m).ok);
  // 'go' enabled only every other state: a fair behaviour may keep
  // toggling and never go.
  simasio::model<int> t("toggle");
  t.initial(0)
      .action("toggle", [](const int& x) { return x < 2 ? std::vector<int>{1 - x} : std::vector<int>{}; })
      .action("go", [](const int& x) { return x == 1 ? std::vector<int>{2} : std::vector<int>{}; })
      .eventually("gone", [](const int& x) { return x == 2; })
      .final_states([](const int& x) { return x == 2; });
  const auto r = simasio::check_model(t);
  BOOST_REQUIRE(!r.ok);
  BOOST_TEST(!r.stops);
  BOOST_TEST(r.trace.size() > r.cycle_start + 1);  // a cycle: toggle, toggle
  BOOST_TEST(r.trace.back().state == r.trace[r.cycle_start].state);  // that closes
}

BOOST_AUTO_TEST_CASE(bounds_stop_exploration_and_say_so) {
  auto m = counter();
  m.invariant("x below 8", [](const int& x) { return x < 8; });
  const auto bounded = simasio::check_model(m, {.max_states = 5});
  BOOST_TEST(bounded.ok);
  BOOST_TEST(!bounded.complete);
  BOOST_TEST(bounded.states == 5u);
  const auto shallow = simasio::check_model(m, {.max_depth = 3});
  BOOST_TEST(shallow.ok);
  BOOST_TEST(!shallow.complete);
  BOOST_TEST(!simasio::check_model(m).ok);
  simasio::model<int> empty("empty");
  BOOST_CHECK_THROW(simasio::check_model(empty), simasio::usage_error);
}

BOOST_AUTO_TEST_CASE(a_run_that_refines_its_model_passes_and_one_that_skips_a_step_fails) {
  auto m = std::make_shared<const simasio::model<int>>(counter());
  for (const int stride : {1, 2}) {
    simasio::world w;
    auto& h = w.add_host("h");
    int x = 0;
    net::steady_timer t(h.context());
    std::function<void()> tick = [&] {
      t.expires_after(1ms);
      t.async_wait([&](boost::system::error_code) {
        x += stride;
        if (x < 8) tick();
      });
    };
    tick();
    w.refines(m, [&x] { return x; });  // the member; the free function below
    if (stride == 1) {
      w.run();
      BOOST_TEST(x == 8);
    } else {
      const std::string what = simasio_test::what_of<simasio::refinement_error>([&] { w.run(); });
      BOOST_TEST(what.find("refinement of model 'counter' failed at t=") != std::string::npos, what);
      BOOST_TEST(what.find("from x=0 to x=2") != std::string::npos, what);
    }
  }
  simasio::world w;
  int x = 5;
  BOOST_CHECK_THROW(simasio::refines(w, *m, [&x] { return x; }), simasio::refinement_error);
}

BOOST_AUTO_TEST_SUITE_END()
