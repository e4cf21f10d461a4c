// files.cpp — simasio::interpose for files: POSIX calls on paths under /simdisk go to the host's simulated disk
//
// While a world runs on the calling thread, open() of a path under
// /simdisk (detail/interpose.hpp, disk_root) opens that path on the
// simulated disk of the host whose code calls, and the descriptor it
// returns is served by the disk: read, write, pread, pwrite, lseek, fsync,
// fdatasync, ftruncate, fstat, fcntl (locks are always granted), close;
// stat, lstat, access, unlink, rename, mkdir and rmdir of such paths too.
// So storage code that calls POSIX (SQLite's unix VFS, a hand-written WAL)
// runs on the disk with its latency, faults and power cuts. A simulated
// descriptor is a real descriptor of /dev/null underneath; a shared mmap
// of one is memory the host's processes share (SQLite's WAL index in its
// -shm file), detached by a truncation or a power cut. Every
// other path and descriptor goes to libc as before, but for a simulated
// process's descriptors 0, 1 and 2 (and dup()s of them): read() and write()
// there are the process's standard streams (stdio.cpp; C stdio on them:
// src/interpose/stdio.cpp). Calls glibc
// declares non-throwing (ftruncate, unlink, rename) take effect without
// the disk's time passing: a process must not unwind through them.
#include <simasio/detail/interpose.hpp>

#include "real_symbol.hpp"

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <type_traits>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

namespace sim = simasio::detail::interpose;

unsigned mode_arg(int flags, va_list ap) noexcept {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? va_arg(ap, unsigned) : 0u;
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const unsigned mode = mode_arg(flags, ap);
  va_end(ap);
  if (sim::sim_path(path)) return sim::file_open(path, flags, mode);
  SIMASIO_REAL(open, int (*)(const char*, int, ...));
  return real_open != nullptr ? real_open(path, flags, mode)
                              : static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const unsigned mode = mode_arg(flags, ap);
  va_end(ap);
  if (sim::sim_path(path)) return sim::file_open(path, flags, mode);
  SIMASIO_REAL(open64, int (*)(const char*, int, ...));
  return real_open64 != nullptr ? real_open64(path, flags, mode)
                                : static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}

int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const unsigned mode = mode_arg(flags, ap);
  va_end(ap);
  if (sim::sim_path(path)) return sim::file_open(path, flags, mode);  // absolute: dirfd does not matter
  SIMASIO_REAL(openat, int (*)(int, const char*, int, ...));
  return real_openat != nullptr ? real_openat(dirfd, path, flags, mode)
                                : static_cast<int>(::syscall(SYS_openat, dirfd, path, flags, mode));
}

int openat64(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const unsigned mode = mode_arg(flags, ap);
  va_end(ap);
  if (sim::sim_path(path)) return sim::file_open(path, flags, mode);
  SIMASIO_REAL(openat64, int (*)(int, const char*, int, ...));
  return real_openat64 != nullptr ? real_openat64(dirfd, path, flags, mode)
                                  : static_cast<int>(::syscall(SYS_openat, dirfd, path, flags, mode));
}

int close(int fd) {
  if (sim::sim_fd(fd)) return sim::file_close(fd);
  if (sim::sim_desc(fd)) return sim::desc_close(fd);
  if (sim::active()) sim::stdio_close(fd);
  SIMASIO_REAL(close, int (*)(int));
  return real_close != nullptr ? real_close(fd) : static_cast<int>(::syscall(SYS_close, fd));
}

ssize_t read(int fd, void* buf, size_t n) {
  if (sim::sim_fd(fd)) return sim::file_read(fd, buf, n, -1);
  if (sim::sim_desc(fd)) return sim::desc_read(fd, buf, n);
  if (long r = 0; sim::active() && sim::stdio_read(fd, buf, n, r)) return r;
  SIMASIO_REAL(read, ssize_t (*)(int, void*, size_t));
  return real_read != nullptr ? real_read(fd, buf, n) : ::syscall(SYS_read, fd, buf, n);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (sim::sim_fd(fd)) return sim::file_write(fd, buf, n, -1);
  if (sim::sim_desc(fd)) return sim::desc_write(fd, buf, n);
  if (long r = 0; sim::active() && sim::stdio_write(fd, buf, n, r)) return r;
  SIMASIO_REAL(write, ssize_t (*)(int, const void*, size_t));
  return real_write != nullptr ? real_write(fd, buf, n) : ::syscall(SYS_write, fd, buf, n);
}

