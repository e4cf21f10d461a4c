// posix_files.cpp — the core's side of simasio::interpose for files: descriptors on a host's simulated disk
#include <simasio/detail/access.hpp>
#include <simasio/detail/current.hpp>
#include <simasio/detail/disk/disk_model.hpp>
#include <simasio/detail/file_service.hpp>
#include <simasio/detail/interpose.hpp>
#include <simasio/detail/world_core.hpp>

#include <boost/asio/error.hpp>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../runtime/name_hash.hpp"

namespace simasio::detail::interpose {

namespace {

struct posix_file {
  world_core* core = nullptr;
  disk_model* disk = nullptr;
  std::uint32_t host_id = 0;
  std::uint32_t incarnation = 0;
  std::shared_ptr<inode> file;  // null: a directory (opened to be synced)
  std::string dir;
  unsigned flags = 0;
  std::uint64_t position = 0;
  std::uint32_t owner = 0;  // the process that opened it (world_core::calling_owner)
};

// The descriptors of the worlds run on this thread. Ordered: nothing here
// is iterated in an order that reaches a world, but stay deterministic.
// close() and read() are called during static destruction too (a log
// sink closing its file), after this thread's table is gone: the flag,
// trivially destructible, says so.
thread_local bool table_alive = true;
struct descriptor_table {
  std::map<int, posix_file> map;
  ~descriptor_table() { table_alive = false; }
};
thread_local descriptor_table table;
thread_local std::map<int, posix_file>& files = table.map;

// Shared mappings of simulated files (SQLite's WAL index, the -shm file):
// one block of memory per file, offset and length, which every process of
// the host that maps it shares, as MAP_SHARED pages of one file are. The
// file's content is copied in when first mapped; stores into the memory do
// not reach the disk (SQLite keeps nothing durable there). A truncation
// below a mapping, or a power cut, detaches it: the next mapping starts
// afresh; the memory goes when the last mapping of it is unmapped.
struct mapping {
  const disk_model* disk = nullptr;
  std::uint64_t file = 0;  // inode id
  std::uint64_t offset = 0;
  std::size_t length = 0;
  void* memory = nullptr;
  int refs = 0;
  bool attached = true;  // found by new mappings
};
thread_local std::vector<mapping> mappings;

constexpr std::size_t root_length = sizeof(disk_root) - 1;

int fail(int e) noexcept {
  errno = e;
  return -1;
}

int errno_of(const boost::system::error_code& ec) noexcept {
  if (ec == boost::asio::error::eof) return 0;
  if (ec.category() == boost::system::generic_category() || ec.category() == boost::system::system_category())
    return ec.value();
  return EIO;
}

// The disk of the host whose code runs now (its process, or the handler's
// io_context), or null when no host's code runs.
disk_model* calling_disk(world_core& core) {
  host_state* host = nullptr;
  if (core.in_process()) host = &access::state(core.process_host());
  else if (context_state* ctx = core.current()) host = ctx->host;
  return host != nullptr ? &disk_of(core, *host) : nullptr;
}

// Whether a call must fail instead of touching the disk: the process its
// host's crash is ending runs only its destructors while process_exit
// unwinds it, and what they ask fails (a dead process changes nothing, and
// SQLite's close must not delete the next one's log); a call that waits
// also fails in a process that may not block. A destructor of a live
// process during an ordinary exception is not refused. With an exception
// in flight may_block() never throws; without one, only a call that waits
// asks it (and unwinds a killed process as every blocking call does).
bool refused(world_core& core, bool wait) {
  if (!core.in_process()) return false;
  if (std::uncaught_exceptions() > 0) return !core.may_block();
  return wait && !core.may_block();
}

std::string disk_path(const char* path) {
  std::string p(path + root_length);
  return p.empty() ? std::string("/") : p;
}

// The descriptor's file, when it is still usable by the calling code.
posix_file* lookup(int fd) noexcept {
  const auto it = files.find(fd);
  if (it == files.end()) return nullptr;
  posix_file& f = it->second;
  if (f.disk == nullptr || f.core != running_core_tls) return nullptr;
  return &f;
}

// As on Linux: each host's disk is a device of its own, and a file's inode
// number is its own on that disk and the same after a restart (the disk
// keeps it); a directory's follows its path (disk_model keeps no inode for
// directories). SQLite keys its open files and locks by (st_dev, st_ino).
void fill_stat(struct stat* st, const disk_model& disk, const inode* f, const std::string& dir, std::uint64_t size,
               std::size_t page) noexcept {
  std::memset(st, 0, sizeof *st);
  st->st_dev = makedev(259, disk.host().id + 1);  // 259: Linux's block-extended major (NVMe namespaces)
  st->st_ino = f != nullptr ? f->id + 1 : (std::uint64_t{1} << 62) | (name_hash(dir) >> 2);
  st->st_nlink = 1;
  st->st_mode = f != nullptr ? (S_IFREG | 0644) : (S_IFDIR | 0755);
  st->st_size = static_cast<off_t>(size);
  st->st_blksize = static_cast<blksize_t>(page);  // the page cache's unit
  st->st_blocks = static_cast<blkcnt_t>((size + 511) / 512);
}

}  // namespace

namespace {
// The kernel's entropy devices, read while a world runs (SQLite seeds its
// random numbers, and so the salts it writes into its WAL, from
// /dev/urandom): the world's entropy stream, as getrandom is.
bool entropy_device(const char* path) noexcept {
  return std::strcmp(path, "/dev/urandom") == 0 || std::strcmp(path, "/dev/random") == 0;
}
thread_local std::set<int> entropy_fds;
}  // namespace

bool sim_path(const char* path) noexcept {
  if (!active() || path == nullptr) return false;
  if (path[0] == '/' && path[1] == 'd' && entropy_device(path)) return true;
  return std::strncmp(path, disk_root, root_length) == 0 && (path[root_length] == '\0' || path[root_length] == '/');
}

bool sim_fd(int fd) noexcept {
  return table_alive && ((!files.empty() && files.count(fd) != 0) || (!entropy_fds.empty() && entropy_fds.count(fd) != 0));
}

int file_open(const char* path, int flags, unsigned /*mode*/) {
  if (entropy_device(path)) {
    if ((flags & O_ACCMODE) != O_RDONLY) return fail(EACCES);
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // holds the number
    if (fd >= 0) entropy_fds.insert(fd);
    return fd;
  }
  world_core& core = *running_core_tls;
  disk_model* d = calling_disk(core);
  if (d == nullptr) return fail(ENOENT);  // no host's code is running: no disk to look in
  if (refused(core, false)) return fail(EIO);
  disk_model& disk = *d;
  const host_state& host = disk.host();
  boost::system::error_code ec;
  const std::string norm = disk_model::normalize(disk_path(path), ec);
  if (ec) return fail(ENOENT);
  posix_file pf{&core, &disk, host.id, host.incarnation, nullptr, {}, static_cast<unsigned>(flags), 0,
                core.calling_owner()};
  if (disk.directory(norm)) {
    if ((flags & O_ACCMODE) != O_RDONLY) return fail(EISDIR);
    pf.dir = norm;  // opened, as SQLite does, to be synced
  } else {
    if ((flags & O_DIRECTORY) != 0) return fail(disk.exists(norm) ? ENOTDIR : ENOENT);
    pf.file = disk.open(norm, static_cast<unsigned>(flags), ec);
    if (ec) return fail(errno_of(ec));
  }
  // A real descriptor of /dev/null keeps the number from any real file.
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (pf.file) disk.close(*pf.file);
    return -1;
  }
  disk.track_posix(fd, true);
  files.emplace(fd, std::move(pf));
  return fd;
}

