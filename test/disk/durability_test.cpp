// durability_test.cpp — what a crash leaves on a simulated disk: sectors, directory entries, faults
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/read_at.hpp>
#include <boost/asio/write_at.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace net = simasio::asio;
using namespace std::chrono_literals;
using bytes = std::vector<unsigned char>;

namespace {

constexpr std::size_t sector = 512;

bytes read_all(net::random_access_file& f) {
  bytes b(static_cast<std::size_t>(f.size()));
  if (!b.empty()) net::read_at(f, 0, net::buffer(b));
  return b;
}

bytes read_file(simasio::host& h, const std::string& path) {
  net::random_access_file f(h.context(), path, net::file_base::read_only);
  return read_all(f);
}

void write_file(simasio::host& h, const std::string& path, const std::string& data, bool sync) {
  net::random_access_file f(h.context(), path, net::file_base::write_only | net::file_base::create |
                                                   net::file_base::truncate);
  net::write_at(f, 0, net::buffer(data));
  if (sync) f.sync_all();
}

std::string as_string(const bytes& b) { return std::string(b.begin(), b.end()); }

// Sector s of image b as a full sector, zeros past the end (how the page holds it).
bytes sector_of(const bytes& b, std::size_t s) {
  bytes out(sector, 0);
  if (s * sector < b.size()) std::memcpy(out.data(), b.data() + s * sector, std::min(sector, b.size() - s * sector));
  return out;
}

struct power_cut_run {
  bytes durable;                // the file at its last sync
  std::vector<bytes> versions;  // the page cache after each later write
  std::vector<std::pair<std::size_t, std::size_t>> touched;  // sectors [first, last] of each
  bytes after;                  // the file after the power cut and restart
};

// Writes, syncs, writes more, cuts the power: what was there, what came back.
power_cut_run cut_power_after_random_writes(std::uint64_t seed, bool atomic_sectors) {
  simasio::world w(seed);
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.atomic_sectors = atomic_sectors;
  cfg.dirty_expire = simasio::duration::max();
  a.disk().configure(cfg);
  simasio::rng r(seed, simasio::choice_purpose::user);
  power_cut_run run;
  {
    net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
    a.disk().sync_directory("/");
    auto random_write = [&](unsigned tag) {
      const std::uint64_t off = r.below(6 * sector);
      const std::size_t len = 1 + static_cast<std::size_t>(r.below(3 * sector));
      std::string data(len, '\0');
      for (std::size_t i = 0; i < len; ++i) data[i] = static_cast<char>(tag * 37 + i * 11 + 1);
      net::write_at(f, off, net::buffer(data));
      return std::make_pair(static_cast<std::size_t>(off / sector), static_cast<std::size_t>((off + len - 1) / sector));
    };
    const unsigned before = 1 + static_cast<unsigned>(r.below(4));
    for (unsigned i = 0; i < before; ++i) random_write(i);
    if (r.below(2) == 0) f.resize(r.below(5 * sector));
    f.sync_all();
    run.durable = read_all(f);
    const unsigned after = 1 + static_cast<unsigned>(r.below(6));
    for (unsigned i = 0; i < after; ++i) {
      run.touched.push_back(random_write(100 + i));
      run.versions.push_back(read_all(f));
    }
  }
  a.crash(simasio::crash_kind::power);
  a.restart();
  run.after = read_file(a, "/f");
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(durability)

// The durability property, over 1,000 seeds: after a power cut the size is
// the size at the last sync or after one of the later writes; within the
// synced size every sector holds its synced content or one written to it
// since; beyond it, one written since or (never written) garbage.
BOOST_AUTO_TEST_CASE(after_a_power_cut_each_sector_holds_a_version_written_since_the_last_sync) {
  int all_kept = 0, all_lost = 0, mixed = 0, garbage = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const power_cut_run run = cut_power_after_random_writes(seed, true);
    std::set<std::size_t> sizes{run.durable.size()};
    for (const bytes& v : run.versions) sizes.insert(v.size());
    BOOST_TEST_REQUIRE(sizes.count(run.after.size()) == 1u, "seed " << seed << ": size " << run.after.size());
    BOOST_TEST_REQUIRE(run.after.size() >= run.durable.size(), "seed " << seed << ": synced data lost");
    for (std::size_t s = 0; s * sector < run.after.size(); ++s) {
      // The bytes of the sector that lie within the file after the cut.
      const std::size_t n = std::min(sector, run.after.size() - s * sector);
      auto matches = [&](const bytes& version) {
        const bytes v = sector_of(version, s);
        return std::memcmp(v.data(), run.after.data() + s * sector, n) == 0;
      };
      bool ok = s * sector < run.durable.size() && matches(run.durable);
      for (std::size_t i = 0; i < run.versions.size() && !ok; ++i)
        if (run.touched[i].first <= s && s <= run.touched[i].second) ok = matches(run.versions[i]);
      if (!ok && s * sector >= run.durable.size()) {
        ok = true;  // never durably written: garbage is allowed there
        ++garbage;
      }
      BOOST_TEST_REQUIRE(ok, "seed " << seed << ": sector " << s << " holds no version written to it");
    }
    if (run.after == run.versions.back()) ++all_kept;
    else if (run.after == run.durable) ++all_lost;
    else ++mixed;
  }
  // The seeds explore every outcome.
  BOOST_TEST(all_kept > 50);
  BOOST_TEST(all_lost > 50);
  BOOST_TEST(mixed > 50);
  BOOST_TEST(garbage > 0);
}

// Without sector atomicity a torn write may also leave a sector of garbage
// inside the synced size: a program that checksums its records sees it.
BOOST_AUTO_TEST_CASE(without_atomic_sectors_a_torn_write_can_leave_garbage_in_a_synced_sector) {
  int garbled = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const power_cut_run run = cut_power_after_random_writes(seed, false);
    for (std::size_t s = 0; (s + 1) * sector <= std::min(run.durable.size(), run.after.size()); ++s) {
      bool known = std::memcmp(sector_of(run.durable, s).data(), run.after.data() + s * sector, sector) == 0;
      for (const bytes& v : run.versions)
        known = known || std::memcmp(sector_of(v, s).data(), run.after.data() + s * sector, sector) == 0;
      if (!known) ++garbled;
    }
  }
  BOOST_TEST(garbled > 0);
}

