// shrink_test.cpp — tapes on disk, SIMASIO_TAPE replay, shrinking to the essential deviation
#include <simasio/asio.hpp>
#include <simasio/random/tape_file.hpp>
#include <simasio/simasio.hpp>

#include "../support.hpp"

#include <boost/asio/post.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace asio = boost::asio;

namespace {

// Six hosts each run a chain of five handlers: plenty of scheduling draws.
// The planted bug needs one reordering: h5's first handler before h0's.
struct chain {
  std::vector<std::string>* log;
  simasio::host* host;
  int i;
  void operator()() const {
    log->push_back(host->name() + ":" + std::to_string(i));
    if (i < 4) asio::post(host->context(), chain{log, host, i + 1});
  }
};

void planted(simasio::world& w) {
  std::vector<std::string> log;
  for (int k = 0; k < 6; ++k) {
    auto& h = w.add_host("h" + std::to_string(k));
    asio::post(h.context(), chain{&log, &h, 0});
  }
  w.run();
  auto at = [&](const std::string& e) { return std::find(log.begin(), log.end(), e) - log.begin(); };
  if (at("h5:0") < at("h0:0")) throw std::runtime_error("h5 overtook h0");
}

// Background traffic plus one race: five gossip hosts chat over UDP every
// 5 ms while a client asks a server one question with a 100 ms deadline,
// over a slow link (1..60 ms each way). The deadline is missed only when
// both of the request's two latency draws are long; the hundreds of other
// draws (gossip latencies, gossip targets, scheduling) do not matter.
struct gossip_host {
  simasio::asio::ip::udp::socket socket;
  simasio::asio::steady_timer timer;
  simasio::rng& targets;
  std::vector<simasio::host*>* peers;
  std::size_t self;
  int rounds = 40;
  char buf[16];
  simasio::asio::ip::udp::endpoint from;
  gossip_host(simasio::host& h, simasio::rng& r, std::vector<simasio::host*>* all, std::size_t i)
      : socket(h.context(), {simasio::asio::ip::udp::v4(), 7}), timer(h.context()), targets(r), peers(all), self(i) {
    listen();
    tick();
  }
  void listen() {
    socket.async_receive_from(simasio::asio::buffer(buf), from, [this](boost::system::error_code ec, std::size_t) {
      if (!ec) listen();
    });
  }
  void tick() {
    if (rounds-- == 0) {
      socket.close();
      return;
    }
    const std::size_t to = (self + 1 + targets.below(peers->size() - 1)) % peers->size();
    socket.send_to(simasio::asio::buffer("news", 4), {(*peers)[to]->address(), 7});
    timer.expires_after(std::chrono::milliseconds(5));
    timer.async_wait([this](boost::system::error_code) { tick(); });
  }
};

void deadline_race(simasio::world& w) {
  namespace net = simasio::asio;
  using net::ip::udp;
  std::vector<simasio::host*> gossipers;
  for (int k = 0; k < 5; ++k) gossipers.push_back(&w.add_host("g" + std::to_string(k)));
  auto& client = w.add_host("client");
  auto& server = w.add_host("server");
  simasio::link_config slow;
  slow.min_latency = std::chrono::milliseconds(1);
  slow.max_latency = std::chrono::milliseconds(60);
  w.net().configure(client, server, slow);
  w.net().configure(server, client, slow);
  std::vector<std::unique_ptr<gossip_host>> gossip;
  for (std::size_t i = 0; i < gossipers.size(); ++i)
    gossip.push_back(std::make_unique<gossip_host>(*gossipers[i], w.random("gossip"), &gossipers, i));

  udp::socket srv(server.context(), udp::endpoint(udp::v4(), 9));
  char req[8];
  udp::endpoint asker;
  srv.async_receive_from(net::buffer(req), asker, [&](boost::system::error_code ec, std::size_t n) {
    if (!ec) srv.send_to(net::buffer(req, n), asker);
  });
  udp::socket cli(client.context(), udp::v4());
  net::steady_timer deadline(client.context(), std::chrono::milliseconds(100));
  char rsp[8];
  bool answered = false, late = false;
  cli.send_to(net::buffer("q?", 2), udp::endpoint(server.address(), 9));
  cli.async_receive(net::buffer(rsp), [&](boost::system::error_code ec, std::size_t) {
    if (!ec) answered = true;
    deadline.cancel();
  });
  deadline.async_wait([&](boost::system::error_code ec) {
    if (ec) return;
    late = !answered;
    cli.close();
  });
  w.run();
  if (late) throw std::runtime_error("request missed its 100 ms deadline");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shrink)

BOOST_AUTO_TEST_CASE(a_planted_reordering_shrinks_to_its_one_essential_deviation) {
  simasio::check_options opts;
  opts.seeds = 200;
  opts.print = false;
  opts.name = "planted";
  opts.artifacts_dir = simasio_test::temp_dir("simasio_shrink_test");
  const auto r = simasio::check(planted, opts);
  BOOST_REQUIRE(!r.ok());
  const auto& f = *r.failure;
  BOOST_TEST(f.what == "h5 overtook h0");
  BOOST_TEST(f.original_choices > 10u);
  // Exactly one pick: h5 first. (Zeroing alone leaves the first picks
  // that happen to get there, e.g. 4, 2, 3; the shrinker then tries the
  // first pick's other values with the rest polite.)
  BOOST_REQUIRE(std::filesystem::exists(f.tape_path));
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  BOOST_TEST(tape.seed == f.seed);
  BOOST_REQUIRE(tape.streams.size() == 1u);
  BOOST_TEST(tape.streams[0].key == "scheduler");
  BOOST_TEST(f.deviations == 1u);
  BOOST_REQUIRE(tape.streams[0].choices.size() == 1u);
  BOOST_TEST((tape.streams[0].choices[0] == simasio::choice{simasio::choice_purpose::scheduler, 6, 5}));

  // The shrunk tape replays the failure, under any seed's name.
  simasio_test::scoped_env env("SIMASIO_TAPE", f.tape_path.c_str());
  opts.seeds = 1;
  const auto again = simasio::check(planted, opts);
  BOOST_REQUIRE(!again.ok());
  BOOST_TEST(again.failure->what == "h5 overtook h0");
  BOOST_CHECK_THROW(simasio::replay(planted, 12345), simasio::scenario_failure);
}

BOOST_AUTO_TEST_CASE(a_race_under_background_traffic_shrinks_to_the_draws_that_matter) {
  simasio::check_options opts;
  opts.seeds = 500;
  opts.print = false;
  opts.name = "deadline_race";
  opts.artifacts_dir = simasio_test::temp_dir("simasio_shrink_race");
  const auto r = simasio::check(deadline_race, opts);
  BOOST_REQUIRE(!r.ok());
  const auto& f = *r.failure;
  BOOST_TEST(f.what == "request missed its 100 ms deadline");
  BOOST_TEST(f.original_choices > 200u);
  // Exactly the two latencies of the request and its answer.
  BOOST_TEST(f.deviations == 2u, f.deviations << " deviations left of " << f.original_choices << " choices");
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  BOOST_TEST(tape.streams.size() == 2u);
  BOOST_TEST(tape.find("network:client->server") != nullptr);
  BOOST_TEST(tape.find("network:server->client") != nullptr);

  // The shrunk tape replays the failure (under the strict policy: it fits).
  simasio_test::scoped_env env("SIMASIO_TAPE", f.tape_path.c_str());
  opts.seeds = 1;
  const auto again = simasio::check(deadline_race, opts);
  BOOST_REQUIRE(!again.ok());
  BOOST_TEST(again.failure->what == "request missed its 100 ms deadline");
}

BOOST_AUTO_TEST_CASE(every_seed_of_the_race_shrinks_to_a_handful_of_deviations) {
  // Not one lucky seed: the first failing seeds past several starting points.
  for (std::uint64_t first : {1000u, 2000u, 3000u, 4000u}) {
    simasio::check_options opts;
    opts.first_seed = first;
    opts.seeds = 500;
    opts.print = false;
    opts.name = "deadline_race";
    opts.artifacts_dir = simasio_test::temp_dir("simasio_shrink_race_many");
    const auto r = simasio::check(deadline_race, opts);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.failure->deviations <= 5u, "seed " << r.failure->seed << ": " << r.failure->deviations
                                                    << " deviations of " << r.failure->original_choices);
  }
}

