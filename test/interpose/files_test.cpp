// files_test.cpp — POSIX file calls under /simdisk reach the host's simulated disk; SQLite survives power cuts there
//
// With simasio::interpose linked, open() of a path under /simdisk, made by
// a process or a handler of a host while its world runs, opens that path on
// the host's disk; the descriptor's calls (pwrite, fdatasync, ...) take the
// disk's time and its power-loss model. SQLite's unix VFS runs on it
// unmodified: in WAL mode with synchronous=FULL every committed row
// survives a power cut, with synchronous=OFF committed rows are lost.
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(SIMASIO_TEST_SQLITE)
#include <sqlite3.h>
#endif

using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(interpose_files)

BOOST_AUTO_TEST_CASE(posix_calls_under_simdisk_reach_the_hosts_disk_and_take_its_time) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 2ms;
  cfg.sync_min = cfg.sync_max = 5ms;
  a.disk().configure(cfg);
  std::string read_back;
  simasio::duration done{};
  int open_errno = 0;
  a.spawn([&] {
    const int fd = ::open("/simdisk/data/log", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    BOOST_REQUIRE(fd >= 0);
    BOOST_TEST(::pwrite(fd, "hello", 5, 0) == 5);
    BOOST_TEST(::fdatasync(fd) == 0);
    struct stat st {};
    BOOST_TEST(::fstat(fd, &st) == 0);
    BOOST_TEST(st.st_size == 5);
    BOOST_TEST(S_ISREG(st.st_mode));
    char buf[8] = {};
    BOOST_TEST(::pread(fd, buf, sizeof buf, 0) == 5);
    read_back.assign(buf, 5);
    BOOST_TEST(::lseek(fd, 0, SEEK_END) == 5);
    BOOST_TEST(::write(fd, "!", 1) == 1);
    BOOST_TEST(::close(fd) == 0);
    BOOST_TEST(::access("/simdisk/data/log", F_OK) == 0);
    BOOST_TEST(::rename("/simdisk/data/log", "/simdisk/data/log.1") == 0);
    BOOST_TEST(::access("/simdisk/data/log", F_OK) == -1);
    BOOST_TEST(::stat("/simdisk/data", &st) == 0);
    BOOST_TEST(S_ISDIR(st.st_mode));
    const int dir = ::open("/simdisk/data", O_RDONLY);
    BOOST_TEST(dir >= 0);
    BOOST_TEST(::fsync(dir) == 0);  // the directory: sync_directory
    ::close(dir);
    BOOST_TEST(::open("/simdisk/missing", O_RDONLY) == -1);
    open_errno = errno;
    done = w.now();
  });
  w.run();
  BOOST_TEST(read_back == "hello");
  BOOST_TEST(open_errno == ENOENT);
  BOOST_TEST(a.disk().file_size("/data/log.1") == 6u);  // seen by the disk under its own path
  BOOST_TEST(!a.disk().exists("/data/log"));
  // pwrite 2 ms, fdatasync 5 ms, write 2 ms, the directory's fsync 5 ms (reads and renames are default-fast)
  BOOST_TEST(done >= simasio::duration(14ms));
  // Outside a world, the same path is the real file system's.
  BOOST_TEST(::open("/simdisk/data/log.1", O_RDONLY) == -1);
}

// A live process's destructors run during an ordinary exception too: what
// they ask of the disk is done (only a process its host's crash is ending
// is refused).
BOOST_AUTO_TEST_CASE(each_hosts_disk_is_a_device_and_a_files_inode_is_its_own_and_survives_a_restart) {
  simasio::world w(1);
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  struct ids {
    dev_t dev = 0;
    ino_t f = 0, g = 0, dir = 0;
  };
  auto look = [](ids& out) {
    const int f = ::open("/simdisk/f", O_RDWR | O_CREAT, 0644);
    const int g = ::open("/simdisk/g", O_RDWR | O_CREAT, 0644);
    struct stat st {};
    ::fstat(f, &st);
    out.dev = st.st_dev;
    out.f = st.st_ino;
    ::fstat(g, &st);
    out.g = st.st_ino;
    ::stat("/simdisk", &st);
    out.dir = st.st_ino;
    ::close(f);
    ::close(g);
  };
  ids on_a, on_b, after;
  a.spawn([&] { look(on_a); });
  b.spawn([&] { look(on_b); });
  w.run();
  BOOST_TEST(on_a.dev != on_b.dev);  // two machines, two devices
  BOOST_TEST(on_a.f != on_a.g);
  BOOST_TEST(on_a.dir != on_a.f);
  a.crash(simasio::crash_kind::power);
  a.restart();
  a.spawn([&] { look(after); });
  w.run();
  BOOST_TEST(after.dev == on_a.dev);
  BOOST_TEST(after.f == on_a.f);  // the same file, the same number
  BOOST_TEST(after.g == on_a.g);
}