BOOST_AUTO_TEST_CASE(a_process_crash_keeps_every_write_in_the_page_cache) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/f", "unsynced but in the page cache", false);
    a.crash(simasio::crash_kind::process);
    a.restart();
    BOOST_TEST(as_string(read_file(a, "/f")) == "unsynced but in the page cache");
  }
}

BOOST_AUTO_TEST_CASE(synced_data_survives_every_power_cut) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/d/f", std::string(3000, 'k'), true);
    a.disk().sync_directory("/d");
    a.crash(simasio::crash_kind::power);
    a.restart();
    BOOST_TEST_REQUIRE(as_string(read_file(a, "/d/f")) == std::string(3000, 'k'), "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(a_created_file_whose_directory_was_not_synced_may_vanish_in_a_power_cut) {
  int vanished = 0, kept = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/d/new", "synced data, unsynced name", true);
    a.crash(simasio::crash_kind::power);
    a.restart();
    if (a.disk().exists("/d/new")) {
      ++kept;
      BOOST_TEST(as_string(read_file(a, "/d/new")) == "synced data, unsynced name");
    } else {
      ++vanished;
    }
  }
  BOOST_TEST(vanished > 20);
  BOOST_TEST(kept > 20);
}

// The OS commits data and directory operations by itself once they are
// dirty_expire old (30 s): after that they survive a power cut unsynced.
BOOST_AUTO_TEST_CASE(unsynced_writes_and_entries_older_than_dirty_expire_survive_a_power_cut) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/d/old", "written back by the OS", false);
    w.run_for(31s);
    write_file(a, "/d/young", "not yet", false);
    w.run_for(1s);
    a.crash(simasio::crash_kind::power);
    a.restart();
    BOOST_TEST_REQUIRE(as_string(read_file(a, "/d/old")) == "written back by the OS", "seed " << seed);
  }
}

