// rng_test.cpp — our PRNG, range reduction, sub-streams and the choice tape
#include <simasio/random/rng.hpp>
#include <simasio/error.hpp>

#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

using simasio::choice;
using simasio::choice_purpose;
using simasio::choice_tape;


BOOST_AUTO_TEST_SUITE(rng)

BOOST_AUTO_TEST_CASE(same_seed_and_purpose_give_the_same_draws) {
  simasio::rng a(42, choice_purpose::user), b(42, choice_purpose::user);
  for (int i = 0; i < 1000; ++i) BOOST_TEST(a.below(1'000'003) == b.below(1'000'003));
}

BOOST_AUTO_TEST_CASE(purposes_are_independent_streams) {
  simasio::rng a(42, choice_purpose::user), b(42, choice_purpose::network);
  int equal = 0;
  for (int i = 0; i < 1000; ++i) equal += a.below(1u << 30) == b.below(1u << 30);
  BOOST_TEST(equal < 5);
}

BOOST_AUTO_TEST_CASE(known_answers_pin_the_generator_across_compilers) {
  // xoshiro256** seeded through splitmix64: fixed values, so a change of
  // generator or range reduction (which would change every seed's meaning)
  // fails here.
  simasio::detail::xoshiro256 g(0);
  const std::array<std::uint64_t, 3> first{g(), g(), g()};
  simasio::detail::xoshiro256 h(0);
  BOOST_TEST(first[0] == h());
  std::uint64_t sm = 0;
  BOOST_TEST(simasio::detail::splitmix64(sm) == 0xE220A8397B1DCDAFULL);
  simasio::rng r(7, choice_purpose::scheduler);
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 4; ++i) v.push_back(r.below(100));
  simasio::rng r2(7, choice_purpose::scheduler);
  for (int i = 0; i < 4; ++i) BOOST_TEST(r2.below(100) == v[static_cast<std::size_t>(i)]);
}

BOOST_AUTO_TEST_CASE(below_stays_in_range_and_is_roughly_uniform) {
  simasio::rng r(1, choice_purpose::user);
  std::array<int, 7> counts{};
  const int n = 70'000;
  for (int i = 0; i < n; ++i) {
    const auto v = r.below(7);
    BOOST_REQUIRE(v < 7);
    ++counts[v];
  }
  for (int c : counts) BOOST_TEST(std::abs(c - n / 7) < 600);  // ~6 sigma
}

BOOST_AUTO_TEST_CASE(trivial_bounds_draw_nothing) {
  choice_tape tape;
  simasio::rng r(1, choice_purpose::user, &tape);
  BOOST_TEST(r.below(0) == 0u);
  BOOST_TEST(r.below(1) == 0u);
  BOOST_TEST(r.chance(0.0) == false);
  BOOST_TEST(r.chance(1.0) == true);
  BOOST_TEST(r.between(5, 5) == 5u);
  BOOST_TEST(tape.choices() == 0u);
}

