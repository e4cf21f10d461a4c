// disk.cpp — host::disk(): the directory operations and configuration users call
#include <simasio/disk.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/disk/disk_model.hpp>
#include <simasio/detail/file_service.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>
#include <simasio/host.hpp>

#include <boost/system/system_error.hpp>

namespace simasio {

namespace {
void throw_disk_error(const boost::system::error_code& ec, const char* what, const std::string& path) {
  if (ec) throw boost::system::system_error(ec, std::string("disk ") + what + " '" + path + "'");
}

// A process being killed by its host's crash changes nothing on the disk.
void check_caller(detail::disk_model& m, const char* what, const std::string& path) {
  detail::world_core& core = m.core();
  if (core.in_process() && !core.may_block())
    throw boost::system::system_error(error::host_down, std::string("simasio: disk ") + what + " '" + path +
                                                             "' from a process its host's crash is ending");
}
}  // namespace

disk::~disk() = default;

void disk::configure(disk_config config) { model_->configure(std::move(config)); }
const disk_config& disk::config() const noexcept { return model_->config(); }

void disk::rename(const std::string& from, const std::string& to) {
  check_caller(*model_, "rename", from);
  const duration due = model_->blocking_finish(disk_op::rename, 0);
  boost::system::error_code ec;
  model_->rename(from, to, ec);
  throw_disk_error(ec, "rename", from);
  model_->block_until(due);
}

void disk::remove(const std::string& path) {
  check_caller(*model_, "remove", path);
  const duration due = model_->blocking_finish(disk_op::remove, 0);
  boost::system::error_code ec;
  model_->remove(path, ec);
  throw_disk_error(ec, "remove", path);
  model_->block_until(due);
}

void disk::sync_directory(const std::string& dir) {
  check_caller(*model_, "sync_directory", dir);
  const duration due = model_->blocking_finish(disk_op::sync_directory, 0);
  model_->block_until(due);  // durable when it returns, not when it is called
  boost::system::error_code ec;
  model_->sync_directory(dir, ec);
  throw_disk_error(ec, "sync_directory", dir);
}

bool disk::exists(const std::string& path) const { return model_->exists(path); }
std::vector<std::string> disk::list(const std::string& dir) const { return model_->list(dir); }

std::uint64_t disk::file_size(const std::string& path) const {
  boost::system::error_code ec;
  const std::uint64_t n = model_->file_size(path, ec);
  throw_disk_error(ec, "file_size", path);
  return n;
}

std::uint64_t disk::used() const noexcept { return model_->used(); }
void disk::drop_caches() { model_->drop_caches(); }

disk_config disk_config::random(rng& r) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  disk_config c;
  // Timing: a fast NVMe, a SATA SSD or a spinning disk.
  switch (r.below(3)) {
    case 0: break;
    case 1:
      c.read_min = microseconds(50), c.read_max = microseconds(500);
      c.write_min = microseconds(50), c.write_max = microseconds(500);
      c.sync_min = milliseconds(1), c.sync_max = milliseconds(20);
      break;
    default:
      c.read_min = milliseconds(2), c.read_max = milliseconds(15);
      c.write_min = milliseconds(2), c.write_max = milliseconds(15);
      c.sync_min = milliseconds(5), c.sync_max = milliseconds(50);
      c.iops = 200;
      break;
  }
  // Each fault family on for about one seed in three, at a rate from its range.
  auto rate = [&r](double lo, double hi) { return r.below(3) == 0 ? lo + (hi - lo) * r.uniform01() : 0.0; };
  c.read_error = rate(0.001, 0.05);
  c.write_error = rate(0.001, 0.05);
  c.sync_error = rate(0.001, 0.05);
  c.latent_sector_error = rate(0.001, 0.02);
  c.misdirected_write = rate(0.001, 0.02);
  c.corruption = rate(0.001, 0.02);
  if (r.below(3) == 0) c.capacity = (std::uint64_t{64} << 10) + r.below(std::uint64_t{16} << 20);  // 64 KiB..16 MiB
  c.atomic_sectors = r.below(4) != 0;
  // Write-back: the kernel's 30 s, a busy box's 5 s, or never.
  switch (r.below(3)) {
    case 0: break;
    case 1: c.dirty_expire = std::chrono::seconds(5); break;
    default: c.dirty_expire = duration::max(); break;
  }
  return c;
}

}  // namespace simasio