// A writer that never syncs holds at most dirty_limit unsynced bytes per
// file: past it, the OS writes the oldest back until half remain, and
// those survive a power cut; the newest may not.
BOOST_AUTO_TEST_CASE(past_dirty_limit_the_oldest_unsynced_writes_go_back_and_survive_a_power_cut) {
  int newest_lost = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::disk_config cfg;
    cfg.dirty_expire = simasio::duration::max();
    cfg.dirty_limit = 64 * 1024;
    a.disk().configure(cfg);
    {
      net::random_access_file f(a.context(), "/log", net::file_base::write_only | net::file_base::create);
      a.disk().sync_directory("/");
      const std::string page(4096, 'x');
      for (int i = 0; i < 40; ++i) {  // 160 KiB, never synced
        std::string p = page;
        p[0] = static_cast<char>('A' + i % 26);
        net::write_at(f, static_cast<std::uint64_t>(i) * 4096, net::buffer(p));
      }
    }
    a.crash(simasio::crash_kind::power);
    a.restart();
    const bytes after = read_file(a, "/log");
    // The first 96 KiB went back (at the 17th page, and at the 25th, 33rd):
    // at least the first 24 pages are on the medium.
    BOOST_TEST_REQUIRE(after.size() >= 24U * 4096, "seed " << seed << ": " << after.size() << " bytes");
    for (int i = 0; i < 24; ++i)
      BOOST_TEST_REQUIRE(after[static_cast<std::size_t>(i) * 4096] == static_cast<unsigned char>('A' + i % 26), "seed " << seed);
    if (after.size() < 40U * 4096 || after[39U * 4096] != static_cast<unsigned char>('A' + 39 % 26)) ++newest_lost;
  }
  BOOST_TEST(newest_lost > 5);  // what stayed dirty is still at the power cut's mercy
}

// The page cache holds one version of a page: a version overwritten before
// it went back either reached the medium whole before the overwrite, or
// never can. After a power cut a page shows the newest version (whole or
// torn over what was under it), the older one whole, or the medium's;
// never a tear of the older one.
BOOST_AUTO_TEST_CASE(an_overwritten_unsynced_page_is_never_torn_after_a_power_cut) {
  int newest = 0, older = 0, medium = 0, torn = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::disk_config cfg;
    cfg.dirty_expire = simasio::duration::max();
    a.disk().configure(cfg);
    write_file(a, "/f", std::string(4096, 'M'), true);
    a.disk().sync_directory("/");
    {
      net::random_access_file f(a.context(), "/f", net::file_base::write_only);
      net::write_at(f, 0, net::buffer(std::string(4096, 'A')));
      net::write_at(f, 0, net::buffer(std::string(4096, 'B')));
    }
    a.crash(simasio::crash_kind::power);
    a.restart();
    const bytes after = read_file(a, "/f");
    BOOST_TEST_REQUIRE(after.size() == 4096U, "seed " << seed);
    std::set<unsigned char> seen;  // per 512-byte sector: its letter, or 0 for garbage
    for (std::size_t s = 0; s < 8; ++s) {
      const unsigned char c = after[s * 512];
      bool whole = true;
      for (std::size_t i = 0; i < 512; ++i) whole = whole && after[s * 512 + i] == c;
      seen.insert(whole && (c == 'A' || c == 'B' || c == 'M') ? c : 0);
    }
    BOOST_TEST_REQUIRE(!(seen.count('A') != 0 && seen.count('M') != 0), "seed " << seed << ": a torn older version");
    if (seen == std::set<unsigned char>{'B'}) ++newest;
    else if (seen == std::set<unsigned char>{'A'}) ++older;
    else if (seen == std::set<unsigned char>{'M'}) ++medium;
    else ++torn;
  }
  BOOST_TEST(newest > 0);
  BOOST_TEST(older > 0);  // it went back before the overwrite, and the newer one was lost
  BOOST_TEST(medium > 0);
  BOOST_TEST(torn > 0);   // the newer one torn over what was under it
}

// A writer that rewrites the same pages and never syncs keeps one pending
// version per page: each overwrite settles the version it covers (the
// trace says how), so a power cut has one change per page left to decide.
BOOST_AUTO_TEST_CASE(rewriting_the_same_pages_keeps_one_pending_version_per_page) {
  simasio::world w(simasio::world_options{.seed = 5, .record_trace = true});
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.dirty_expire = simasio::duration::max();
  a.disk().configure(cfg);
  write_file(a, "/f", std::string(16 * 4096, 'M'), true);
  a.disk().sync_directory("/");
  {
    net::random_access_file f(a.context(), "/f", net::file_base::write_only);
    for (int i = 0; i < 1000; ++i)
      net::write_at(f, static_cast<std::uint64_t>(i % 16) * 4096, net::buffer(std::string(4096, static_cast<char>('a' + i % 26))));
  }
  a.crash(simasio::crash_kind::power);
  int settled_early = 0, at_power_cut = 0;
  for (const auto& e : w.events().events()) {
    if (e.kind != simasio::event_kind::disk_resolve) continue;
    const auto how = static_cast<simasio::disk_outcome>(e.a);
    if (how == simasio::disk_outcome::overwritten || how == simasio::disk_outcome::written_back) ++settled_early;
    else if (how == simasio::disk_outcome::kept || how == simasio::disk_outcome::lost || how == simasio::disk_outcome::torn)
      ++at_power_cut;
  }
  BOOST_TEST(settled_early == 1000 - 16);
  BOOST_TEST(at_power_cut == 16);
}

