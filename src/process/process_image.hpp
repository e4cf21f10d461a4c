// process_image.hpp — each simulated process's own globals of the libraries it uses, as a fresh exec gives (not installed)
//
// All simulated processes run in one OS process, so a library's globals
// (SQLite's table of open files and their locks, its one-time
// initialisation) would be shared by every process of every host and
// outlive a crash. For the libraries named in world_options::
// process_libraries, each process gets its own copy of their writable data
// (.data and .bss): a new process starts from the library's bytes as they
// were before any process ran, and a crashed incarnation's leftovers go
// with it. The live bytes are swapped when a process of another group
// starts to run (or a handler of an io_context that a process made), and
// put back when a run of the world returns to the test body.
#ifndef SIMASIO_SRC_PROCESS_IMAGE_HPP
#define SIMASIO_SRC_PROCESS_IMAGE_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace simasio::detail {

// The writable data of the libraries whose globals are per process, found
// once per OS process, with their bytes as they were then.
class image_registry {
 public:
  struct region {
    std::string library;
    char* base = nullptr;
    std::size_t size = 0;
    std::vector<char> pristine;
  };
  // The registry of this OS process, its regions found (for the libraries
  // whose file names contain one of `names`) on first use.
  static const image_registry& get(const std::vector<std::string>& names);
  const std::vector<region>& regions() const noexcept { return regions_; }
  std::size_t bytes() const noexcept { return bytes_; }
  // Whether [p, p + 1) lies in a region, and which.
  int region_of(const void* p) const noexcept;

 private:
  std::vector<region> regions_;
  std::size_t bytes_ = 0;
};

// One world's copies: which owner's bytes are live, and everyone else's.
class process_images {
 public:
  explicit process_images(const image_registry& r) : registry_(&r) {}
  ~process_images();
  process_images(const process_images&) = delete;
  process_images& operator=(const process_images&) = delete;

  // Makes owner's bytes live (owner: a process group + 1; 0: the code
  // outside every process). A new owner starts from the pristine bytes.
  void switch_to(std::uint32_t owner);
  std::uint32_t live() const noexcept { return live_; }
  // The owner's process ended: its bytes are gone.
  void forget(std::uint32_t owner) noexcept;
  const image_registry& registry() const noexcept { return *registry_; }

 private:
  void save(std::uint32_t owner);
  void load(std::uint32_t owner);
  const image_registry* registry_;
  std::uint32_t live_ = 0;
  std::map<std::uint32_t, std::vector<char>> saved_;  // by owner; 0 is what the test program had
};

}  // namespace simasio::detail

#endif  // SIMASIO_SRC_PROCESS_IMAGE_HPP
