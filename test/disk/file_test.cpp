// file_test.cpp — random_access_file and stream_file: Asio's members and semantics on a simulated disk
#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <boost/asio/read_at.hpp>
#include <boost/asio/write_at.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <vector>

namespace net = simasio::asio;
using namespace std::chrono_literals;
using simasio::duration;

namespace {
std::string as_string(const std::vector<char>& v) { return std::string(v.begin(), v.end()); }
}  // namespace

BOOST_AUTO_TEST_SUITE(file)

BOOST_AUTO_TEST_CASE(a_file_written_and_read_back_at_offsets_holds_what_was_written) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/data/log", net::file_base::read_write | net::file_base::create);
  BOOST_TEST(f.is_open());
  BOOST_TEST(f.write_some_at(0, net::buffer(std::string("hello world"))) == 11u);
  BOOST_TEST(f.write_some_at(6, net::buffer(std::string("there"))) == 5u);
  BOOST_TEST(f.size() == 11u);
  std::vector<char> buf(11);
  BOOST_TEST(f.read_some_at(0, net::buffer(buf)) == 11u);
  BOOST_TEST(as_string(buf) == "hello there");
  // Past the end: eof, as Asio's pread-based read.
  boost::system::error_code ec;
  BOOST_TEST(f.read_some_at(11, net::buffer(buf), ec) == 0u);
  BOOST_TEST(ec == net::error::eof);
  // Short read at the end.
  BOOST_TEST(f.read_some_at(8, net::buffer(buf), ec) == 3u);
  BOOST_TEST(!ec);
  BOOST_TEST(a.disk().exists("/data/log"));
  BOOST_TEST(a.disk().exists("/data"));
  BOOST_TEST(a.disk().file_size("/data/log") == 11u);
  BOOST_TEST((a.disk().list("/") == std::vector<std::string>{"data"}));
  BOOST_TEST((a.disk().list("/data") == std::vector<std::string>{"log"}));
}

BOOST_AUTO_TEST_CASE(open_flags_behave_as_open_2) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context());
  boost::system::error_code ec;
  f.open("/x", net::file_base::read_only, ec);
  BOOST_TEST(ec == boost::system::errc::no_such_file_or_directory);
  BOOST_TEST(!f.is_open());
  f.open("/x", net::file_base::write_only | net::file_base::create | net::file_base::exclusive, ec);
  BOOST_TEST(!ec);
  f.write_some_at(0, net::buffer(std::string("abc")));
  // Reading a write_only file: bad_descriptor (EBADF).
  char c;
  f.read_some_at(0, net::buffer(&c, 1), ec);
  BOOST_TEST(ec == net::error::bad_descriptor);
  f.open("/x", net::file_base::read_only, ec);
  BOOST_TEST(ec == net::error::already_open);
  f.close();
  net::random_access_file g(a.context());
  g.open("/x", net::file_base::write_only | net::file_base::create | net::file_base::exclusive, ec);
  BOOST_TEST(ec == boost::system::errc::file_exists);
  g.open("/x", net::file_base::read_write | net::file_base::truncate, ec);
  BOOST_TEST(!ec);
  BOOST_TEST(g.size() == 0u);
  g.close();
  g.open("/x", net::file_base::read_only, ec);
  g.write_some_at(0, net::buffer(std::string("z")), ec);
  BOOST_TEST(ec == net::error::bad_descriptor);
  // A directory is not a file; a file is not a directory.
  net::random_access_file h(a.context());
  h.open("/", net::file_base::read_only, ec);
  BOOST_TEST(ec == boost::system::errc::is_a_directory);
  h.open("/x/y", net::file_base::read_write | net::file_base::create, ec);
  BOOST_TEST(ec == boost::system::errc::not_a_directory);
  // The throwing form names the call and the path.
  try {
    net::random_access_file missing(a.context(), "/nope", net::file_base::read_only);
    BOOST_FAIL("opened a file that does not exist");
  } catch (const boost::system::system_error& e) {
    BOOST_TEST(std::string(e.what()).find("open '/nope'") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(append_writes_at_the_end_whatever_the_offset) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/log", net::file_base::read_write | net::file_base::create |
                                                     net::file_base::append);
  f.write_some_at(0, net::buffer(std::string("one,")));
  f.write_some_at(0, net::buffer(std::string("two")));  // Linux's pwrite on O_APPEND: at the end
  std::vector<char> buf(7);
  net::read_at(f, 0, net::buffer(buf));
  BOOST_TEST(as_string(buf) == "one,two");
}

