// disk_rows.cpp — the simulated disk against real files on tmpfs (/dev/shm):
// 4 KiB writes each followed by sync_data (what a write-ahead log does per
// record), asynchronous 4 KiB writes through the disk's queue, and the heap
// a MiB of stored data costs.
#include "groups.hpp"

#include <simasio/asio.hpp>
#include <simasio/simasio.hpp>

#include <malloc.h>

#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {
namespace {

namespace net = simasio::asio;
constexpr std::size_t block = 4096;
constexpr std::size_t ring = 256;  // a 1 MiB file written round and round

std::string shm_path() { return "/dev/shm/simasio_bench_disk_" + std::to_string(::getpid()); }

// pwrite + fdatasync of n blocks, appended.
std::size_t real_write_sync(std::size_t n, bool sync) {
  const std::string path = shm_path();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("simasio_bench: cannot create " + path);
  const std::vector<char> data(block, 'r');
  for (std::size_t i = 0; i < n; ++i) {
    if (::pwrite(fd, data.data(), block, static_cast<off_t>((i % ring) * block)) != static_cast<ssize_t>(block))
      throw std::runtime_error("simasio_bench: pwrite failed");
    if (sync) ::fdatasync(fd);
  }
  ::close(fd);
  ::unlink(path.c_str());
  return n;
}

// The same on a simulated disk, from the test body (no virtual time passes).
std::size_t simulated_write_sync(std::size_t n, bool sync) {
  simasio::world w;
  auto& h = w.add_host("db");
  h.disk().configure([] {
    simasio::disk_config c;
    c.capacity = std::uint64_t{1} << 34;
    return c;
  }());
  net::random_access_file f(h.context(), "/wal", net::file_base::read_write | net::file_base::create);
  const std::vector<char> data(block, 's');
  for (std::size_t i = 0; i < n; ++i) {
    f.write_some_at((i % ring) * block, net::buffer(data));
    if (sync) f.sync_data();
  }
  return n;
}

// n asynchronous writes, each started when the previous one completed (a
// log appender), through the disk queue and the scheduler.
std::size_t simulated_async_chain(std::size_t n) {
  simasio::world w;
  auto& h = w.add_host("db");
  simasio::disk_config c;
  c.capacity = std::uint64_t{1} << 34;
  h.disk().configure(c);
  net::random_access_file f(h.context(), "/wal", net::file_base::read_write | net::file_base::create);
  const std::vector<char> data(block, 'a');
  std::size_t done = 0;
  std::function<void()> next = [&] {
    f.async_write_some_at((done % ring) * block, net::buffer(data), [&](boost::system::error_code ec, std::size_t) {
      if (ec) throw std::runtime_error("simasio_bench: simulated write failed");
      if (++done < n) next();
    });
  };
  next();
  w.run();
  return done;
}

}  // namespace

void disk_rows(const settings& s, std::vector<row>& rows) {
  const std::size_t n = s.quick ? 2000 : 20000;
  const paired synced = paired_rates(s.reps(), [&] { return simulated_write_sync(n, true); },
                                     [&] { return real_write_sync(n, true); });
  rows.push_back({"4 KiB write + sync_data, one after another; vs real pwrite + fdatasync on tmpfs (per s)", synced.a,
                  synced.b, times(synced.ratio), "", true, "/s"});
  const paired chained = paired_rates(s.reps(), [&] { return simulated_async_chain(n); },
                                      [&] { return real_write_sync(n, false); });
  rows.push_back({"4 KiB async_write_some_at chained through the disk queue; vs real pwrite on tmpfs (per s)",
                  chained.a, chained.b, times(chained.ratio), ">= 1x", chained.ratio >= 1, "/s"});
  // Heap per MiB held: the page cache and the medium each keep a copy once synced.
  const std::size_t mib = s.quick ? 4 : 64;
  // Large buffers are mmapped: count those (hblkhd) with the heap proper.
  auto in_use = [] {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
  };
  const std::size_t before = in_use();
  double per_mib = 0;
  {
    simasio::world w;
    auto& h = w.add_host("db");
    net::random_access_file f(h.context(), "/data", net::file_base::read_write | net::file_base::create);
    const std::vector<char> data(1 << 20, 'm');
    for (std::size_t i = 0; i < mib; ++i) f.write_some_at(i << 20, net::buffer(data));
    f.sync_all();
    per_mib = static_cast<double>(in_use() - before) / static_cast<double>(mib);
  }
  rows.push_back({"heap per MiB stored and synced (bytes)", per_mib, 0, "", "", true, "B"});
}

}  // namespace bench