BOOST_AUTO_TEST_CASE(a_destructor_during_an_ordinary_exception_still_reaches_the_disk) {
  simasio::world w;
  auto& a = w.add_host("a");
  int unlinked = -1;
  a.spawn([&] {
    ::close(::open("/simdisk/tmp", O_RDWR | O_CREAT, 0644));
    struct cleanup {
      int& result;
      ~cleanup() { result = ::unlink("/simdisk/tmp"); }
    };
    try {
      cleanup c{unlinked};
      throw std::runtime_error("an error the program handles");
    } catch (const std::runtime_error&) {
    }
  });
  w.run();
  BOOST_TEST(unlinked == 0);
  BOOST_TEST(!a.disk().exists("/tmp"));
}

BOOST_AUTO_TEST_CASE(a_power_cut_closes_the_descriptors_and_loses_what_was_not_synced) {
  int lost = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    int kept_fd = -1;
    a.spawn([&] {
      const int fd = ::open("/simdisk/f", O_RDWR | O_CREAT, 0644);
      ::pwrite(fd, "synced", 6, 0);
      ::fsync(fd);
      const int dir = ::open("/simdisk", O_RDONLY);
      ::fsync(dir);
      ::close(dir);
      ::pwrite(fd, "SYNCED", 6, 0);  // not synced
      kept_fd = fd;                  // left open: the crash closes it
    });
    w.run();
    a.crash(simasio::crash_kind::power);
    a.restart();
    std::string got;
    a.spawn([&] {
      char buf[6];
      const int fd = ::open("/simdisk/f", O_RDONLY);
      BOOST_REQUIRE(fd >= 0);
      BOOST_REQUIRE(::pread(fd, buf, 6, 0) == 6);
      got.assign(buf, 6);
      ::close(fd);
      char c;
      BOOST_TEST(::pread(kept_fd, &c, 1, 0) == -1);  // the dead process's descriptor
      BOOST_TEST(errno == EBADF);
    });
    w.run();
    BOOST_TEST_REQUIRE((got == "synced" || got == "SYNCED"), "seed " << seed << ": " << got);
    if (got == "synced") ++lost;
    ::close(kept_fd);  // the number was held by /dev/null until now
  }
  BOOST_TEST(lost > 5);
}

// fsync makes data durable when it returns: a power cut while the process
// waits in it keeps, loses or tears what it was syncing; after it returns,
// the data is there.
BOOST_AUTO_TEST_CASE(a_power_cut_during_a_blocked_fsync_may_lose_what_it_was_syncing) {
  int lost = 0, kept = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    simasio::world w(seed);
    auto& a = w.add_host("a");
    simasio::disk_config slow;
    slow.sync_min = 10ms;
    slow.sync_max = 20ms;
    a.disk().configure(slow);
    auto phase = std::make_shared<int>(0);  // 1: in the second fsync, 2: it returned
    a.spawn([phase] {
      const int fd = ::open("/simdisk/f", O_RDWR | O_CREAT, 0644);
      ::pwrite(fd, "old", 3, 0);
      ::fsync(fd);
      const int dir = ::open("/simdisk", O_RDONLY);
      ::fsync(dir);
      ::close(dir);
      ::pwrite(fd, "new", 3, 0);
      *phase = 1;
      ::fsync(fd);
      *phase = 2;
    });
    BOOST_REQUIRE(w.run_until([&] { return *phase == 1; }, 10s));
    w.run_for(std::chrono::milliseconds(w.random().below(9)));  // still within the fsync
    BOOST_REQUIRE(*phase == 1);
    a.crash(simasio::crash_kind::power);
    a.restart();
    auto got = std::make_shared<std::string>();
    a.spawn([got] {
      char buf[3];
      const int fd = ::open("/simdisk/f", O_RDONLY);
      if (::pread(fd, buf, 3, 0) == 3) got->assign(buf, 3);
      ::close(fd);
    });
    w.run();
    BOOST_TEST_REQUIRE((*got == "old" || *got == "new"), "seed " << seed << ": " << *got);
    (*got == "old" ? lost : kept) += 1;
  }
  BOOST_TEST(lost > 5);  // durability was never promised: the fsync had not returned
  BOOST_TEST(kept > 5);
}