BOOST_AUTO_TEST_CASE(a_dirty_limit_of_zero_is_refused_by_name) {
  simasio::world w(1);
  simasio::disk_config cfg;
  cfg.dirty_limit = 0;
  BOOST_CHECK_EXCEPTION(w.add_host("a").disk().configure(cfg), simasio::usage_error, [](const simasio::usage_error& e) {
    return std::string(e.what()).find("dirty_limit") != std::string::npos;
  });
}

// The snapshot pattern: write a temporary file, sync it, rename it over the
// old one. Without syncing the directory, a power cut may undo the rename;
// the rename is atomic either way (the name holds the old or the new file).
BOOST_AUTO_TEST_CASE(a_rename_is_atomic_and_durable_only_once_its_directory_is_synced) {
  int old_version = 0, new_version = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    for (bool sync_dir : {false, true}) {
      simasio::world w(seed);
      auto& a = w.add_host("a");
      write_file(a, "/db/snap", "version 1", true);
      a.disk().sync_directory("/db");
      write_file(a, "/db/snap.tmp", "version 2", true);
      a.disk().rename("/db/snap.tmp", "/db/snap");
      if (sync_dir) a.disk().sync_directory("/db");
      a.crash(simasio::crash_kind::power);
      a.restart();
      const std::string got = as_string(read_file(a, "/db/snap"));
      BOOST_TEST_REQUIRE((got == "version 1" || got == "version 2"), "seed " << seed << ": " << got);
      if (sync_dir) BOOST_TEST_REQUIRE(got == "version 2", "seed " << seed);
      else (got == "version 1" ? old_version : new_version)++;
    }
  }
  BOOST_TEST(old_version > 20);
  BOOST_TEST(new_version > 20);
}

BOOST_AUTO_TEST_CASE(a_write_past_the_capacity_fails_with_no_space_and_removing_a_file_frees_it) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.capacity = 4096;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/big", net::file_base::read_write | net::file_base::create);
  BOOST_TEST(f.write_some_at(0, net::buffer(std::string(4000, 'x'))) == 4000u);
  boost::system::error_code ec;
  BOOST_TEST(f.write_some_at(4000, net::buffer(std::string(200, 'y')), ec) == 0u);
  BOOST_TEST(ec == boost::system::errc::no_space_on_device);
  BOOST_TEST(f.size() == 4000u);  // nothing of the failed write
  f.resize(8192, ec);
  BOOST_TEST(ec == boost::system::errc::no_space_on_device);
  net::random_access_file g(a.context(), "/small", net::file_base::read_write | net::file_base::create);
  g.write_some_at(0, net::buffer(std::string(100, 'z')), ec);
  BOOST_TEST(ec == boost::system::errc::no_space_on_device);
  f.close();
  a.disk().remove("/big");
  BOOST_TEST(a.disk().used() == 0u);
  BOOST_TEST(g.write_some_at(0, net::buffer(std::string(100, 'z'))) == 100u);
}

BOOST_AUTO_TEST_CASE(read_write_and_sync_errors_fail_the_call_with_eio) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string("durable")));
  f.sync_all();
  simasio::disk_config cfg;
  cfg.write_error = 1.0;
  a.disk().configure(cfg);
  boost::system::error_code ec;
  BOOST_TEST(f.write_some_at(0, net::buffer(std::string("XXXXXXX")), ec) == 0u);
  BOOST_TEST(ec == boost::system::errc::io_error);
  cfg = {};
  cfg.read_error = 1.0;
  a.disk().configure(cfg);
  std::vector<char> buf(7);
  BOOST_TEST(f.read_some_at(0, net::buffer(buf), ec) == 0u);
  BOOST_TEST(ec == boost::system::errc::io_error);
  // The async form reports it too.
  std::optional<boost::system::error_code> async_ec;
  f.async_read_some_at(0, net::buffer(buf), [&](boost::system::error_code e, std::size_t) { async_ec = e; });
  w.run();
  BOOST_TEST(async_ec.value() == boost::system::errc::io_error);
  a.disk().configure({});
  BOOST_TEST(f.read_some_at(0, net::buffer(buf)) == 7u);
  BOOST_TEST(std::string(buf.begin(), buf.end()) == "durable");  // the failed write wrote nothing
}

