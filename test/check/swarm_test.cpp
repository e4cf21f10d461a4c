// swarm_test.cpp — fault mixes: given or drawn per seed (swarm testing), applied by the world, reported and replayed
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

namespace {

simasio::fault_mix mix_of(std::uint64_t seed) {
  simasio::world_options o;
  o.seed = seed;
  o.swarm = true;
  simasio::world w(o);
  return w.faults();
}

// Datagrams from a to b that arrive, of n sent.
int delivered(simasio::world& w, int n) {
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  udp::socket rx(b.context(), udp::endpoint(udp::v4(), 9));
  udp::socket tx(a.context(), udp::v4());
  int got = 0;
  char buf[4];
  std::function<void()> receive = [&] {
    rx.async_receive(net::buffer(buf), [&](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      ++got;
      receive();
    });
  };
  receive();
  for (int i = 0; i < n; ++i) tx.send_to(net::buffer("x", 1), udp::endpoint(b.address(), 9));
  w.run_for(1s);
  return got;
}

// A scenario that fails only when the seed's mix has loss on.
void fails_with_loss(simasio::world& w) {
  if (w.faults().loss > 0) throw std::runtime_error("lossy seed");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(swarm)

BOOST_AUTO_TEST_CASE(each_seed_draws_its_own_mix_within_the_documented_ranges) {
  int on[6] = {};
  const int seeds = 2000;
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    const simasio::fault_mix m = mix_of(seed);
    BOOST_REQUIRE(m == mix_of(seed));  // the seed alone decides it
    if (m.loss > 0) BOOST_REQUIRE((m.loss >= 0.001 && m.loss <= 0.2));
    if (m.duplicate > 0) BOOST_REQUIRE((m.duplicate >= 0.001 && m.duplicate <= 0.1));
    if (m.partitions > 0) BOOST_REQUIRE((m.partitions >= 0.05 && m.partitions <= 0.5));
    if (m.crashes > 0) BOOST_REQUIRE((m.crashes >= 0.05 && m.crashes <= 0.5));
    if (m.drift_ppb > 0) BOOST_REQUIRE((m.drift_ppb >= 1'000 && m.drift_ppb <= 1'000'000));
    if (m.disk_faults > 0) BOOST_REQUIRE((m.disk_faults >= 0.0001 && m.disk_faults <= 0.01));
    on[0] += m.loss > 0;
    on[1] += m.duplicate > 0;
    on[2] += m.partitions > 0;
    on[3] += m.crashes > 0;
    on[4] += m.drift_ppb > 0;
    on[5] += m.disk_faults > 0;
  }
  for (int n : on) BOOST_TEST((n > seeds * 4 / 10 && n < seeds * 6 / 10), n << " of " << seeds << " seeds");
  // Without swarm the mix is world_options::faults, all off by default.
  BOOST_TEST((simasio::world().faults() == simasio::fault_mix{}));
}

BOOST_AUTO_TEST_CASE(the_world_applies_loss_on_top_of_the_links_own) {
  simasio::world_options o;
  o.faults.loss = 1.0;
  simasio::world lossy(o);
  BOOST_TEST(delivered(lossy, 50) == 0);
  o.faults.loss = 0.5;
  simasio::world half(o);
  const int got = delivered(half, 400);
  BOOST_TEST((got > 140 && got < 260), got);
  simasio::world clean;
  BOOST_TEST(delivered(clean, 50) == 50);
  o.faults = {};
  o.faults.duplicate = 1.0;
  simasio::world doubled(o);
  BOOST_TEST(delivered(doubled, 50) == 100);
}

BOOST_AUTO_TEST_CASE(each_host_drifts_within_the_bound_and_disks_fail_at_the_mix_rate) {
  simasio::world_options o;
  o.faults.drift_ppb = 1'000'000;  // up to 1000 ppm either way
  o.faults.disk_faults = 1.0;
  simasio::world w(o);
  for (const char* name : {"a", "b", "c", "d"}) w.add_host(name);
  w.run_for(2s);
  std::vector<std::int64_t> local;
  for (const char* name : {"a", "b", "c", "d"})
    net::post(w.get_host(name).context(), [&local] { local.push_back(simasio::steady_clock::now().time_since_epoch().count()); });
  w.run();
  BOOST_REQUIRE(local.size() == 4u);
  BOOST_TEST(std::set<std::int64_t>(local.begin(), local.end()).size() == 4u);  // four different drifts
  for (std::int64_t t : local) {
    const std::int64_t world = std::chrono::nanoseconds(2s).count();
    BOOST_TEST(std::llabs(t - world) <= world / 1000, t);  // within 1000 ppm of world time
  }
  boost::system::error_code ec;
  net::random_access_file f(w.get_host("a").context(), "/x", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string("abc")), ec);
  BOOST_TEST((ec == boost::system::errc::io_error), ec.message());
}

BOOST_AUTO_TEST_CASE(rates_that_are_not_probabilities_are_refused) {
  simasio::world_options o;
  o.faults.loss = 1.5;
  const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::world w(o); });
  BOOST_TEST(what.find("world_options::faults.loss = 1.5") != std::string::npos, what);
  o.faults = {};
  o.faults.drift_ppb = -1;
  BOOST_CHECK_THROW(simasio::world w(o), simasio::config_error);
}