BOOST_AUTO_TEST_CASE(resize_truncates_and_extends_with_zeros) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string("abcdef")));
  f.resize(3);
  BOOST_TEST(f.size() == 3u);
  f.resize(5);
  std::vector<char> buf(5, 'x');
  net::read_at(f, 0, net::buffer(buf));
  BOOST_TEST(as_string(buf) == std::string("abc\0\0", 5));
}

BOOST_AUTO_TEST_CASE(async_read_at_and_async_write_at_complete_after_the_disk_latency) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 2ms;
  cfg.read_min = cfg.read_max = 1ms;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  std::string data(10000, 'q');
  std::optional<duration> wrote, read;
  std::vector<char> back(10000);
  net::async_write_at(f, 100, net::buffer(data), [&](boost::system::error_code ec, std::size_t n) {
    BOOST_TEST(!ec);
    BOOST_TEST(n == 10000u);
    wrote = w.now();
    net::async_read_at(f, 100, net::buffer(back), [&](boost::system::error_code ec2, std::size_t n2) {
      BOOST_TEST(!ec2);
      BOOST_TEST(n2 == 10000u);
      read = w.now();
    });
  });
  w.run();
  BOOST_REQUIRE(wrote && read);
  BOOST_TEST(wrote->count() == duration(2ms).count());
  BOOST_TEST(read->count() == duration(3ms).count());
  BOOST_TEST(as_string(back) == data);
  BOOST_TEST(f.size() == 10100u);
}

BOOST_AUTO_TEST_CASE(a_stream_file_reads_and_writes_at_its_position) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::stream_file f(a.context(), "/s", net::file_base::read_write | net::file_base::create);
  net::write(f, net::buffer(std::string("0123456789")));
  BOOST_TEST(f.seek(0, net::file_base::seek_cur) == 10u);
  BOOST_TEST(f.seek(-4, net::file_base::seek_end) == 6u);
  std::vector<char> buf(4);
  BOOST_TEST(f.read_some(net::buffer(buf)) == 4u);
  BOOST_TEST(as_string(buf) == "6789");
  boost::system::error_code ec;
  BOOST_TEST(f.read_some(net::buffer(buf), ec) == 0u);
  BOOST_TEST(ec == net::error::eof);
  f.seek(-1, net::file_base::seek_set, ec);
  BOOST_TEST(ec == net::error::invalid_argument);
  // The async form over Asio's composed async_read.
  f.seek(2, net::file_base::seek_set);
  std::vector<char> three(3);
  bool done = false;
  net::async_read(f, net::buffer(three), [&](boost::system::error_code e, std::size_t n) {
    BOOST_TEST(!e);
    BOOST_TEST(n == 3u);
    done = true;
  });
  w.run();
  BOOST_TEST(done);
  BOOST_TEST(as_string(three) == "234");
  BOOST_TEST(f.seek(0, net::file_base::seek_cur) == 5u);
}

BOOST_AUTO_TEST_CASE(coroutines_read_a_file_written_by_another_coroutine) {
  simasio::world w;
  auto& a = w.add_host("a");
  std::string got;
  net::co_spawn(
      a.context(),
      [&]() -> net::awaitable<void> {
        net::stream_file out(co_await net::this_coro::executor, "/c", net::file_base::write_only |
                                                                          net::file_base::create);
        co_await net::async_write(out, net::buffer(std::string("from a coroutine")), net::use_awaitable);
        out.close();
        net::stream_file in(co_await net::this_coro::executor, "/c", net::file_base::read_only);
        std::vector<char> buf(in.size());
        co_await net::async_read(in, net::buffer(buf), net::use_awaitable);
        got = as_string(buf);
      },
      net::detached);
  w.run();
  BOOST_TEST(got == "from a coroutine");
}