// fsyncgate: after a failed fsync, Linux marks the pages clean. The data is
// still read back, the next fsync succeeds, and a power cut loses it.
BOOST_AUTO_TEST_CASE(after_a_failed_sync_the_next_sync_succeeds_and_a_power_cut_still_loses_the_data) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/f", "old", true);
    a.disk().sync_directory("/");
    {
      net::random_access_file f(a.context(), "/f", net::file_base::read_write);
      net::write_at(f, 0, net::buffer(std::string("new")));
      simasio::disk_config cfg;
      cfg.sync_error = 1.0;
      a.disk().configure(cfg);
      boost::system::error_code ec;
      f.sync_all(ec);
      BOOST_TEST(ec == boost::system::errc::io_error);
      a.disk().configure({});
      f.sync_all(ec);
      BOOST_TEST(!ec);
      BOOST_TEST(as_string(read_all(f)) == "new");
    }
    a.crash(simasio::crash_kind::power);
    a.restart();
    BOOST_TEST_REQUIRE(as_string(read_file(a, "/f")) == "old", "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(a_latent_sector_error_fails_reads_from_the_medium_until_the_sector_is_rewritten) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.latent_sector_error = 1.0;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string(512, 'a')));
  f.sync_all();
  std::vector<char> buf(512);
  BOOST_TEST(f.read_some_at(0, net::buffer(buf)) == 512u);  // still in the page cache
  a.disk().drop_caches();
  boost::system::error_code ec;
  f.read_some_at(0, net::buffer(buf), ec);
  BOOST_TEST(ec == boost::system::errc::io_error);
  f.read_some_at(0, net::buffer(buf), ec);
  BOOST_TEST(ec == boost::system::errc::io_error);  // sticky
  a.disk().configure({});
  f.write_some_at(0, net::buffer(std::string(512, 'b')));  // rewritten whole
  f.sync_all();
  a.disk().drop_caches();
  BOOST_TEST(f.read_some_at(0, net::buffer(buf), ec) == 512u);
  BOOST_TEST(!ec);
  BOOST_TEST(std::string(buf.begin(), buf.end()) == std::string(512, 'b'));
}

BOOST_AUTO_TEST_CASE(a_misdirected_write_lands_elsewhere_on_the_medium) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string(1024, '.')));
  f.sync_all();
  simasio::disk_config cfg;
  cfg.misdirected_write = 1.0;
  a.disk().configure(cfg);
  f.write_some_at(0, net::buffer(std::string(512, 'M')));
  f.sync_all();
  bytes b = read_all(f);
  BOOST_TEST(as_string(b).substr(0, 512) == std::string(512, 'M'));  // the cache has it right
  a.disk().drop_caches();
  b = read_all(f);
  BOOST_TEST(as_string(b).substr(0, 512) == std::string(512, '.'));  // never reached sector 0
  BOOST_TEST(as_string(b).substr(512) == std::string(512, 'M'));     // the file's only other sector
}

BOOST_AUTO_TEST_CASE(silent_corruption_flips_one_bit_on_the_medium) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::disk_config cfg;
    cfg.corruption = 1.0;
    a.disk().configure(cfg);
    const std::string data(2048, 'c');
    write_file(a, "/f", data, true);
    a.disk().drop_caches();
    const bytes b = read_file(a, "/f");
    BOOST_TEST_REQUIRE(b.size() == data.size());
    int bits = 0;
    for (std::size_t i = 0; i < b.size(); ++i) bits += __builtin_popcount(b[i] ^ static_cast<unsigned char>('c'));
    BOOST_TEST(bits == 1);
  }
}

