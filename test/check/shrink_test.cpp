// shrink_test.cpp — tapes on disk, SIMASIO_TAPE replay, shrinking to the essential deviation
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

std::string temp_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shrink)

BOOST_AUTO_TEST_CASE(a_planted_reordering_shrinks_to_its_one_essential_deviation) {
  simasio::check_options opts;
  opts.seeds = 200;
  opts.print = false;
  opts.name = "planted";
  opts.artifacts_dir = temp_dir("simasio_shrink_test");
  const auto r = simasio::check(planted, opts);
  BOOST_REQUIRE(!r.ok());
  const auto& f = *r.failure;
  BOOST_TEST(f.what == "h5 overtook h0");
  BOOST_TEST(f.original_choices > 10u);
  BOOST_TEST(f.deviations == 1u);  // exactly the first pick: h5 instead of h0
  BOOST_REQUIRE(std::filesystem::exists(f.tape_path));
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  BOOST_TEST(tape.seed == f.seed);
  BOOST_REQUIRE(tape.choices.size() == 1u);
  BOOST_TEST((tape.choices[0] == simasio::choice{simasio::choice_purpose::scheduler, 6, 5}));

  // The shrunk tape replays the failure, under any seed's name.
  simasio_test::scoped_env env("SIMASIO_TAPE", f.tape_path.c_str());
  opts.seeds = 1;
  const auto again = simasio::check(planted, opts);
  BOOST_REQUIRE(!again.ok());
  BOOST_TEST(again.failure->what == "h5 overtook h0");
  BOOST_CHECK_THROW(simasio::replay(planted, 12345), simasio::scenario_failure);
}

BOOST_AUTO_TEST_CASE(tape_files_round_trip) {
  const std::string dir = temp_dir("simasio_tape_test");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/t.tape";
  simasio::saved_tape t{42, {{simasio::choice_purpose::network, 11, 3}, {simasio::choice_purpose::user, 2, 0}}};
  simasio::save_tape(path, t);
  const auto back = simasio::load_tape(path);
  BOOST_TEST(back.seed == 42u);
  BOOST_TEST((back.choices == t.choices));
}

BOOST_AUTO_TEST_CASE(tape_text_parses_and_formats_back) {
  const simasio::saved_tape t{7, {{simasio::choice_purpose::scheduler, 3, 1}, {simasio::choice_purpose::buggify, 2, 0}}};
  const std::string text = simasio::format_tape(t);
  const auto back = simasio::parse_tape(text, "pasted");
  BOOST_TEST(back.seed == 7u);
  BOOST_TEST((back.choices == t.choices));
  // Comments, blank lines, spaces and a last line without '\n'.
  const auto loose = simasio::parse_tape("  # saved by hand\n\nsimasio-tape 1\n  seed   0x10 # hex\nnetwork 5 4", "pasted");
  BOOST_TEST(loose.seed == 16u);
  BOOST_TEST(loose.choices.size() == 1u);
  BOOST_CHECK_THROW(simasio::parse_tape("simasio-tape 1 extra\nseed 1\n", "pasted"), simasio::tape_error);
  auto message = [](std::string_view text) {
    return simasio_test::what_of<simasio::tape_error>([&] { simasio::parse_tape(text, "pasted"); });
  };
  const std::string two_seeds = message("simasio-tape 1\nseed 1\nseed 2\n");
  BOOST_TEST(two_seeds.find("tape pasted line 3: a second 'seed' line") != std::string::npos, two_seeds);
  const std::string bad_bound = message("simasio-tape 1\nseed 1\nuser 0x 1\n");
  BOOST_TEST(bad_bound.find("line 3: bound='0x' is not a number") != std::string::npos, bad_bound);
}

BOOST_AUTO_TEST_CASE(a_corrupted_tape_is_a_clear_error) {
  const std::string dir = temp_dir("simasio_tape_bad");
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
  const std::string dir = temp_dir("simasio_tape_fit");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/other.tape";
  // A tape from "another program": a network draw where this one schedules.
  simasio::save_tape(path, {0, {{simasio::choice_purpose::network, 1000, 5}}});
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