BOOST_AUTO_TEST_CASE(chance_matches_its_probability) {
  simasio::rng r(3, choice_purpose::network);
  int hits = 0;
  const int n = 100'000;
  for (int i = 0; i < n; ++i) hits += r.chance(0.3);
  BOOST_TEST(std::abs(hits - 30'000) < 900);  // ~6 sigma
}

BOOST_AUTO_TEST_CASE(durations_between_bounds_inclusive) {
  simasio::rng r(9, choice_purpose::network);
  using std::chrono::nanoseconds;
  bool saw_lo = false, saw_hi = false;
  for (int i = 0; i < 10'000; ++i) {
    const auto d = r.between(nanoseconds(10), nanoseconds(13));
    BOOST_REQUIRE(d >= nanoseconds(10));
    BOOST_REQUIRE(d <= nanoseconds(13));
    saw_lo |= d == nanoseconds(10);
    saw_hi |= d == nanoseconds(13);
  }
  BOOST_TEST(saw_lo);
  BOOST_TEST(saw_hi);
}

BOOST_AUTO_TEST_CASE(tape_records_and_replays_exactly) {
  choice_tape rec;
  rec.start_recording();
  simasio::rng a(11, choice_purpose::user, &rec);
  std::vector<std::uint64_t> drawn;
  for (int i = 0; i < 50; ++i) drawn.push_back(a.below(static_cast<std::uint64_t>(i + 2)));
  const simasio::saved_tape saved = rec.recorded();
  BOOST_REQUIRE(saved.streams.size() == 1u);
  BOOST_TEST(saved.streams[0].key == "user");
  BOOST_TEST(saved.size() == 50u);
  BOOST_TEST(rec.choices() == 50u);

  choice_tape play;
  play.start_replay(saved);
  simasio::rng b(999, choice_purpose::user, &play);  // another seed: the tape decides
  for (int i = 0; i < 50; ++i) BOOST_TEST(b.below(static_cast<std::uint64_t>(i + 2)) == drawn[static_cast<std::size_t>(i)]);
}

BOOST_AUTO_TEST_CASE(exhausted_tape_answers_the_polite_zero) {
  choice_tape play;
  play.start_replay(simasio::saved_tape{0, {{"user", {choice{choice_purpose::user, 10, 7}}}}});
  simasio::rng r(1, choice_purpose::user, &play);
  BOOST_TEST(r.below(10) == 7u);
  for (int i = 0; i < 10; ++i) BOOST_TEST(r.below(10) == 0u);
  BOOST_TEST(play.deviations() == 1u);
}

BOOST_AUTO_TEST_CASE(mismatching_positional_tape_is_a_clear_error) {
  // A format-1 tape: one section answering every stream in order.
  choice_tape play;
  play.start_replay(simasio::saved_tape{0, {{"", {choice{choice_purpose::network, 10, 3}}}}, true});
  simasio::rng r(1, choice_purpose::scheduler, &play);
  try {
    r.below(4);
    BOOST_FAIL("expected tape_error");
  } catch (const simasio::tape_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("does not fit") != std::string::npos);
    BOOST_TEST(what.find("choice #0") != std::string::npos);
    BOOST_TEST(what.find("network draw below 10") != std::string::npos);
    BOOST_TEST(what.find("scheduler draw below 4") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(mismatch_can_fall_back_to_seeded_draws) {
  choice_tape play;
  play.start_replay(simasio::saved_tape{0, {{"scheduler", {choice{choice_purpose::scheduler, 10, 3}}}}},
                    simasio::tape_mismatch::seeded);
  simasio::rng r(5, choice_purpose::scheduler, &play);
  simasio::rng fresh(5, choice_purpose::scheduler);
  for (int i = 0; i < 20; ++i) BOOST_TEST(r.below(1000) == fresh.below(1000));
  BOOST_TEST(play.diverged());
}

BOOST_AUTO_TEST_CASE(adapt_clamps_a_moved_bound_and_keeps_following_the_section) {
  choice_tape play;
  play.start_replay(simasio::saved_tape{0, {{"disk:d:power",
                                             {choice{choice_purpose::disk, 10, 7}, choice{choice_purpose::disk, 10, 2},
                                              choice{choice_purpose::disk, 10, 9}}}}},
                    simasio::tape_mismatch::adapt);
  simasio::rng r(1, choice_purpose::disk, &play, play.open("disk:d:power", choice_purpose::disk));
  BOOST_TEST(r.below(5) == 4u);   // 7 does not fit below 5: the largest value that does
  BOOST_TEST(r.below(12) == 2u);  // fits: as recorded
  BOOST_TEST(r.below(10) == 9u);  // the section goes on
  BOOST_TEST(r.below(10) == 0u);  // past its end: polite
  BOOST_TEST(!play.diverged());
}

BOOST_AUTO_TEST_CASE(a_stream_that_no_longer_fits_names_its_key_and_position) {
  choice_tape play;
  play.start_replay(simasio::saved_tape{
      0, {{"network:a->b", {choice{choice_purpose::network, 10, 3}, choice{choice_purpose::network, 10, 4}}}}});
  simasio::rng r(1, choice_purpose::network, &play, play.open("network:a->b", choice_purpose::network));
  BOOST_TEST(r.below(10) == 3u);
  try {
    r.below(7);
    BOOST_FAIL("expected tape_error");
  } catch (const simasio::tape_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("draw #1 of stream 'network:a->b' was recorded as a draw below 10") != std::string::npos, what);
    BOOST_TEST(what.find("now makes a draw below 7") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(each_stream_replays_its_own_section_whatever_the_interleaving) {
  // Recorded interleaved a, b, a, b...; replayed b first, then a: each
  // stream still gets its own draws in its own order.
  choice_tape rec;
  rec.start_recording();
  simasio::rng a(1, choice_purpose::user, &rec, rec.open("user:a", choice_purpose::user));
  simasio::rng b(2, choice_purpose::user, &rec, rec.open("user:b", choice_purpose::user));
  std::vector<std::uint64_t> from_a, from_b;
  for (int i = 0; i < 20; ++i) {
    from_a.push_back(a.below(1000));
    from_b.push_back(b.below(1000));
  }
  const simasio::saved_tape saved = rec.recorded(9);
  BOOST_TEST(saved.seed == 9u);
  BOOST_REQUIRE(saved.streams.size() == 2u);
  BOOST_TEST(saved.streams[0].key == "user:a");
  BOOST_TEST(saved.streams[1].key == "user:b");

  choice_tape play;
  play.start_replay(saved);
  simasio::rng b2(77, choice_purpose::user, &play, play.open("user:b", choice_purpose::user));
  simasio::rng a2(78, choice_purpose::user, &play, play.open("user:a", choice_purpose::user));
  simasio::rng c2(79, choice_purpose::user, &play, play.open("user:c", choice_purpose::user));
  for (int i = 0; i < 20; ++i) BOOST_TEST(b2.below(1000) == from_b[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 20; ++i) BOOST_TEST(a2.below(1000) == from_a[static_cast<std::size_t>(i)]);
  BOOST_TEST(c2.below(1000) == 0u);  // no section: polite
}

BOOST_AUTO_TEST_CASE(many_streams_keep_their_keys_numbers_and_sections) {
  // Twenty thousand keys of 12 to 55 characters (a thousand hosts' links):
  // each reopens as its own number, reads back its own key, and its draws
  // come back under that key, whatever was opened after it.
  const auto key_of = [](int i) {
    return "network:" + std::string(static_cast<std::size_t>(i % 40), 'h') + std::to_string(i) + "->x";
  };
  choice_tape rec;
  rec.start_recording();
  constexpr int n = 20000;
  for (int i = 0; i < n; ++i)
    BOOST_REQUIRE(rec.open(key_of(i), choice_purpose::network) == static_cast<std::uint32_t>(i));
  for (int i = 0; i < n; i += 7) {
    BOOST_REQUIRE(rec.open(key_of(i), choice_purpose::network) == static_cast<std::uint32_t>(i));
    BOOST_REQUIRE(rec.key(static_cast<std::uint32_t>(i)) == key_of(i));
    rec.note(static_cast<std::uint32_t>(i), 100, static_cast<std::uint64_t>(1 + i % 99));  // never the polite 0
  }
  BOOST_TEST(rec.streams() == static_cast<std::size_t>(n));
  const simasio::saved_tape saved = rec.recorded();
  BOOST_REQUIRE(saved.streams.size() == static_cast<std::size_t>((n + 6) / 7));
  for (std::size_t k = 0; k < saved.streams.size(); ++k) {
    const int i = static_cast<int>(k) * 7;
    BOOST_REQUIRE(saved.streams[k].key == key_of(i));
    BOOST_REQUIRE(saved.streams[k].choices.size() == 1u);
    BOOST_TEST(saved.streams[k].choices[0].value == static_cast<std::uint64_t>(1 + i % 99));
  }

  // Replayed in reverse order of opening: each stream finds its section by key.
  choice_tape play;
  play.start_replay(saved);
  for (int i = 3; i < n; i += 7) play.open(key_of(i), choice_purpose::network);  // streams with no section
  for (int i = ((n - 1) / 7) * 7; i >= 0; i -= 7) {
    simasio::rng r(5, choice_purpose::network, &play, play.open(key_of(i), choice_purpose::network));
    BOOST_REQUIRE(r.below(100) == static_cast<std::uint64_t>(1 + i % 99));
  }
}

BOOST_AUTO_TEST_CASE(a_key_saved_twice_follows_its_first_section) {
  // A tape written by hand (or edited) may name a key twice: the stream
  // follows the first section, as saved_tape::find reads it, and a stream
  // opened before the replay started finds its section too.
  choice_tape play;
  const std::uint32_t early = play.open("user:early", choice_purpose::user);
  play.start_replay(simasio::saved_tape{0,
                                        {{"user:twice", {choice{choice_purpose::user, 10, 4}}},
                                         {"user:early", {choice{choice_purpose::user, 10, 6}}},
                                         {"user:twice", {choice{choice_purpose::user, 10, 9}}}}});
  simasio::rng e(1, choice_purpose::user, &play, early);
  simasio::rng t(2, choice_purpose::user, &play, play.open("user:twice", choice_purpose::user));
  BOOST_TEST(e.below(10) == 6u);
  BOOST_TEST(t.below(10) == 4u);
  BOOST_TEST(t.below(10) == 0u);  // its section is over: polite, never the second one's 9
}

BOOST_AUTO_TEST_CASE(a_second_replay_relinks_every_stream_to_the_new_tape) {
  choice_tape play;
  play.start_replay(simasio::saved_tape{0,
                                        {{"user:a", {choice{choice_purpose::user, 10, 1}}},
                                         {"user:b", {choice{choice_purpose::user, 10, 2}}},
                                         {"user:c", {choice{choice_purpose::user, 10, 3}}}}});
  const std::uint32_t a = play.open("user:a", choice_purpose::user);
  const std::uint32_t c = play.open("user:c", choice_purpose::user);
  // Fewer sections, another order: a has none now, c is section 0.
  play.start_replay(simasio::saved_tape{0, {{"user:c", {choice{choice_purpose::user, 10, 7}}}}});
  simasio::rng ra(1, choice_purpose::user, &play, a);
  simasio::rng rc(2, choice_purpose::user, &play, c);
  BOOST_TEST(ra.below(10) == 0u);
  BOOST_TEST(rc.below(10) == 7u);
  // A positional tape with no sections answers every draw politely.
  play.start_replay(simasio::saved_tape{0, {}, true});
  BOOST_TEST(rc.below(10) == 0u);
}

namespace {
// Keys of deferred streams, as a world's link layer writes them: token i is "network:h<i>->x".
void write_test_key(const void* prefix, std::uint64_t token, std::string& out) {
  out += static_cast<const char*>(prefix);
  out += "h" + std::to_string(token) + "->x";
}
std::uint64_t fnv(const std::string& s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  return h;
}
std::string test_key(int i) { return "network:h" + std::to_string(i) + "->x"; }
}  // namespace

BOOST_AUTO_TEST_CASE(deferred_streams_get_their_lanes_when_recording_starts) {
  // Opened while nothing records: numbered apart, counted, named on demand,
  // their draws only counted; once recording starts each records under its
  // own key, and one opened while recording is an ordinary lane at once.
  choice_tape tape;
  const std::uint32_t early = tape.open("user:early", choice_purpose::user);
  std::vector<simasio::rng> links;
  for (int i = 0; i < 5; ++i) {
    const std::uint32_t s =
        tape.open_deferred(fnv(test_key(i)), choice_purpose::network, &write_test_key, "network:", i);
    BOOST_REQUIRE((s & choice_tape::deferred_bit) != 0);
    BOOST_TEST(tape.key(s) == test_key(i));
    BOOST_TEST(tape.key_hash(s) == fnv(test_key(i)));
    links.emplace_back(100 + i, choice_purpose::network, &tape, s);
  }
  BOOST_TEST(tape.streams() == 6u);
  std::vector<std::uint64_t> unrecorded;
  for (auto& r : links) unrecorded.push_back(r.below(1000));
  BOOST_TEST(tape.choices() == 5u);

  tape.start_recording();
  BOOST_TEST(tape.streams() == 6u);  // the same streams, with lanes now
  std::vector<std::uint64_t> drawn;
  for (int round = 0; round < 3; ++round)
    for (int i = 4; i >= 0; --i) drawn.push_back(links[static_cast<std::size_t>(i)].below(1000 + round));
  const std::uint32_t later =
      tape.open_deferred(fnv(test_key(9)), choice_purpose::network, &write_test_key, "network:", 9);
  BOOST_TEST((later & choice_tape::deferred_bit) == 0u);
  BOOST_TEST(later == tape.open(test_key(9), choice_purpose::network));
  BOOST_TEST(tape.key(later) == test_key(9));
  BOOST_TEST(later != early);

  const simasio::saved_tape saved = tape.recorded();
  BOOST_REQUIRE(saved.streams.size() == 5u);  // user:early drew nothing, test_key(9) neither
  for (int i = 0; i < 5; ++i) {
    const simasio::tape_stream* section = saved.find(test_key(i));
    BOOST_REQUIRE(section != nullptr);
    BOOST_REQUIRE(section->choices.size() == 3u);
    for (int round = 0; round < 3; ++round) {
      const choice& c = section->choices[static_cast<std::size_t>(round)];
      BOOST_TEST((c.purpose == choice_purpose::network));
      BOOST_TEST(c.bound == static_cast<std::uint64_t>(1000 + round));
      BOOST_TEST(c.value == drawn[static_cast<std::size_t>(round * 5 + 4 - i)]);
    }
  }
}

BOOST_AUTO_TEST_CASE(deferred_streams_follow_their_sections_when_a_replay_starts) {
  // A replay started after the streams opened (as one opened before it
  // does) links each to its key's section; one opened during the replay
  // follows its section from the start.
  choice_tape play;
  std::vector<simasio::rng> links;
  for (int i = 0; i < 3; ++i)
    links.emplace_back(7, choice_purpose::network, &play,
                       play.open_deferred(fnv(test_key(i)), choice_purpose::network, &write_test_key, "network:", i));
  play.start_replay(simasio::saved_tape{0,
                                        {{test_key(2), {choice{choice_purpose::network, 10, 8}}},
                                         {test_key(0), {choice{choice_purpose::network, 10, 3}}},
                                         {test_key(5), {choice{choice_purpose::network, 10, 6}}}}});
  BOOST_TEST(links[0].below(10) == 3u);
  BOOST_TEST(links[1].below(10) == 0u);  // no section: polite
  BOOST_TEST(links[2].below(10) == 8u);
  simasio::rng five(7, choice_purpose::network, &play,
                    play.open_deferred(fnv(test_key(5)), choice_purpose::network, &write_test_key, "network:", 5));
  BOOST_TEST(five.below(10) == 6u);
  BOOST_TEST(play.key(five.stream()) == test_key(5));
}

BOOST_AUTO_TEST_CASE(replaying_no_tape_is_a_usage_error) {
  choice_tape play;
  BOOST_CHECK_EXCEPTION(play.start_replay(std::shared_ptr<const simasio::saved_tape>{}), simasio::usage_error,
                        [](const simasio::usage_error& e) {
                          return std::string(e.what()).find("start_replay was given no tape") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(stream_keys_name_their_family) {
  choice_purpose p{};
  BOOST_TEST((simasio::purpose_of_stream("network:a->b", p) && p == choice_purpose::network));
  BOOST_TEST((simasio::purpose_of_stream("scheduler", p) && p == choice_purpose::scheduler));
  BOOST_TEST((simasio::purpose_of_stream("disk:db:power", p) && p == choice_purpose::disk));
  BOOST_TEST(!simasio::purpose_of_stream("wizard:x", p));
  BOOST_TEST(!simasio::purpose_of_stream("", p));
}

BOOST_AUTO_TEST_SUITE_END()