// An asynchronous write the disk has not got to when the process dies is
// never written; the handler never runs.
BOOST_AUTO_TEST_CASE(a_crash_mid_write_drops_the_pending_write_and_its_handler) {
  for (auto kind : {simasio::crash_kind::process, simasio::crash_kind::power}) {
    simasio::world w;
    auto& a = w.add_host("a");
    simasio::disk_config cfg;
    cfg.write_min = cfg.write_max = 10ms;
    a.disk().configure(cfg);
    write_file(a, "/f", "before", true);
    a.disk().sync_directory("/");
    bool ran = false;
    auto f = std::make_shared<net::random_access_file>(a.context(), "/f", net::file_base::read_write);
    f->async_write_some_at(0, net::buffer("AFTER!", 6), [&, f](boost::system::error_code, std::size_t) { ran = true; });
    w.run_for(5ms);
    a.crash(kind);
    w.run_for(20ms);
    a.restart();
    w.run_for(20ms);
    BOOST_TEST(!ran);
    BOOST_TEST(as_string(read_file(a, "/f")) == "before");
  }
}

BOOST_AUTO_TEST_CASE(a_file_of_a_crashed_process_is_closed_by_the_os_and_named_when_used) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  a.crash();
  a.restart();
  BOOST_TEST(!f.is_open());
  std::vector<char> buf(1);
  BOOST_CHECK_THROW(f.read_some_at(0, net::buffer(buf)), std::exception);
}

BOOST_AUTO_TEST_CASE(the_same_seed_with_disk_faults_and_a_power_cut_gives_the_same_trace) {
  auto run = [](std::uint64_t seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::rng pick(seed, simasio::choice_purpose::user);
    a.disk().configure(simasio::disk_config::random(pick));
    auto f = std::make_shared<net::random_access_file>(a.context(), "/f", net::file_base::read_write |
                                                                           net::file_base::create);
    a.disk().sync_directory("/");
    auto data = std::make_shared<std::vector<std::string>>();
    for (int i = 0; i < 20; ++i) data->push_back(std::string(900, char('a' + i)));  // alive until each completes
    for (int i = 0; i < 20; ++i)
      f->async_write_some_at(static_cast<std::uint64_t>(i) * 700, net::buffer((*data)[static_cast<std::size_t>(i)]),
                             [f, data](boost::system::error_code, std::size_t) {});
    w.run_for(5ms);
    boost::system::error_code ec;
    f->sync_all(ec);
    w.run_for(1s);
    f.reset();
    a.crash(simasio::crash_kind::power);
    a.restart();
    bytes after;
    try {
      after = read_file(a, "/f");
    } catch (const boost::system::system_error& e) {  // the seed's disk may fail reads
      after = bytes{static_cast<unsigned char>(e.code().value())};
    }
    return std::make_pair(w.trace_hash(), after);
  };
  std::set<std::uint64_t> hashes;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto first = run(seed);
    const auto second = run(seed);
    BOOST_TEST_REQUIRE(first.first == second.first, "seed " << seed);
    BOOST_TEST_REQUIRE((first.second == second.second), "seed " << seed);
    hashes.insert(first.first);
  }
  BOOST_TEST(hashes.size() == 30u);
}

BOOST_AUTO_TEST_CASE(a_power_cut_records_what_it_did_to_each_unsynced_change_in_the_trace) {
  simasio::world_options o;
  o.seed = 3;
  o.record_trace = true;
  simasio::world w(o);
  auto& a = w.add_host("a");
  write_file(a, "/f", std::string(4096, 'x'), false);
  a.crash(simasio::crash_kind::power);
  int resolved = 0, entries = 0;
  for (const auto& e : w.events().events()) {
    if (e.kind == simasio::event_kind::disk_resolve) {
      const auto o2 = static_cast<simasio::disk_outcome>(e.a);
      if (o2 == simasio::disk_outcome::entry_kept || o2 == simasio::disk_outcome::entry_lost) ++entries;
      else ++resolved;
    }
  }
  BOOST_TEST(entries == 1);  // the create of /f
  // The one write (truncating an empty file changes nothing), if /f's entry survived.
  BOOST_TEST(resolved == (a.disk().exists("/f") ? 1 : 0));
}