BOOST_AUTO_TEST_CASE(a_links_stream_key_keeps_host_names_apart) {
  // "->" separates the two names: a '>' inside a name is written %3E.
  simasio::world w(simasio::world_options{.record_tape = true});
  auto& a = w.add_host("x->y");
  auto& b = w.add_host("z");
  simasio::asio::ip::udp::socket rx(b.context(), {simasio::asio::ip::udp::v4(), 9});
  simasio::asio::ip::udp::socket tx(a.context(), simasio::asio::ip::udp::v4());
  tx.send_to(simasio::asio::buffer("x", 1), {b.address(), 9});
  w.run();
  const simasio::saved_tape t = w.tape().recorded();
  BOOST_TEST(t.find("network:x-%3Ey->z") != nullptr, simasio::format_tape(t));
}

BOOST_AUTO_TEST_CASE(tape_files_round_trip) {
  const std::string dir = simasio_test::temp_dir("simasio_tape_test");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/t.tape";
  simasio::saved_tape t{42,
                        {{"network:a->b", {{simasio::choice_purpose::network, 11, 3}}},
                         {"user:odd name #1 100%", {{simasio::choice_purpose::user, 2, 0}}}}};
  simasio::save_tape(path, t);
  const auto back = simasio::load_tape(path);
  BOOST_TEST(back.seed == 42u);
  BOOST_TEST((back == t));
}