BOOST_AUTO_TEST_CASE(a_swarm_failure_reports_its_mix_and_its_seed_replays_it) {
  simasio::check_options opts;
  opts.seeds = 100;
  opts.print = false;
  opts.artifacts = false;
  opts.artifacts_dir = (std::filesystem::temp_directory_path() / "simasio_swarm_test").string();
  opts.swarm = true;
  opts.world.faults.loss = 0.5;  // the fixed mix, which swarm testing ignores
  const auto r = simasio::check(fails_with_loss, opts);
  BOOST_REQUIRE(!r.ok());
  const auto& f = *r.failure;
  BOOST_TEST(f.faults.find("loss ") == 0u, f.faults);
  BOOST_TEST(f.faults.find("loss off") == std::string::npos, f.faults);
  BOOST_TEST(f.replay.find("SIMASIO_SWARM=1") != std::string::npos, f.replay);
  BOOST_TEST(simasio::failure_report(f, "x").find("simasio: swarm: this seed's faults: loss ") != std::string::npos);
  // Shrinking turns off every family the failure does not need: the tape
  // keeps the mix's one draw that turns loss on.
  BOOST_TEST(f.deviations == 1u);
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  BOOST_REQUIRE(tape.streams.size() == 1u);
  BOOST_TEST(tape.streams[0].key == "swarm");
  {
    // The tape brings its mix: SIMASIO_TAPE alone replays it.
    simasio_test::scoped_env env("SIMASIO_TAPE", f.tape_path.c_str());
    simasio::check_options again;
    again.print = false;
    again.artifacts = false;
    const auto replayed = simasio::check(fails_with_loss, again);
    BOOST_REQUIRE(!replayed.ok());
    BOOST_TEST(replayed.failure->what == "lossy seed");
    BOOST_TEST(replayed.failure->faults.find("loss ") == 0u, replayed.failure->faults);
  }
  simasio::world_options swarm_world;
  swarm_world.swarm = true;
  BOOST_CHECK_THROW(simasio::replay(fails_with_loss, f.seed, swarm_world), simasio::scenario_failure);
  simasio::replay(fails_with_loss, f.seed);  // without swarm: no loss, passes
  {
    simasio_test::scoped_env env("SIMASIO_SWARM", "1");
    BOOST_CHECK_THROW(simasio::replay(fails_with_loss, f.seed), simasio::scenario_failure);
  }
  // Off by the environment, the sweep runs the fixed mix (loss 0.5: the
  // first seed fails, with no mix to report); a bad value is an error.
  simasio_test::scoped_env off("SIMASIO_SWARM", "0");
  const auto fixed = simasio::check(fails_with_loss, opts);
  BOOST_REQUIRE(!fixed.ok());
  BOOST_TEST(fixed.runs == 1u);
  BOOST_TEST(fixed.failure->faults.empty());
  BOOST_TEST(fixed.failure->replay.find("SIMASIO_SWARM") == std::string::npos);
  simasio_test::scoped_env bad("SIMASIO_SWARM", "yes");
  BOOST_CHECK_THROW(simasio::check(fails_with_loss, opts), simasio::config_error);
}

BOOST_AUTO_TEST_CASE(an_empty_tape_turns_every_family_off) {
  simasio::world_options o;
  o.swarm = true;
  o.seed = 3;
  o.replay_tape = std::make_shared<const simasio::saved_tape>();
  o.on_tape_mismatch = simasio::tape_mismatch::polite;
  simasio::world w(o);
  BOOST_TEST((w.faults() == simasio::fault_mix{}));
  // A given drift bound, replayed politely: every host's clock keeps world time.
  simasio::world_options fixed;
  fixed.faults.drift_ppb = 1'000'000;
  fixed.replay_tape = std::make_shared<const simasio::saved_tape>();
  fixed.on_tape_mismatch = simasio::tape_mismatch::polite;
  simasio::world polite(fixed);
  for (const char* name : {"a", "b", "c"}) polite.add_host(name);
  polite.run_for(2s);
  std::vector<std::int64_t> local;
  for (const char* name : {"a", "b", "c"})
    net::post(polite.get_host(name).context(), [&local] { local.push_back(simasio::steady_clock::now().time_since_epoch().count()); });
  polite.run();
  BOOST_TEST(local.size() == 3u);
  for (std::int64_t t : local) BOOST_TEST(t == std::chrono::nanoseconds(2s).count());
}

BOOST_AUTO_TEST_SUITE_END()