int file_close(int fd) noexcept {
  if (entropy_fds.erase(fd) != 0) return ::close(fd);
  const auto it = files.find(fd);
  if (it == files.end()) return fail(EBADF);
  posix_file& f = it->second;
  if (f.disk != nullptr) {  // not yet closed by a crash or forgotten with its world
    if (f.file) f.disk->close(*f.file);
    f.disk->track_posix(fd, false);
  }
  files.erase(it);
  return ::close(fd);
}

void forget_posix_files(disk_model& disk, bool close_files, std::uint32_t owner) noexcept {
  if (!table_alive) return;  // the thread's table is gone (static destruction)
  for (auto it = files.begin(); it != files.end();) {
    if (it->second.disk != &disk || (owner != 0 && it->second.owner != owner)) {
      ++it;
      continue;
    }
    if (owner != 0) disk.track_posix(it->first, false);
    if (close_files && it->second.file) disk.close(*it->second.file);
    // The number stays taken (by /dev/null) until the program closes it:
    // its calls then fail with EBADF, as on a descriptor of a dead process.
    it->second.core = nullptr;
    it->second.disk = nullptr;
    ++it;
  }
}

namespace {

// read/pread (offset -1: at the position) and write/pwrite.
long transfer(int fd, disk_op kind, void* buf, std::size_t n, std::int64_t offset) {
  posix_file* f = lookup(fd);
  if (f == nullptr || f->disk->host().incarnation != f->incarnation) return fail(EBADF);
  if (!f->file) return fail(EISDIR);
  if ((f->flags & O_ACCMODE) == (kind == disk_op::read ? O_WRONLY : O_RDONLY)) return fail(EBADF);
  if (n == 0) return 0;
  if (refused(*f->core, true)) return fail(EIO);
  const bool sync = kind == disk_op::write && (f->flags & O_SYNC) != 0;
  const duration due = f->disk->blocking_finish(kind, n, sync);
  boost::system::error_code ec;
  const boost::asio::mutable_buffer b(buf, n);
  const std::size_t done = f->disk->transfer(*f->file, f->flags, f->position, kind,
                                             offset < 0 ? 0 : static_cast<std::uint64_t>(offset), offset < 0, &b, 1, ec);
  if (ec && ec != boost::asio::error::eof) return fail(errno_of(ec));
  f->disk->block_until(due);
  return static_cast<long>(done);
}

}  // namespace