int dup(int fd) __THROW {
  if (sim::sim_desc(fd)) return sim::desc_dup(fd, -1, 0);
  SIMASIO_REAL(dup, int (*)(int));
  const int to = real_dup != nullptr ? real_dup(fd) : static_cast<int>(::syscall(SYS_dup, fd));
  if (to >= 0 && sim::active()) sim::stdio_dup(fd, to);
  return to;
}

ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  if (sim::sim_fd(fd)) return offset < 0 ? (errno = EINVAL, -1) : sim::file_read(fd, buf, n, offset);
  SIMASIO_REAL(pread, ssize_t (*)(int, void*, size_t, off_t));
  return real_pread(fd, buf, n, offset);
}

ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  if (sim::sim_fd(fd)) return offset < 0 ? (errno = EINVAL, -1) : sim::file_read(fd, buf, n, offset);
  SIMASIO_REAL(pread64, ssize_t (*)(int, void*, size_t, off64_t));
  return real_pread64(fd, buf, n, offset);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (sim::sim_fd(fd)) return offset < 0 ? (errno = EINVAL, -1) : sim::file_write(fd, buf, n, offset);
  SIMASIO_REAL(pwrite, ssize_t (*)(int, const void*, size_t, off_t));
  return real_pwrite(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  if (sim::sim_fd(fd)) return offset < 0 ? (errno = EINVAL, -1) : sim::file_write(fd, buf, n, offset);
  SIMASIO_REAL(pwrite64, ssize_t (*)(int, const void*, size_t, off64_t));
  return real_pwrite64(fd, buf, n, offset);
}

off_t lseek(int fd, off_t offset, int whence) __THROW {
  if (sim::sim_fd(fd)) return sim::file_lseek(fd, offset, whence);
  SIMASIO_REAL(lseek, off_t (*)(int, off_t, int));
  return real_lseek(fd, offset, whence);
}

off64_t lseek64(int fd, off64_t offset, int whence) __THROW {
  if (sim::sim_fd(fd)) return sim::file_lseek(fd, offset, whence);
  SIMASIO_REAL(lseek64, off64_t (*)(int, off64_t, int));
  return real_lseek64(fd, offset, whence);
}

int fsync(int fd) {
  if (sim::sim_fd(fd)) return sim::file_sync(fd);
  SIMASIO_REAL(fsync, int (*)(int));
  return real_fsync(fd);
}

int fdatasync(int fd) {
  if (sim::sim_fd(fd)) return sim::file_sync(fd);
  SIMASIO_REAL(fdatasync, int (*)(int));
  return real_fdatasync(fd);
}

int ftruncate(int fd, off_t size) __THROW {
  if (sim::sim_fd(fd)) return sim::file_truncate(fd, size, false);
  SIMASIO_REAL(ftruncate, int (*)(int, off_t));
  return real_ftruncate(fd, size);
}

int ftruncate64(int fd, off64_t size) __THROW {
  if (sim::sim_fd(fd)) return sim::file_truncate(fd, size, false);
  SIMASIO_REAL(ftruncate64, int (*)(int, off64_t));
  return real_ftruncate64(fd, size);
}

int fstat(int fd, struct stat* st) __THROW {
  if (sim::sim_fd(fd)) return sim::file_fstat(fd, st);
  if (sim::sim_desc(fd)) return sim::desc_fstat(fd, st);
  SIMASIO_REAL(fstat, int (*)(int, struct stat*));
  return real_fstat(fd, st);
}

int fstat64(int fd, struct stat64* st) __THROW {
  if (sim::sim_fd(fd)) return sim::file_fstat(fd, st);
  if (sim::sim_desc(fd)) return sim::desc_fstat(fd, reinterpret_cast<struct stat*>(st));
  SIMASIO_REAL(fstat64, int (*)(int, struct stat64*));
  return real_fstat64(fd, st);
}

int stat(const char* path, struct stat* st) __THROW {
  if (sim::sim_path(path)) return sim::file_stat(path, st);
  SIMASIO_REAL(stat, int (*)(const char*, struct stat*));
  return real_stat(path, st);
}

