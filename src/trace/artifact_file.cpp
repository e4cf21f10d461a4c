// artifact_file.cpp — failure artifacts written whole or not at all (detail/artifact_file.hpp)
#include <simasio/detail/artifact_file.hpp>

#include <simasio/error.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace simasio::detail {

namespace {

std::string directory_of(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

[[noreturn]] void failed(const std::string& path, const char* what, int e) {
  throw artifact_error("simasio: artifact '" + path + "' " + what + " in directory '" + directory_of(path) +
                       "': " + std::strerror(e) + " (errno " + std::to_string(e) + ")");
}

}  // namespace

void write_artifact(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) failed(path, "could not be created", errno);
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(path.c_str());
      failed(path, "could not be written whole (its partial file was removed)", e);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(path.c_str());
    failed(path, "could not be closed (its partial file was removed)", e);
  }
}

void make_artifact_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw artifact_error("simasio: the artifact directory '" + dir + "' could not be created: " + ec.message() +
                         " (errno " + std::to_string(ec.value()) + ")");
}

}  // namespace simasio::detail