long file_read(int fd, void* buf, std::size_t n, std::int64_t offset) {
  if (entropy_fds.count(fd) != 0) {
    if (active()) {
      entropy(buf, n);
    } else if (::getrandom(buf, n, 0) != static_cast<ssize_t>(n)) {  // the world is gone: the kernel's
      return fail(EIO);
    }
    return static_cast<long>(n);
  }
  return transfer(fd, disk_op::read, buf, n, offset);
}

long file_write(int fd, const void* buf, std::size_t n, std::int64_t offset) {
  return transfer(fd, disk_op::write, const_cast<void*>(buf), n, offset);
}

std::int64_t file_lseek(int fd, std::int64_t offset, int whence) noexcept {
  posix_file* f = lookup(fd);
  if (f == nullptr || !f->file) return fail(EBADF);
  std::int64_t base = 0;
  if (whence == SEEK_CUR) base = static_cast<std::int64_t>(f->position);
  else if (whence == SEEK_END) base = static_cast<std::int64_t>(f->file->cache.size());
  else if (whence != SEEK_SET) return fail(EINVAL);
  if (base + offset < 0) return fail(EINVAL);
  f->position = static_cast<std::uint64_t>(base + offset);
  return base + offset;
}

int file_sync(int fd) {
  posix_file* f = lookup(fd);
  if (f == nullptr || f->disk->host().incarnation != f->incarnation) return fail(EBADF);
  world_core& core = *f->core;
  if (refused(core, true)) return fail(EIO);
  boost::system::error_code ec;
  // Durable when the call returns, not when it is made: a power cut while
  // the process waits here keeps, loses or tears what it was syncing (and a
  // crash that ends the process here unwinds it before anything is durable).
  const bool directory = !f->file;
  const duration due = f->disk->blocking_finish(directory ? disk_op::sync_directory : disk_op::sync,
                                                directory ? 0 : f->disk->dirty_bytes(*f->file));
  f->disk->block_until(due);
  f = lookup(fd);  // another thread of the process may have closed it meanwhile
  if (f == nullptr || f->disk->host().incarnation != f->incarnation) return fail(EBADF);
  if (directory) f->disk->sync_directory(f->dir, ec);
  else f->disk->sync(*f->file, ec);
  return ec ? fail(errno_of(ec)) : 0;
}

int file_truncate(int fd, std::int64_t size, bool wait) {
  posix_file* f = lookup(fd);
  if (f == nullptr || f->disk->host().incarnation != f->incarnation) return fail(EBADF);
  if (!f->file) return fail(EISDIR);
  if (size < 0) return fail(EINVAL);
  if (refused(*f->core, wait)) return fail(EIO);
  boost::system::error_code ec;
  const duration due = f->disk->blocking_finish(disk_op::resize, 0);
  f->disk->resize(*f->file, static_cast<std::uint64_t>(size), ec);
  if (ec) return fail(errno_of(ec));
  forget_mappings(*f->disk, f->file->id, static_cast<std::uint64_t>(size));
  if (wait) f->disk->block_until(due);
  return 0;
}

void* file_mmap(int fd, std::size_t length, int prot, int flags, std::int64_t offset) noexcept {
  posix_file* f = lookup(fd);
  if (f == nullptr || f->disk->host().incarnation != f->incarnation) {
    errno = EBADF;
    return MAP_FAILED;
  }
  if (!f->file || length == 0 || offset < 0) {
    errno = !f->file ? ENODEV : EINVAL;
    return MAP_FAILED;
  }
  if ((flags & MAP_SHARED) == 0 || (flags & MAP_FIXED) != 0) {
    errno = ENOTSUP;  // what SQLite and the like ask is a shared mapping at an address of the system's choosing
    return MAP_FAILED;
  }
  (void)prot;
  const std::uint64_t off = static_cast<std::uint64_t>(offset);
  for (mapping& m : mappings)
    if (m.attached && m.disk == f->disk && m.file == f->file->id && m.offset == off && m.length == length) {
      ++m.refs;
      return m.memory;
    }
  void* memory = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return MAP_FAILED;
  const auto& cache = f->file->cache;
  if (off < cache.size())
    std::memcpy(memory, cache.data() + off, std::min<std::size_t>(length, cache.size() - off));
  mappings.push_back(mapping{f->disk, f->file->id, off, length, memory, 1, true});
  return memory;
}