BOOST_AUTO_TEST_CASE(tape_text_parses_and_formats_back) {
  const simasio::saved_tape t{7,
                              {{"scheduler", {{simasio::choice_purpose::scheduler, 3, 1}}},
                               {"buggify:site", {{simasio::choice_purpose::buggify, 2, 0}}}}};
  const std::string text = simasio::format_tape(t);
  BOOST_TEST(text.find("simasio-tape 3\n") == 0u, text);
  BOOST_TEST(text.find("\nend 2\n") != std::string::npos, text);
  BOOST_TEST(text.find("\nstream buggify:site\n2 0\n") != std::string::npos, text);
  const auto back = simasio::parse_tape(text, "pasted");
  BOOST_TEST(back.seed == 7u);
  BOOST_TEST((back == t));
  // Comments, blank lines, spaces and a last line without '\n'.
  const auto loose =
      simasio::parse_tape("  # saved by hand\n\nsimasio-tape 2\n  seed   0x10 # hex\nstream network:a->b\n5 4", "pasted");
  BOOST_TEST(loose.seed == 16u);
  BOOST_REQUIRE(loose.streams.size() == 1u);
  BOOST_TEST((loose.streams[0].choices == std::vector<simasio::choice>{{simasio::choice_purpose::network, 5, 4}}));
  // Format 1 (every draw in one positional section) still loads, and formats back as format 1.
  const auto old = simasio::parse_tape("simasio-tape 1\nseed 3\nnetwork 5 4\nuser 2 1\n", "old");
  BOOST_TEST(old.positional);
  BOOST_REQUIRE(old.streams.size() == 1u);
  BOOST_TEST(old.streams[0].choices.size() == 2u);
  BOOST_TEST((simasio::parse_tape(simasio::format_tape(old), "again") == old));
  // What no text can hold is refused, not written wrong.
  BOOST_CHECK_THROW(simasio::format_tape({0, {{"", {{simasio::choice_purpose::user, 2, 1}}}}}), simasio::tape_error);
  BOOST_CHECK_THROW(simasio::format_tape({0, {{"", {}}, {"", {}}}, true}), simasio::tape_error);
  BOOST_CHECK_THROW(simasio::parse_tape("simasio-tape 1 extra\nseed 1\n", "pasted"), simasio::tape_error);
  auto message = [](std::string_view text) {
    return simasio_test::what_of<simasio::tape_error>([&] { simasio::parse_tape(text, "pasted"); });
  };
  const std::string two_seeds = message("simasio-tape 1\nseed 1\nseed 2\n");
  BOOST_TEST(two_seeds.find("tape pasted line 3: a second 'seed' line") != std::string::npos, two_seeds);
  const std::string bad_bound = message("simasio-tape 1\nseed 1\nuser 0x 1\n");
  BOOST_TEST(bad_bound.find("line 3: bound='0x' is not a number") != std::string::npos, bad_bound);
  const std::string orphan = message("simasio-tape 2\nseed 1\n3 1\n");
  BOOST_TEST(orphan.find("line 3: a draw before any 'stream <key>' line") != std::string::npos, orphan);
  const std::string twice = message("simasio-tape 2\nseed 1\nstream user\n3 1\nstream user\n");
  BOOST_TEST(twice.find("line 5: a second section for stream 'user'") != std::string::npos, twice);
  const std::string family = message("simasio-tape 2\nseed 1\nstream wizard:x\n");
  BOOST_TEST(family.find("stream 'wizard:x' is of no known family") != std::string::npos, family);
  const std::string escape = message("simasio-tape 2\nseed 1\nstream user:%4\n");
  BOOST_TEST(escape.find("not followed by two hex digits") != std::string::npos, escape);
}