// ---- edges found in review ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(syncing_one_side_of_a_rename_between_directories_makes_the_whole_rename_durable) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/a/x", "moved", true);
    a.disk().sync_directory("/a");
    a.disk().rename("/a/x", "/b/y");
    a.disk().sync_directory("/a");  // the journal commits the rename whole
    a.crash(simasio::crash_kind::power);
    a.restart();
    BOOST_TEST_REQUIRE(!a.disk().exists("/a/x"), "seed " << seed);
    BOOST_TEST_REQUIRE(as_string(read_file(a, "/b/y")) == "moved", "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(sync_directory_of_a_directory_that_never_existed_fails_and_of_one_just_emptied_works) {
  simasio::world w;
  auto& a = w.add_host("a");
  BOOST_CHECK_THROW(a.disk().sync_directory("/nowhere"), boost::system::system_error);
  write_file(a, "/d/only", "x", true);
  a.disk().sync_directory("/d");
  a.disk().remove("/d/only");
  BOOST_CHECK_NO_THROW(a.disk().sync_directory("/d"));  // unlink, then fsync the directory
  a.crash(simasio::crash_kind::power);
  a.restart();
  BOOST_TEST(!a.disk().exists("/d/only"));
}

BOOST_AUTO_TEST_CASE(drop_caches_after_a_truncation_keeps_the_zeros_not_the_old_data) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  net::write_at(f, 0, net::buffer(std::string(4096, 'A')));
  f.sync_all();
  f.resize(0);
  f.resize(4096);
  a.disk().drop_caches();
  BOOST_TEST(as_string(read_all(f)) == std::string(4096, '\0'));
}

BOOST_AUTO_TEST_CASE(a_power_cut_while_down_after_a_process_crash_still_takes_the_page_cache) {
  int lost = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    write_file(a, "/f", "old", true);
    a.disk().sync_directory("/");
    {
      net::random_access_file f(a.context(), "/f", net::file_base::read_write);
      net::write_at(f, 0, net::buffer(std::string("new")));
    }
    a.crash(simasio::crash_kind::process);
    a.crash(simasio::crash_kind::power);
    a.restart();
    const std::string got = as_string(read_file(a, "/f"));
    BOOST_TEST_REQUIRE((got == "old" || got == "new"), "seed " << seed);
    if (got == "old") ++lost;
  }
  BOOST_TEST(lost > 10);
}

BOOST_AUTO_TEST_CASE(a_partial_write_into_an_unreadable_sector_fails_and_truncation_forgets_it) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.latent_sector_error = 1.0;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string(512, 'a')));
  f.sync_all();
  a.disk().configure({});
  a.disk().drop_caches();
  boost::system::error_code ec;
  f.write_some_at(10, net::buffer(std::string(10, 'b')), ec);  // read-modify-write of a sector it cannot read
  BOOST_TEST(ec == boost::system::errc::io_error);
  f.resize(0);
  f.resize(512);
  f.sync_all();
  a.disk().drop_caches();
  std::vector<char> buf(512);
  BOOST_TEST(f.read_some_at(0, net::buffer(buf), ec) == 512u);
  BOOST_TEST(!ec);
  BOOST_TEST(std::string(buf.begin(), buf.end()) == std::string(512, '\0'));
}

BOOST_AUTO_TEST_CASE(corruption_of_a_short_write_flips_a_bit_of_its_data_even_once_written_back) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::disk_config cfg;
    cfg.corruption = 1.0;
    a.disk().configure(cfg);
    write_file(a, "/f", std::string(100, 'c'), false);  // not synced: the OS writes it back at 30 s
    w.run_for(31s);
    a.disk().drop_caches();
    const bytes b = read_file(a, "/f");
    int bits = 0;
    for (unsigned char x : b) bits += __builtin_popcount(x ^ static_cast<unsigned char>('c'));
    BOOST_TEST_REQUIRE(bits == 1, "seed " << seed);
  }
}

BOOST_AUTO_TEST_CASE(offsets_past_the_largest_file_fail_with_file_too_large) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  boost::system::error_code ec;
  f.write_some_at(std::numeric_limits<std::uint64_t>::max() - 9, net::buffer(std::string(100, 'x')), ec);
  BOOST_TEST(ec == boost::system::errc::file_too_large);
  f.resize(std::numeric_limits<std::uint64_t>::max(), ec);
  BOOST_TEST(ec == boost::system::errc::file_too_large);
  BOOST_TEST(f.size() == 0u);
  net::stream_file g(a.context(), "/g", net::file_base::read_write | net::file_base::create);
  g.seek(std::numeric_limits<std::int64_t>::max(), net::file_base::seek_set, ec);
  BOOST_TEST(ec == net::error::invalid_argument);
}

