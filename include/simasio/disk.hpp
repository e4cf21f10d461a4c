// simasio/disk.hpp — a host's simulated disk: files, directories, page cache, power-loss model
#ifndef SIMASIO_DISK_HPP
#define SIMASIO_DISK_HPP

#include <simasio/world_options.hpp>
#include <simasio/random/rng.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace simasio {

namespace detail {
class disk_model;
struct access;
}  // namespace detail

/// How a simulated disk behaves: timing, size, and the faults it injects.
///
/// Latencies are drawn per operation (uniform between min and max unless a
/// distribution is given), so completions of concurrent operations reorder
/// as on a real device's queue. Fault probabilities are per operation; each
/// family draws from its own sub-stream of the disk, so turning one on does
/// not move the draws of another, nor any network or scheduler draw.
///
/// Faults below the page cache (latent sector errors, misdirected writes,
/// silent corruption) reach the medium when the data does (a sync, the
/// write-back after dirty_expire, or a power cut that keeps it); reads see
/// them once the page cache no longer holds the data: after a power cut, or
/// disk::drop_caches().
struct disk_config {
  duration read_min{std::chrono::microseconds(20)};    ///< fastest read
  duration read_max{std::chrono::microseconds(200)};   ///< slowest read
  duration write_min{std::chrono::microseconds(20)};   ///< fastest write (into the page cache)
  duration write_max{std::chrono::microseconds(200)};  ///< slowest write
  duration sync_min{std::chrono::microseconds(500)};   ///< fastest sync_all / sync_data / sync_directory
  duration sync_max{std::chrono::milliseconds(5)};     ///< slowest sync
  /// Optional distributions replacing the uniform [min, max] of reads,
  /// writes and syncs; draw only from the rng given (the disk's latency stream).
  ///@{
  std::function<duration(rng&)> read_latency, write_latency, sync_latency;
  ///@}
  std::uint64_t iops = 0;       ///< operations the disk starts per second, 0 = unlimited
  std::uint64_t bandwidth = 0;  ///< bytes per second through the device, 0 = unlimited
  /// Bytes of file data the disk holds (sizes rounded up to sectors); a
  /// write or resize beyond it fails with no_space_on_device.
  std::uint64_t capacity = std::uint64_t{1} << 30;
  double read_error = 0.0;   ///< probability a read fails with EIO (nothing read)
  double write_error = 0.0;  ///< probability a write fails with EIO (nothing written)
  /// Probability a sync fails with EIO. As on Linux, the dirty data it was
  /// to write is then marked clean without reaching the medium: reads still
  /// see it, a later sync succeeds, and a power cut loses it.
  double sync_error = 0.0;
  double latent_sector_error = 0.0;  ///< per write: one of its sectors becomes unreadable (EIO) on the
                                     ///< medium, until a later write covers it whole
  double misdirected_write = 0.0;    ///< per write: it reaches the medium at another sector of the file
  double corruption = 0.0;           ///< per write: one bit flips on its way to the medium
  std::size_t sector_size = 512;     ///< the unit a power cut keeps or loses (a power of two)
  std::size_t page_size = 4096;      ///< the page cache's unit (a power-of-two multiple of sector_size)
  /// Sectors are written atomically (each holds one whole version after a
  /// power cut). False: a torn write may also leave a sector of garbage,
  /// for programs that checksum their records.
  bool atomic_sectors = true;
  /// Unsynced data and directory operations older than this have been
  /// written back (committed) by the OS and survive a power cut (Linux's
  /// vm.dirty_expire_centisecs: 30 s); duration::max(): only a sync makes
  /// anything durable.
  duration dirty_expire{std::chrono::seconds(30)};
  /// Unsynced bytes one file may hold before the OS writes its oldest
  /// changes back (until half remain), durable from then on, as Linux's
  /// dirty thresholds start write-back before dirty_expire when much is
  /// dirty. It bounds what a writer that never syncs keeps in memory.
  /// Must be positive; std::numeric_limits<std::uint64_t>::max(): never.
  std::uint64_t dirty_limit = std::uint64_t{64} << 20;

  /// A configuration drawn from @p r, for swarm testing: timing, capacity,
  /// write-back and each fault family on or off with a rate from the ranges
  /// the README lists. Same rng state, same configuration.
  static disk_config random(rng& r);
};

/// The disk of one host (host::disk()): a file namespace with directories,
/// a page cache and a medium. It is hardware: it outlives crashes and
/// restarts of its host. Files are opened with simasio::asio::random_access_file
/// and stream_file on an io_context of the host; this class offers the
/// directory operations Asio has no class for.
///
/// Paths are '/'-separated; a relative path is taken from "/", "." and ".."
/// are resolved, and directories exist implicitly (a file "/a/b" makes "/a"
/// a directory). Creating, renaming and removing a file change directory
/// entries, which survive a power cut only once their directory is synced
/// with sync_directory (an unsynced entry survives or reverts, drawn per
/// entry).
///
/// Calls here are made by the host's OS: from the test body they complete
/// at once; from a handler or a process, rename, remove and sync_directory
/// take the disk's time like a file's blocking calls (the calling context
/// is busy until they complete).
class disk {
 public:
  disk(const disk&) = delete;
  disk& operator=(const disk&) = delete;
  ~disk();

  /// Replaces the disk's behaviour from now on (data already written stays).
  /// @throws usage_error for an inconsistent configuration (min above max,
  /// sector or page size not a power of two, probabilities outside [0, 1]).
  void configure(disk_config config);
  /// The disk's behaviour.
  const disk_config& config() const noexcept;

  /// Atomically renames @p from to @p to, replacing a file there (rename(2)).
  /// @throws boost::system::system_error no_such_file_or_directory when
  /// @p from does not exist.
  void rename(const std::string& from, const std::string& to);
  /// Removes the name @p path (unlink(2)); an open file stays usable until closed.
  /// @throws boost::system::system_error no_such_file_or_directory.
  void remove(const std::string& path);
  /// Makes the entries of directory @p dir durable (fsync on the directory).
  void sync_directory(const std::string& dir);
  /// True when @p path names a file or a directory.
  bool exists(const std::string& path) const;
  /// Names (not paths) of the files and directories directly in @p dir, sorted.
  std::vector<std::string> list(const std::string& dir) const;
  /// Size in bytes of the file @p path, as reads see it.
  /// @throws boost::system::system_error no_such_file_or_directory.
  std::uint64_t file_size(const std::string& path) const;

  /// Bytes of file data held (sector-rounded), against disk_config::capacity.
  std::uint64_t used() const noexcept;
  /// Evicts every clean page from the page cache (echo 1 >
  /// /proc/sys/vm/drop_caches): later reads of synced data come from the
  /// medium, with its latent errors and corruption.
  void drop_caches();

 private:
  friend struct detail::access;
  friend class host;
  explicit disk(detail::disk_model& model) noexcept : model_(&model) {}
  detail::disk_model* model_;  // owned by the host's state
};

}  // namespace simasio

#endif  // SIMASIO_DISK_HPP
