// fuzz_test.cpp — a fuzzer's bytes as the choice tape: which draw takes which byte, failures as tapes that replay
#include <simasio/asio.hpp>
#include <simasio/check/fuzz.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace net = simasio::asio;
using net::ip::udp;
using namespace std::chrono_literals;

namespace {

using bytes = std::vector<std::uint8_t>;

// An input: the seed's 8 bytes, little-endian, then @p tail.
bytes input(std::uint64_t seed, const bytes& tail) {
  bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(seed >> (8 * i)));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

simasio::world_options fuzzed(std::uint64_t seed, const bytes& tail) {
  simasio::world_options o;
  o.seed = seed;
  o.fuzz_input = std::make_shared<const bytes>(tail);
  return o;
}

// A request racing a 50 ms deadline over a link of 1..100 ms each way: the
// polite run (1 ms) passes, long latencies fail.
void race(simasio::world& w) {
  simasio::link_config link;
  link.min_latency = 1ms;
  link.max_latency = 100ms;
  w.net().configure(link);
  auto& srv = w.add_host("server");
  auto& cli = w.add_host("client");
  udp::socket s(srv.context(), udp::endpoint(udp::v4(), 7));
  udp::socket c(cli.context(), udp::v4());
  char sbuf[4], cbuf[4];
  udp::endpoint from;
  s.async_receive_from(net::buffer(sbuf), from, [&](boost::system::error_code ec, std::size_t n) {
    if (!ec) s.send_to(net::buffer(sbuf, n), from);
  });
  bool replied = false;
  c.send_to(net::buffer("ping", 4), udp::endpoint(srv.address(), 7));
  c.async_receive(net::buffer(cbuf), [&](boost::system::error_code ec, std::size_t) { replied = !ec; });
  w.run_for(50ms);
  if (!replied) throw std::runtime_error("no reply within 50 ms");
}

simasio::fuzz_options quiet(const std::string& name) {
  simasio::fuzz_options o;
  o.name = name;
  o.print = false;
  o.artifacts_dir = (std::filesystem::temp_directory_path() / "simasio_fuzz_test").string();
  return o;
}

std::optional<simasio::failure> run(const bytes& in, void (*scenario)(simasio::world&), const simasio::fuzz_options& o) {
  return simasio::fuzz_run(in.data(), in.size(), scenario, o);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fuzz_input)

BOOST_AUTO_TEST_CASE(the_first_eight_bytes_are_the_seed_little_endian) {
  const bytes in = input(0x0102030405060708ULL, {9, 9});
  BOOST_TEST(simasio::fuzz_seed(in.data(), in.size()) == 0x0102030405060708ULL);
  const bytes short_input{0x34, 0x12};
  BOOST_TEST(simasio::fuzz_seed(short_input.data(), short_input.size()) == 0x1234u);
  BOOST_TEST(simasio::fuzz_seed(nullptr, 0) == 0u);
}

BOOST_AUTO_TEST_CASE(draws_take_bytes_in_the_order_the_program_makes_them_then_the_seed_decides) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    simasio::world plain([&] {
      simasio::world_options o;
      o.seed = seed;
      return o;
    }());
    std::vector<std::uint64_t> own;
    for (int i = 0; i < 8; ++i) own.push_back(plain.random("a").below(1000));
    // One byte for a bound up to 256 (the top of a fraction of it), two
    // for a larger bound; streams take them in draw order, whichever draws.
    simasio::world w(fuzzed(seed, {255, 0, 128, 0x80, 0x00, 7}));
    BOOST_TEST(w.random("b").below(2) == 1u);      // 255/256 of 2
    BOOST_TEST(w.random("b").below(256) == 0u);    // the polite byte
    BOOST_TEST(w.random("c").below(10) == 5u);     // 128/256 of 10
    BOOST_TEST(w.random("a").below(1000) == 500u);  // 0x8000/65536 of 1000
    BOOST_TEST(w.random("b").below(256) == 7u);
    // Past the end the seed decides, and each stream's later draws are
    // the ones it would have made without the bytes.
    BOOST_TEST(w.random("a").below(1000) == own[1]);
    BOOST_TEST(w.random("a").below(1000) == own[2]);
    BOOST_TEST(w.tape().deviations() >= 4u);
  }
}

BOOST_AUTO_TEST_CASE(the_same_input_runs_the_same_way) {
  simasio::rng pick(7, simasio::choice_purpose::user);
  for (int i = 0; i < 40; ++i) {
    bytes tail(pick.below(64));
    for (auto& b : tail) b = static_cast<std::uint8_t>(pick.below(256));
    const std::uint64_t seed = pick.below(1000);
    std::uint64_t hash[2] = {0, 0};
    bool failed[2] = {false, false};
    for (int k = 0; k < 2; ++k) {
      simasio::world w(fuzzed(seed, tail));
      try {
        race(w);
      } catch (const std::runtime_error&) {
        failed[k] = true;
      }
      hash[k] = w.trace_hash();
    }
    BOOST_TEST(hash[0] == hash[1]);
    BOOST_TEST(failed[0] == failed[1]);
  }
}