int stat64(const char* path, struct stat64* st) __THROW {
  if (sim::sim_path(path)) return sim::file_stat(path, st);
  SIMASIO_REAL(stat64, int (*)(const char*, struct stat64*));
  return real_stat64(path, st);
}

int lstat(const char* path, struct stat* st) __THROW {
  if (sim::sim_path(path)) return sim::file_stat(path, st);
  SIMASIO_REAL(lstat, int (*)(const char*, struct stat*));
  return real_lstat(path, st);
}

int lstat64(const char* path, struct stat64* st) __THROW {
  if (sim::sim_path(path)) return sim::file_stat(path, st);
  SIMASIO_REAL(lstat64, int (*)(const char*, struct stat64*));
  return real_lstat64(path, st);
}

int access(const char* path, int mode) __THROW {
  if (sim::sim_path(path)) return sim::file_access(path, mode);
  SIMASIO_REAL(access, int (*)(const char*, int));
  return real_access(path, mode);
}

int unlink(const char* path) __THROW {
  if (sim::sim_path(path)) return sim::file_unlink(path, false);
  SIMASIO_REAL(unlink, int (*)(const char*));
  return real_unlink(path);
}

int rename(const char* from, const char* to) __THROW {
  if (sim::sim_path(from) || sim::sim_path(to)) {
    if (!sim::sim_path(from) || !sim::sim_path(to)) return errno = EXDEV, -1;  // another file system
    return sim::file_rename(from, to, false);
  }
  SIMASIO_REAL(rename, int (*)(const char*, const char*));
  return real_rename(from, to);
}

int mkdir(const char* path, mode_t mode) __THROW {
  if (sim::sim_path(path)) return 0;  // directories of the simulated disk exist implicitly
  SIMASIO_REAL(mkdir, int (*)(const char*, mode_t));
  return real_mkdir(path, mode);
}

int rmdir(const char* path) __THROW {
  if (sim::sim_path(path)) return 0;
  SIMASIO_REAL(rmdir, int (*)(const char*));
  return real_rmdir(path);
}

int fchmod(int fd, mode_t mode) __THROW {
  if (sim::sim_fd(fd)) return 0;  // no permissions on the simulated disk
  SIMASIO_REAL(fchmod, int (*)(int, mode_t));
  return real_fchmod(fd, mode);
}

int fchown(int fd, uid_t owner, gid_t group) __THROW {
  if (sim::sim_fd(fd)) return 0;
  SIMASIO_REAL(fchown, int (*)(int, uid_t, gid_t));
  return real_fchown(fd, owner, group);
}

int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (sim::sim_fd(fd)) return sim::file_fcntl(fd, cmd, arg);
  if (sim::sim_desc(fd)) return sim::desc_fcntl(fd, cmd, reinterpret_cast<long>(arg));
  SIMASIO_REAL(fcntl, int (*)(int, int, ...));
  return real_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (sim::sim_fd(fd)) return sim::file_fcntl(fd, cmd, arg);
  if (sim::sim_desc(fd)) return sim::desc_fcntl(fd, cmd, reinterpret_cast<long>(arg));
  SIMASIO_REAL(fcntl64, int (*)(int, int, ...));
  return real_fcntl64(fd, cmd, arg);
}

void* mmap(void* address, size_t length, int prot, int flags, int fd, off_t offset) __THROW {
  if (fd >= 0 && sim::sim_fd(fd)) return sim::file_mmap(fd, length, prot, flags, offset);
  SIMASIO_REAL(mmap, void* (*)(void*, size_t, int, int, int, off_t));
  return real_mmap(address, length, prot, flags, fd, offset);
}

void* mmap64(void* address, size_t length, int prot, int flags, int fd, off64_t offset) __THROW {
  if (fd >= 0 && sim::sim_fd(fd)) return sim::file_mmap(fd, length, prot, flags, offset);
  SIMASIO_REAL(mmap64, void* (*)(void*, size_t, int, int, int, off64_t));
  return real_mmap64(address, length, prot, flags, fd, offset);
}

int munmap(void* address, size_t length) __THROW {
  if (sim::active()) {
    const int rc = sim::file_munmap(address, length);
    if (rc != -2) return rc;
  }
  SIMASIO_REAL(munmap, int (*)(void*, size_t));
  return real_munmap(address, length);
}

}  // extern "C"