BOOST_AUTO_TEST_CASE(a_corrupted_tape_is_a_clear_error) {
  const std::string dir = simasio_test::temp_dir("simasio_tape_bad");
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& text) {
    std::ofstream(dir + "/bad.tape") << text;
    return dir + "/bad.tape";
  };
  auto message = [](const std::string& path) {
    return simasio_test::what_of<simasio::tape_error>([&] { simasio::load_tape(path); });
  };
  BOOST_TEST(message(write("hello\n")).find("not a simasio tape") != std::string::npos);
  BOOST_TEST(message(write("simasio-tape 9\nseed 1\n")).find("version 9 is not supported") != std::string::npos);
  BOOST_TEST(message(write("simasio-tape 1\nseed 1\nscheduler 3 7\n")).find("line 3: value 7 is not below its bound 3") !=
             std::string::npos);
  BOOST_TEST(message(write("simasio-tape 1\nseed 1\nwizard 3 1\n")).find("unknown purpose 'wizard'") != std::string::npos);
  BOOST_TEST(message(write("simasio-tape 1\nscheduler 3 1\n")).find("no 'seed' line") != std::string::npos);
  BOOST_TEST(message(dir + "/missing.tape").find("cannot be read") != std::string::npos);
  const std::string garbage = write("garbage");
  simasio_test::scoped_env env("SIMASIO_TAPE", garbage.c_str());
  BOOST_CHECK_THROW(simasio::check(planted, {}), simasio::tape_error);
}

BOOST_AUTO_TEST_CASE(a_tape_that_no_longer_fits_is_reported_or_continues_by_choice) {
  const std::string dir = simasio_test::temp_dir("simasio_tape_fit");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/other.tape";
  // A tape from "another program": a scheduler draw below 1000 where this
  // one picks among six contexts.
  simasio::save_tape(path, {0, {{"scheduler", {{simasio::choice_purpose::scheduler, 1000, 5}}}}});
  simasio_test::scoped_env env("SIMASIO_TAPE", path.c_str());
  simasio::check_options opts;
  opts.print = false;
  const auto r = simasio::check(planted, opts);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.failure->what.find("does not fit this program") != std::string::npos);
  simasio_test::scoped_env policy("SIMASIO_TAPE_MISMATCH", "seeded");
  BOOST_TEST(simasio::check(planted, opts).runs == 1u);  // continues with the seed's own draws
  simasio_test::scoped_env bad("SIMASIO_TAPE_MISMATCH", "maybe");
  BOOST_CHECK_THROW(simasio::check(planted, opts), simasio::config_error);
}

BOOST_AUTO_TEST_SUITE_END()