BOOST_AUTO_TEST_CASE(calls_from_the_test_body_take_no_place_in_the_disk_queue) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.iops = 200;  // 5 ms a start
  cfg.write_min = cfg.write_max = 1ms;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  for (int i = 0; i < 1000; ++i) f.write_some_at(0, net::buffer("x", 1));  // setup: no time, no queue
  std::optional<simasio::duration> done;
  f.async_write_some_at(0, net::buffer("y", 1), [&](boost::system::error_code, std::size_t) { done = w.now(); });
  w.run();
  BOOST_REQUIRE(done);
  BOOST_TEST(done->count() == simasio::duration(1ms).count());
}

// Disk draws have streams of their own: turning a disk fault family on
// moves no network or scheduler draw, and no other family's.
BOOST_AUTO_TEST_CASE(turning_a_disk_fault_on_moves_no_network_draw) {
  auto run = [](std::uint64_t seed, double corruption) {
    simasio::world_options o;
    o.seed = seed;
    o.record_trace = true;
    simasio::world w(o);
    simasio::link_config link;
    link.loss = 0.1;
    w.net().configure(link);
    auto& a = w.add_host("a");
    auto& b = w.add_host("b");
    simasio::disk_config cfg;
    cfg.corruption = corruption;
    a.disk().configure(cfg);
    namespace ip = net::ip;
    auto rx = std::make_shared<ip::udp::socket>(b.context(), ip::udp::endpoint(ip::udp::v4(), 9));
    auto tx = std::make_shared<ip::udp::socket>(a.context(), ip::udp::v4());
    auto f = std::make_shared<net::random_access_file>(a.context(), "/log", net::file_base::read_write |
                                                                             net::file_base::create);
    auto n = std::make_shared<int>(0);
    auto data = std::make_shared<std::string>(100, 'd');
    std::function<void()> step;
    step = [&, n, f, tx, data] {
      if (++*n > 50) return;
      tx->send_to(net::buffer(*data), ip::udp::endpoint(b.address(), 9));
      f->async_write_some_at(static_cast<std::uint64_t>(*n) * 100, net::buffer(*data),
                             [&](boost::system::error_code, std::size_t) { step(); });
    };
    step();
    w.run();
    // Packets are numbered by trace position, which a disk fault's event
    // moves: compare what happened, when and where, not the numbers.
    std::vector<std::string> network;
    for (const auto& e : w.events().events())
      if (e.kind == simasio::event_kind::net_send || e.kind == simasio::event_kind::net_deliver ||
          e.kind == simasio::event_kind::net_drop)
        network.push_back(std::to_string(e.time_ns) + " " + std::to_string(e.host) + " " + to_string(e.kind) + " " +
                          std::to_string(e.b));
    int faults = 0;
    for (const auto& e : w.events().events()) faults += e.kind == simasio::event_kind::disk_fault;
    return std::make_pair(network, faults);
  };
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto off = run(seed, 0.0);
    const auto on = run(seed, 0.5);
    BOOST_TEST_REQUIRE(off.second == 0);
    BOOST_TEST_REQUIRE(on.second > 0, "seed " << seed);
    BOOST_TEST_REQUIRE(off.first.size() > 50u);
    BOOST_TEST_REQUIRE((off.first == on.first), "seed " << seed << ": the network's events moved");
  }
}

BOOST_AUTO_TEST_CASE(drop_caches_keeps_a_page_with_one_dirty_sector_whole) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string(8192, 'a')));  // two pages
  f.sync_all();
  simasio::disk_config cfg;
  cfg.corruption = 1.0;
  a.disk().configure(cfg);
  f.write_some_at(0, net::buffer(std::string(4096, 'b')));  // rewrites page 0 ...
  f.write_some_at(4096, net::buffer(std::string(4096, 'c')));  // ... and page 1
  f.sync_all();  // both reach the medium with one flipped bit each
  a.disk().configure({});
  f.write_some_at(4096 + 100, net::buffer("d", 1));  // page 1 dirty again, in one sector
  a.disk().drop_caches();
  const bytes b = read_all(f);
  int page0 = 0, page1 = 0;
  for (std::size_t i = 0; i < 4096; ++i) page0 += b[i] != 'b';
  for (std::size_t i = 4096; i < 8192; ++i) page1 += b[i] != (i == 4196 ? 'd' : 'c');
  BOOST_TEST(page0 == 1);  // clean: read from the medium, with its corruption
  BOOST_TEST(page1 == 0);  // dirty: the whole page stays in the cache
}

BOOST_AUTO_TEST_SUITE_END()