namespace {
// The system call itself: munmap is interposed, and would find the block again.
void release(const mapping& m) noexcept { ::syscall(SYS_munmap, m.memory, m.length); }
}  // namespace

int file_munmap(void* address, std::size_t length) noexcept {
  for (auto it = mappings.begin(); it != mappings.end(); ++it) {
    if (it->memory != address) continue;
    if (--it->refs <= 0) {
      release(*it);
      mappings.erase(it);
    }
    (void)length;
    return 0;
  }
  return -2;  // not one of ours
}

void forget_mappings(const disk_model& disk, std::uint64_t file, std::uint64_t from) noexcept {
  for (auto it = mappings.begin(); it != mappings.end();) {
    if (it->disk != &disk || (file != 0 && it->file != file) || it->offset + it->length <= from) {
      ++it;
      continue;
    }
    it->attached = false;
    if (it->refs <= 0) {
      release(*it);
      it = mappings.erase(it);
    } else {
      ++it;
    }
  }
}

int file_fstat(int fd, void* stat_buf) noexcept {
  posix_file* f = lookup(fd);
  if (f == nullptr) return fail(EBADF);
  fill_stat(static_cast<struct stat*>(stat_buf), *f->disk, f->file.get(), f->dir,
            f->file ? f->file->cache.size() : 4096, f->disk->config().page_size);
  return 0;
}

int file_stat(const char* path, void* stat_buf) noexcept {
  disk_model* d = calling_disk(*running_core_tls);
  if (d == nullptr) return fail(ENOENT);
  disk_model& disk = *d;
  boost::system::error_code ec;
  const std::string p = disk_model::normalize(disk_path(path), ec);
  const std::uint64_t size = disk.file_size(p, ec);
  if (ec == boost::system::errc::is_a_directory || p == "/") {
    fill_stat(static_cast<struct stat*>(stat_buf), disk, nullptr, p, 4096, disk.config().page_size);
    return 0;
  }
  if (ec) return fail(errno_of(ec));
  const inode* f = disk.find_file(p);
  fill_stat(static_cast<struct stat*>(stat_buf), disk, f, p, size, disk.config().page_size);
  return 0;
}

int file_access(const char* path, int /*mode*/) noexcept {
  disk_model* disk = calling_disk(*running_core_tls);
  if (disk == nullptr) return fail(ENOENT);
  boost::system::error_code ec;
  const std::string p = disk_model::normalize(disk_path(path), ec);
  return p == "/" || disk->exists(p) ? 0 : fail(ENOENT);
}

int file_unlink(const char* path, bool wait) {
  world_core& core = *running_core_tls;
  disk_model* d = calling_disk(core);
  if (d == nullptr) return fail(ENOENT);
  if (refused(core, wait)) return fail(EIO);
  disk_model& disk = *d;
  const duration due = disk.blocking_finish(disk_op::remove, 0);
  boost::system::error_code ec;
  disk.remove(disk_path(path), ec);
  if (ec) return fail(errno_of(ec));
  if (wait) disk.block_until(due);
  return 0;
}

int file_rename(const char* from, const char* to, bool wait) {
  world_core& core = *running_core_tls;
  disk_model* d = calling_disk(core);
  if (d == nullptr) return fail(ENOENT);
  if (refused(core, wait)) return fail(EIO);
  disk_model& disk = *d;
  const duration due = disk.blocking_finish(disk_op::rename, 0);
  boost::system::error_code ec;
  disk.rename(disk_path(from), disk_path(to), ec);
  if (ec) return fail(errno_of(ec));
  if (wait) disk.block_until(due);
  return 0;
}

int file_fcntl(int fd, int cmd, void* arg) noexcept {
  posix_file* f = lookup(fd);
  if (f == nullptr) return fail(EBADF);
  switch (cmd) {
    case F_GETFD: return FD_CLOEXEC;
    case F_SETFD: return 0;
    case F_GETFL: return static_cast<int>(f->flags);
    case F_SETFL: return 0;
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_SETLK:
    case F_OFD_SETLKW: return 0;  // one process per file on a simulated host: every lock is granted
    case F_GETLK:
    case F_OFD_GETLK:
      static_cast<struct flock*>(arg)->l_type = F_UNLCK;
      return 0;
    default: return fail(EINVAL);
  }
}

}  // namespace simasio::detail::interpose