BOOST_AUTO_TEST_CASE(the_bytes_steer_the_run_whatever_the_seed) {
  simasio::fuzz_options o = quiet("race");
  o.shrink = false;
  o.world.record_trace = false;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    BOOST_TEST(!run(input(seed, bytes(32, 0x00)), &race, o).has_value(), "seed " << seed);  // polite: 1 ms each way
    BOOST_TEST(run(input(seed, bytes(32, 0xFF)), &race, o).has_value(), "seed " << seed);   // slowest: 100 ms
  }
}

BOOST_AUTO_TEST_CASE(a_failing_input_lands_as_a_tape_that_replays_without_the_fuzzer) {
  const simasio::fuzz_options o = quiet("race");
  const bytes in = input(42, bytes(32, 0xFF));
  const auto f = run(in, &race, o);
  BOOST_REQUIRE(f.has_value());
  BOOST_TEST(f->what == "no reply within 50 ms");
  BOOST_TEST(f->seed == 42u);
  BOOST_TEST(f->replay.rfind("SIMASIO_TAPE=", 0) == 0u, f->replay);
  const std::string tape_path = f->replay.substr(13, f->replay.find(' ') - 13);
  BOOST_TEST(tape_path.find("race-fuzz-") != std::string::npos, tape_path);
  const simasio::saved_tape tape = simasio::load_tape(tape_path);
  BOOST_TEST(tape.seed == 42u);
  // The tape replays the input's run, through check() as the replay line would.
  {
    simasio_test::scoped_env env("SIMASIO_TAPE", tape_path.c_str());
    simasio::check_options c;
    c.print = false;
    c.shrink = false;
    c.artifacts = false;
    const auto replayed = simasio::check(&race, c);
    BOOST_REQUIRE(!replayed.ok());
    BOOST_TEST(replayed.failure->what == "no reply within 50 ms");
  }
  // Shrunk as a seed's run would be: one slow hop is enough.
  BOOST_TEST(!f->tape_path.empty());
  BOOST_TEST(f->deviations >= 1u);
  BOOST_TEST(f->deviations <= 2u);
  simasio::world_options w;
  w.replay_tape = std::make_shared<const simasio::saved_tape>(simasio::load_tape(f->tape_path));
  BOOST_CHECK_THROW(simasio::replay(&race, 42, w), simasio::scenario_failure);
}

BOOST_AUTO_TEST_CASE(an_input_that_fails_only_once_is_reported_as_nondeterminism) {
  static int calls = 0;  // state kept between runs: what a fuzzer's one process exposes
  calls = 0;
  auto once = [](simasio::world& w) {
    w.add_host("a");
    if (++calls == 1) throw std::runtime_error("first run only");
  };
  const simasio::fuzz_options o = quiet("once");
  const bytes in = input(1, {});
  const auto f = simasio::fuzz_run(in.data(), in.size(), once, o);
  BOOST_REQUIRE(f.has_value());
  BOOST_TEST(f->type == "simasio::nondeterminism");
  BOOST_TEST(f->what.find("this input failed (first run only) and then passed") != std::string::npos, f->what);
  BOOST_TEST(f->what.find("a fuzzer runs every input in one process") != std::string::npos, f->what);
}

BOOST_AUTO_TEST_CASE(libfuzzers_empty_probe_input_runs_nothing) {
  static int runs = 0;
  runs = 0;
  auto always_fails = [](simasio::world&) {
    ++runs;
    throw std::runtime_error("fails on every input");
  };
  // A run would fail, and fuzz_one_input would abort the test program.
  BOOST_TEST(simasio::fuzz_one_input(nullptr, 0, always_fails, quiet("probe")) == 0);
  BOOST_TEST(runs == 0);
}

BOOST_AUTO_TEST_CASE(a_failure_whose_tape_cannot_be_saved_is_still_reported) {
  simasio::fuzz_options o = quiet("race");
  o.artifacts_dir = "/proc/simasio-no-such-place";  // no folder can be made there
  const bytes in = input(5, bytes(32, 0xFF));
  const auto f = run(in, &race, o);
  BOOST_REQUIRE(f.has_value());
  BOOST_TEST(f->what == "no reply within 50 ms");
  BOOST_TEST(f->seed == 5u);
  BOOST_TEST(f->replay.rfind("(rerun the input) ", 0) == 0u, f->replay);
  BOOST_TEST(f->not_shrunk.find("/proc/simasio-no-such-place") != std::string::npos, f->not_shrunk);
}

BOOST_AUTO_TEST_CASE(a_tape_and_fuzzer_bytes_together_are_refused) {
  simasio::world_options o = fuzzed(1, {1, 2});
  o.replay_tape = std::make_shared<const simasio::saved_tape>();
  const std::string what = simasio_test::what_of<simasio::config_error>([&] { simasio::world w(o); });
  BOOST_TEST(what.find("replay_tape and world_options::fuzz_input are both set") != std::string::npos, what);
}

BOOST_AUTO_TEST_SUITE_END()