BOOST_AUTO_TEST_CASE(cancel_and_close_complete_pending_operations_with_operation_aborted) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 10ms;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  std::vector<boost::system::error_code> results;
  auto record = [&](boost::system::error_code ec, std::size_t) { results.push_back(ec); };
  f.async_write_some_at(0, net::buffer("a", 1), record);
  f.cancel();
  // Per-operation cancellation through a slot.
  net::cancellation_signal sig;
  f.async_write_some_at(0, net::buffer("b", 1), net::bind_cancellation_slot(sig.slot(), record));
  w.run_for(1ms);
  sig.emit(net::cancellation_type::terminal);
  f.async_write_some_at(0, net::buffer("c", 1), record);
  f.close();
  w.run();
  BOOST_TEST(results.size() == 3u);
  for (const auto& ec : results) BOOST_TEST(ec == net::error::operation_aborted);
  // Nothing was written: cancelled before the disk got to them.
  BOOST_TEST(a.disk().file_size("/f") == 0u);
}

BOOST_AUTO_TEST_CASE(operations_on_a_closed_file_fail_with_bad_descriptor) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context());
  boost::system::error_code ec;
  f.size(ec);
  BOOST_TEST(ec == net::error::bad_descriptor);
  std::optional<boost::system::error_code> async_ec;
  char c = 0;
  f.async_read_some_at(0, net::buffer(&c, 1), [&](boost::system::error_code e, std::size_t) { async_ec = e; });
  BOOST_TEST(!async_ec);  // never inline
  w.run();
  BOOST_TEST(async_ec.value() == net::error::bad_descriptor);
}

BOOST_AUTO_TEST_CASE(moved_files_keep_their_pending_operations) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/m", net::file_base::read_write | net::file_base::create);
  std::size_t written = 0;
  f.async_write_some_at(0, net::buffer("xyz", 3), [&](boost::system::error_code ec, std::size_t n) {
    BOOST_TEST(!ec);
    written = n;
  });
  net::random_access_file g(std::move(f));
  BOOST_TEST(!f.is_open());
  BOOST_TEST(g.is_open());
  w.run();
  BOOST_TEST(written == 3u);
  BOOST_TEST(g.size() == 3u);
}

BOOST_AUTO_TEST_CASE(rename_and_remove_change_the_namespace_and_an_open_file_outlives_its_name) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& d = a.disk();
  net::random_access_file f(a.context(), "/dir/tmp", net::file_base::read_write | net::file_base::create);
  f.write_some_at(0, net::buffer(std::string("snapshot")));
  d.rename("/dir/tmp", "/dir/snap");
  BOOST_TEST(!d.exists("/dir/tmp"));
  BOOST_TEST(d.file_size("/dir/snap") == 8u);
  d.remove("/dir/snap");
  BOOST_TEST(!d.exists("/dir/snap"));
  BOOST_TEST(!d.exists("/dir"));
  std::vector<char> buf(8);
  BOOST_TEST(f.read_some_at(0, net::buffer(buf)) == 8u);  // unlinked, still open
  BOOST_TEST(as_string(buf) == "snapshot");
  BOOST_CHECK_THROW(d.remove("/dir/snap"), boost::system::system_error);
  BOOST_CHECK_THROW(d.rename("/nothing", "/x"), boost::system::system_error);
  BOOST_CHECK_THROW(d.file_size("/nothing"), boost::system::system_error);
}

BOOST_AUTO_TEST_CASE(a_blocking_sync_in_a_handler_keeps_its_context_busy_for_the_sync_latency) {
  simasio::world w;
  auto& a = w.add_host("a");
  auto& b = w.add_host("b");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 2ms;
  cfg.sync_min = cfg.sync_max = 50ms;
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  std::optional<duration> next_on_a, on_b, after_sync;
  net::post(a.context(), [&] {
    f.write_some_at(0, net::buffer("x", 1));
    f.sync_data();  // completes here, not would_block
    after_sync = w.now();
    net::post(a.context(), [&] { next_on_a = w.now(); });
  });
  net::steady_timer t(b.context(), 10ms);
  t.async_wait([&](boost::system::error_code) { on_b = w.now(); });
  w.run();
  BOOST_REQUIRE(after_sync && next_on_a && on_b);
  BOOST_TEST(after_sync->count() == 0);  // the handler's own clock does not move
  BOOST_TEST(next_on_a->count() == duration(52ms).count());  // its context waited for the write, then the sync
  BOOST_TEST(on_b->count() == duration(10ms).count());  // other hosts did not
}

BOOST_AUTO_TEST_CASE(a_blocking_call_in_a_process_suspends_it_for_the_latency) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 3ms;
  cfg.sync_min = cfg.sync_max = 7ms;
  a.disk().configure(cfg);
  std::optional<duration> done;
  a.spawn([&] {
    net::random_access_file f(a.context(), "/p", net::file_base::read_write | net::file_base::create);
    f.write_some_at(0, net::buffer("x", 1));
    f.sync_all();
    done = w.now();
  });
  w.run();
  BOOST_REQUIRE(done);
  BOOST_TEST(done->count() == duration(10ms).count());
}

