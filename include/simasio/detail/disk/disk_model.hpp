// simasio/detail/disk/disk_model.hpp — one host's disk: namespace, page cache, medium, queue, faults
#ifndef SIMASIO_DETAIL_DISK_DISK_MODEL_HPP
#define SIMASIO_DETAIL_DISK_DISK_MODEL_HPP

#include <simasio/world_options.hpp>
#include <simasio/disk.hpp>
#include <simasio/random/rng.hpp>
#include <simasio/trace/trace.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace simasio::detail {

class world_core;
struct host_state;
class disk_model;
namespace interpose {
// Closes (close_files) and detaches every descriptor of disk (posix_files.cpp).
// With an owner (a process's group + 1), only the files that process opened.
void forget_posix_files(disk_model& disk, bool close_files, std::uint32_t owner = 0) noexcept;
// Detaches the shared mappings of disk's file (0: every file) that reach
// past `from`: a truncation, or a power cut (posix_files.cpp).
void forget_mappings(const disk_model& disk, std::uint64_t file, std::uint64_t from) noexcept;
}  // namespace interpose

// One write or resize since its file's last sync, as the medium would get
// it: a write carries the page-cache content of every sector it touched,
// taken right after it (a sector is written back whole, so a power cut
// leaves one of these snapshots, never a mix of two).
struct disk_change {
  std::uint64_t first_sector = 0;
  std::uint64_t sectors = 0;     // 0: a resize
  std::uint64_t size_after = 0;  // the file's size once this change is applied
  // Its own copy of sectors [first_sector, first_sector + sectors), zeros
  // past the end; empty while the cache still holds them (copy on write:
  // disk_model::own_copy).
  std::vector<std::byte> bytes;
  std::int64_t at_ns = 0;        // world time written (write-back after dirty_expire)
  // Faults below the page cache, drawn when written, felt when applied:
  std::int64_t misdirect_to = -1;  // sector the snapshot lands at instead
  std::int64_t corrupt_bit = -1;   // bit of bytes flipped on the medium
  std::int64_t bad_sector = -1;    // sector left unreadable on the medium
  bool gone = false;               // overwritten whole since (disk_model::supersede): no longer pending
};

// A page that unsynced writes touch: how many of them, and the newest
// (its sequence number, inode::first_seq counting from the oldest pending).
struct dirty_page {
  std::uint32_t writers = 0;
  std::uint64_t newest = 0;
};

// A file: what reads see (the page cache), what survives a power cut (the
// medium), and the changes between them.
struct inode {
  std::uint64_t id = 0;
  std::vector<std::byte> cache;
  std::vector<std::byte> medium;
  std::deque<disk_change> unsynced;     // in order; an entry marked gone is skipped
  std::uint64_t first_seq = 0;          // sequence number of unsynced.front()
  std::unordered_map<std::uint64_t, dirty_page> dirty_pages;  // page -> the unsynced writes touching it
  std::uint32_t pending_resizes = 0;    // unsynced size changes
  std::uint64_t dirty = 0;              // bytes the unsynced changes write (whole sectors)
  std::set<std::uint64_t> bad;          // unreadable sectors of the medium
  std::set<std::uint64_t> uncached;     // bad sectors not in the page cache: reads of them fail
  std::uint32_t links = 0;              // names in the live namespace
  std::uint32_t durable_links = 0;      // names in the durable namespace
  std::uint32_t open = 0;               // open files (handles)
  std::uint32_t journal_refs = 0;       // unsynced directory operations naming it
};

// A create, rename or remove not yet durable: the directory entries it
// sets (inode id, or 0 for "no entry"). A power cut keeps or loses it
// whole (a rename is atomic), and keeps the earlier ones first, as a
// metadata journal commits in order; one older than dirty_expire was
// committed by the OS already.
struct dir_op {
  std::vector<std::pair<std::string, std::uint64_t>> entries;
  std::int64_t at_ns = 0;  // world time made
};

class disk_model {
 public:
  // ext4's largest file: an offset past it is EFBIG, not an allocation.
  static constexpr std::uint64_t max_file_size = std::uint64_t{16} << 40;

  disk_model(world_core& core, host_state& host);
  ~disk_model();
  disk_model(const disk_model&) = delete;
  disk_model& operator=(const disk_model&) = delete;

  void configure(disk_config c);
  const disk_config& config() const noexcept { return config_; }
  const host_state& host() const noexcept { return host_; }
  world_core& core() const noexcept { return core_; }

  // ---- the namespace; effects at once --------------------------------------
  // Opens (and with O_CREAT maybe creates) the file at path; counts one open.
  std::shared_ptr<inode> open(const std::string& path, unsigned flags, boost::system::error_code& ec);
  void close(inode& f) noexcept;
  void rename(const std::string& from, const std::string& to, boost::system::error_code& ec);
  void remove(const std::string& path, boost::system::error_code& ec);
  void sync_directory(const std::string& dir, boost::system::error_code& ec);
  bool exists(const std::string& path) const;
  std::vector<std::string> list(const std::string& dir) const;
  std::uint64_t file_size(const std::string& path, boost::system::error_code& ec) const;

  // ---- data; effects at once -------------------------------------------------
  std::size_t read(inode& f, std::uint64_t offset, const boost::asio::mutable_buffer* bufs, std::size_t n,
                   boost::system::error_code& ec);
  std::size_t write(inode& f, std::uint64_t offset, const boost::asio::mutable_buffer* bufs, std::size_t n,
                    bool sync_after, boost::system::error_code& ec);
  // A read or write through an open file (its open(2) flags and position):
  // at offset, or at the position when at_position (which then moves past
  // what was transferred); a write with O_APPEND goes to the end, even a
  // positioned one, as on Linux; O_SYNC syncs after the write.
  std::size_t transfer(inode& f, unsigned flags, std::uint64_t& position, disk_op kind, std::uint64_t offset,
                       bool at_position, const boost::asio::mutable_buffer* bufs, std::size_t n,
                       boost::system::error_code& ec);
  void resize(inode& f, std::uint64_t size, boost::system::error_code& ec);
  void sync(inode& f, boost::system::error_code& ec);
  std::uint64_t dirty_bytes(const inode& f) const noexcept;