#if defined(SIMASIO_TEST_SQLITE)

namespace {

struct writer_state {
  int committed = 0;   // rows whose INSERT returned SQLITE_OK
  bool idle = false;   // between two transactions
};

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string what = err != nullptr ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error("sqlite: " + sql + ": " + what);
  }
}

struct database {
  sqlite3* db = nullptr;
  explicit database(bool full_sync) {
    if (sqlite3_open_v2("/simdisk/db/rows.sqlite", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK)
      throw std::runtime_error(std::string("sqlite open: ") + sqlite3_errmsg(db));
    // WAL without shared memory: the index lives in the process.
    exec(db, "PRAGMA locking_mode=EXCLUSIVE");
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, full_sync ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF");
    exec(db, "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  }
  ~database() { sqlite3_close_v2(db); }
};

// Rows 0..n-1 each in its own transaction, a millisecond apart.
void writer(writer_state& st, bool full_sync) {
  database d(full_sync);
  for (int i = 0; i < 200; ++i) {
    exec(d.db, "INSERT INTO t VALUES(" + std::to_string(i) + ", 'row " + std::to_string(i) + "')");
    st.committed = i + 1;
    st.idle = true;
    std::this_thread::sleep_for(1ms);
    st.idle = false;
  }
}

struct recovered {
  int rows = 0;
  int max_id = -1;
  std::string integrity;
};

recovered check_database() {
  recovered r;
  database d(true);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(d.db, "SELECT count(*), coalesce(max(id), -1) FROM t", -1, &s, nullptr);
  if (sqlite3_step(s) == SQLITE_ROW) {
    r.rows = sqlite3_column_int(s, 0);
    r.max_id = sqlite3_column_int(s, 1);
  }
  sqlite3_finalize(s);
  sqlite3_prepare_v2(d.db, "PRAGMA integrity_check", -1, &s, nullptr);
  if (sqlite3_step(s) == SQLITE_ROW) r.integrity = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return r;
}

// One seed: commit some rows, cut the power between two transactions,
// restart, open the database again. Returns rows committed before the cut
// and what came back.
std::pair<int, recovered> power_cut_during_inserts(std::uint64_t seed, bool full_sync) {
  simasio::world w(seed);
  auto& h = w.add_host("db");
  writer_state st;
  h.spawn([&] { writer(st, full_sync); });
  const int target = 5 + static_cast<int>(w.random().below(60));
  if (!w.run_until([&] { return st.idle && st.committed >= target; }, 60s))
    throw std::runtime_error("the writer did not reach " + std::to_string(target) + " rows");
  const int committed = st.committed;
  h.crash(simasio::crash_kind::power);
  w.run_for(10ms);
  h.restart();
  recovered r;
  std::string error;
  h.spawn([&] {
    try {
      r = check_database();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  w.run();
  if (!error.empty()) throw std::runtime_error("seed " + std::to_string(seed) + ": " + error);
  return {committed, r};
}

}  // namespace

BOOST_AUTO_TEST_CASE(sqlite_in_wal_mode_with_full_sync_keeps_every_committed_row_through_power_cuts) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto [committed, r] = power_cut_during_inserts(seed, true);
    BOOST_TEST_REQUIRE(r.integrity == "ok", "seed " << seed);
    BOOST_TEST_REQUIRE(r.rows == r.max_id + 1, "seed " << seed);  // a prefix of the inserts
    BOOST_TEST_REQUIRE(r.rows >= committed, "seed " << seed << ": " << committed << " committed, " << r.rows
                                                     << " recovered");
  }
}

// A seed of a scenario that runs SQLite in its processes traces the same in
// a sweep and alone: each seed starts from the program as it was, not with
// what SQLite's globals kept from the seeds before (its open files, its
// locks, its one-time initialisation).
BOOST_AUTO_TEST_CASE(a_sqlite_seed_traces_the_same_in_a_sweep_and_alone) {
  auto scenario = [](simasio::world& w) {
    auto& h = w.add_host("db");
    h.spawn([] {
      database d(true);
      for (int i = 0; i < 5; ++i) exec(d.db, "INSERT INTO t(v) VALUES('x')");
    });
    w.run_for(10ms);
    h.crash(simasio::crash_kind::power);
    h.restart();
    h.spawn([] { check_database(); });
    w.run();
  };
  simasio::check_options o;
  o.seeds = 20;
  o.print = false;
  o.shrink = false;
  const auto sweep = simasio::check(scenario, o);
  BOOST_REQUIRE_MESSAGE(sweep.ok(), (sweep.failure ? sweep.failure->what : ""));
  BOOST_TEST(sweep.isolated);
  BOOST_REQUIRE(sweep.trace_hashes.size() == 20u);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    simasio::check_options alone = o;
    alone.first_seed = seed;
    alone.seeds = 1;
    const auto one = simasio::check(scenario, alone);
    BOOST_REQUIRE(one.trace_hashes.size() == 1u);
    BOOST_TEST(one.trace_hashes[0].second == sweep.trace_hashes[seed].second, "seed " << seed);
  }
}

// Two hosts, each with its own database at the same path: two machines,
// nothing shared, no fault: every seed commits on both. (Without per-process
// globals, so that SQLite's one table of open files sees both: the two
// files must differ in (st_dev, st_ino).)
BOOST_AUTO_TEST_CASE(two_hosts_each_with_a_database_at_the_same_path_never_lock_each_other_out) {
  simasio::check_options o;
  o.seeds = 10;
  o.print = false;
  o.shrink = false;
  o.world.process_libraries = "";
  const auto r = simasio::check(
      [](simasio::world& w) {
        for (const char* name : {"a", "b"})
          w.add_host(name).spawn([] {
            database d(true);
            for (int i = 0; i < 5; ++i) exec(d.db, "INSERT INTO t(v) VALUES('x')");
          });
        w.run();
      },
      o);
  BOOST_TEST(r.ok(), (r.failure ? r.failure->what : ""));
}

BOOST_AUTO_TEST_CASE(sqlite_with_synchronous_off_loses_committed_rows_to_a_power_cut) {
  int lost = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const auto [committed, r] = power_cut_during_inserts(seed, false);
    if (r.rows < committed) ++lost;
  }
  BOOST_TEST(lost > 5);
}

#endif  // SIMASIO_TEST_SQLITE

// read() and write() of descriptors 0, 1 and 2 in a process are its
// standard streams: a C-style filter (read until 0, write what it read)
// runs on the pipes the scenario feeds and reads; a blocking read suspends
// the process until the scenario writes, in virtual time; a dup() of 0 is
// stdin too, and writing stdin or reading stdout fails with EBADF as on a
// pipe's wrong end. Outside a process the descriptors stay the test
// program's own (nothing here writes to them).
BOOST_AUTO_TEST_CASE(read_and_write_of_0_1_2_in_a_process_are_its_standard_streams) {
  simasio::world w(11);
  auto& h = w.add_host("h");
  std::vector<std::chrono::nanoseconds> read_at;
  int write_stdin_errno = 0, read_stdout_errno = 0;
  const simasio::process p = h.spawn([&] {
    const int in = ::dup(0);
    char buf[32];
    for (;;) {
      const ssize_t n = ::read(in, buf, sizeof buf);
      if (n <= 0) break;
      read_at.push_back(w.now());
      if (::write(1, buf, static_cast<std::size_t>(n)) != n) throw std::runtime_error("short write");
    }
    ::close(in);
    const char msg[] = "done\n";
    if (::write(2, msg, sizeof msg - 1) < 0) throw std::runtime_error("write(2) failed");
    if (::write(0, msg, 1) == -1) write_stdin_errno = errno;
    if (::read(1, buf, 1) == -1) read_stdout_errno = errno;
  });
  p.write_stdin("abc");
  w.run_for(2s);
  p.write_stdin("def");
  w.run_for(2s);
  p.close_stdin();
  w.run();
  BOOST_TEST(p.ended());
  BOOST_TEST(p.stdout_text() == "abcdef");
  BOOST_TEST(p.stderr_text() == "done\n");
  BOOST_TEST_REQUIRE(read_at.size() == 2u);
  BOOST_TEST(read_at[0] == std::chrono::nanoseconds(0));
  BOOST_TEST(read_at[1] == std::chrono::nanoseconds(2s));
  BOOST_TEST(write_stdin_errno == EBADF);
  BOOST_TEST(read_stdout_errno == EBADF);
}

BOOST_AUTO_TEST_SUITE_END()