BOOST_AUTO_TEST_CASE(iops_and_bandwidth_queue_operations_on_the_disk) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.write_min = cfg.write_max = 0ms;
  cfg.iops = 100;             // one start per 10 ms
  cfg.bandwidth = 1'000'000;  // 1 MB/s
  a.disk().configure(cfg);
  net::random_access_file f(a.context(), "/q", net::file_base::read_write | net::file_base::create);
  std::vector<duration> done;
  std::string block(1000, 'b');  // 1 ms at 1 MB/s
  for (int i = 0; i < 3; ++i)
    f.async_write_some_at(static_cast<std::uint64_t>(i) * 1000, net::buffer(block),
                          [&](boost::system::error_code ec, std::size_t) {
                            BOOST_TEST(!ec);
                            done.push_back(w.now());
                          });
  w.run();
  BOOST_REQUIRE(done.size() == 3u);
  BOOST_TEST(done[0].count() == duration(1ms).count());
  BOOST_TEST(done[1].count() == duration(11ms).count());
  BOOST_TEST(done[2].count() == duration(21ms).count());
}

BOOST_AUTO_TEST_CASE(a_bad_disk_config_is_refused_with_the_reason) {
  simasio::world w;
  auto& a = w.add_host("a");
  simasio::disk_config cfg;
  cfg.read_min = 5ms;
  cfg.read_max = 1ms;
  BOOST_CHECK_EXCEPTION(a.disk().configure(cfg), simasio::usage_error, [](const simasio::usage_error& e) {
    return std::string(e.what()).find("min is above its max") != std::string::npos;
  });
  cfg = {};
  cfg.sector_size = 500;
  BOOST_CHECK_EXCEPTION(a.disk().configure(cfg), simasio::usage_error, [](const simasio::usage_error& e) {
    return std::string(e.what()).find("powers of two") != std::string::npos;
  });
  cfg = {};
  cfg.write_error = 1.5;
  BOOST_CHECK_THROW(a.disk().configure(cfg), simasio::usage_error);
}

// Code written against Asio's file classes, as their documentation spells
// them: an explicit executor type, rebind_executor, and a default token.
BOOST_AUTO_TEST_CASE(asio_style_file_declarations_compile_and_run_with_the_alias_switch) {
  using file_type = net::basic_random_access_file<net::io_context::executor_type>;
  using awaitable_file = net::use_awaitable_t<>::as_default_on_t<net::stream_file>;
  static_assert(std::is_same_v<file_type::rebind_executor<boost::asio::any_io_executor>::other, net::random_access_file>);
  static_assert(std::is_same_v<net::stream_file::executor_type, boost::asio::any_io_executor>);
  simasio::world w;
  auto& a = w.add_host("a");
  file_type f(a.context().get_executor(), "/typed", net::file_base::read_write | net::file_base::create);
  net::random_access_file g(std::move(f));  // converting move, as Asio's
  BOOST_TEST(g.is_open());
  std::string got;
  net::co_spawn(
      a.context(),
      [&]() -> net::awaitable<void> {
        awaitable_file out(co_await net::this_coro::executor, "/typed2",
                           net::file_base::write_only | net::file_base::create);
        co_await out.async_write_some(net::buffer(std::string("default token")));
        awaitable_file in(co_await net::this_coro::executor, "/typed2", net::file_base::read_only);
        std::vector<char> buf(13);
        const std::size_t n = co_await in.async_read_some(net::buffer(buf));
        got.assign(buf.data(), n);
      },
      net::detached);
  w.run();
  BOOST_TEST(got == "default token");
}

BOOST_AUTO_TEST_CASE(a_file_used_after_its_process_crashed_names_the_crash) {
  simasio::world w;
  auto& a = w.add_host("a");
  net::random_access_file f(a.context(), "/f", net::file_base::read_write | net::file_base::create);
  a.crash();
  a.restart();
  try {
    f.size();
    BOOST_FAIL("a file of a dead process was usable");
  } catch (const simasio::usage_error& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("random_access_file") != std::string::npos, what);
    BOOST_TEST(what.find("crash") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_SUITE_END()