  // ---- time ---------------------------------------------------------------
  // World time at which the disk finishes an operation started now moving
  // `bytes`: the queue (iops, bandwidth) and a latency drawn for `op`.
  // then_sync: an O_SYNC write, its flush after it in the same slot.
  duration finish_time(disk_op op, std::uint64_t bytes, bool then_sync = false);
  // The same for a blocking call: from the test body, now (no time passes,
  // no draw, no place in the queue).
  duration blocking_finish(disk_op op, std::uint64_t bytes, bool then_sync = false);
  // A blocking call made now lasts until `until`: a process sleeps, a
  // handler's context is busy, the test body does not wait.
  void block_until(duration until);

  // ---- power and cache -------------------------------------------------------
  void power_cut();
  void drop_caches();
  std::uint64_t used() const noexcept;

  // For descriptors opened through simasio::interpose (posix_files.cpp):
  // a normalised path that is a directory, the file a path names, and the
  // count of descriptors open on this disk.
  bool directory(const std::string& path) const { return path == "/" || known_directory(path); }
  const inode* find_file(const std::string& path) const { return find(names_, path); }
  void track_posix(int fd, bool opened) noexcept;
  // The host's processes died: their descriptors are closed (and, once the
  // disk itself goes, forgotten).
  void close_posix_files() noexcept;

  // Normalised absolute path ("/a/b"); ec invalid_argument for an empty path.
  static std::string normalize(const std::string& path, boost::system::error_code& ec);

 private:
  enum stream : unsigned {
    latency_stream,
    read_error_stream,
    write_error_stream,
    sync_error_stream,
    latent_stream,
    misdirect_stream,
    corruption_stream,
    power_stream,
    overwrite_stream,
    stream_count
  };
  // Each family of the disk's draws is a stream of its own
  // ("disk:<host>:<family>"), opened on first use.
  rng& draw(stream s) { return streams_[s] != nullptr ? *streams_[s] : open_stream(s); }
  rng& open_stream(stream s);
  void record(event_kind k, std::uint64_t a, std::uint64_t b);
  std::uint64_t sector_of(std::uint64_t byte) const noexcept { return byte / config_.sector_size; }
  std::uint64_t allocated(std::uint64_t size) const noexcept;
  bool fits(std::uint64_t old_size, std::uint64_t new_size) const noexcept;
  void push_change(inode& f, disk_change c);
  void write_back_expired(inode& f, bool at_power_cut);
  void write_back_oldest(inode& f);
  void pop_oldest(inode& f);
  void skip_gone(inode& f) noexcept;
  void forget_unsynced(inode& f) noexcept;
  void supersede(inode& f, const disk_change& newer);
  void own_copy(inode& f, disk_change& c);
  void keep_versions_under(inode& f, const disk_change& newer);
  // The bytes change c writes: its own copy, or the cache's.
  const std::byte* change_data(const inode& f, const disk_change& c, std::uint64_t& available) const noexcept;
  // The first and last page a write (sectors > 0) touches.
  std::pair<std::uint64_t, std::uint64_t> pages_of(const disk_change& c) const noexcept {
    return {c.first_sector * config_.sector_size / config_.page_size,
            ((c.first_sector + c.sectors) * config_.sector_size - 1) / config_.page_size};
  }
  // Writes change c to img (the medium, or a power cut's image of it);
  // keep: per sector of c, 0 lost, 1 kept, 2 garbage (null: all kept).
  void apply(inode& f, std::vector<std::byte>& img, const disk_change& c, const std::vector<std::uint8_t>* keep);
  void fill_garbage(std::byte* p, std::size_t n) noexcept;
  void garbage_from(std::vector<std::byte>& img, std::size_t old_size) noexcept;
  void resolve(inode& f);
  void set_entry(std::map<std::string, std::uint64_t>& names, const std::string& path, std::uint64_t id,
                 bool durable);
  void erase_entry(std::map<std::string, std::uint64_t>& names, const std::string& path, bool durable);
  void collect(std::uint64_t id);
  void journal(dir_op op);
  void commit(std::size_t n);  // the first n journal operations become durable
  inode* find(const std::map<std::string, std::uint64_t>& names, const std::string& path) const;
  bool is_directory(const std::string& path) const;
  bool under_file(const std::string& path) const;
  bool known_directory(const std::string& dir) const;

  world_core& core_;
  host_state& host_;
  disk_config config_;
  rng* streams_[stream_count] = {};
  xoshiro256 garbage_;  // bytes of never-written sectors: the seed's, off the tape
  std::map<std::uint64_t, std::shared_ptr<inode>> inodes_;
  std::uint64_t next_inode_ = 1;
  std::map<std::string, std::uint64_t> names_;          // path -> inode: what the OS sees
  std::map<std::string, std::uint64_t> durable_names_;  // as the medium holds them
  std::deque<dir_op> journal_;                          // directory operations not yet durable, in order
  std::size_t posix_open_ = 0;  // descriptors opened through simasio::interpose
  duration next_start_{0};  // the device's next free start (iops)
  duration channel_free_{0};  // when the transfer channel is free (bandwidth)
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_DISK_DISK_MODEL_HPP
