// process_image.cpp — per-process copies of the listed libraries' writable data
#include "process_image.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#if defined(__linux__)
#include <link.h>
#endif

namespace simasio::detail {

namespace {

#if defined(__linux__)
struct search {
  const std::vector<std::string>* names;
  std::vector<image_registry::region>* out;
};

// For each loaded object whose file name contains a listed name: its
// writable PT_LOAD range, less the part RELRO makes read-only after loading.
int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& s = *static_cast<search*>(data);
  const char* file = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (*file == '\0') return 0;  // the executable itself: its globals are the test program's
  const std::string_view name(file);
  const bool wanted = std::any_of(s.names->begin(), s.names->end(),
                                  [&](const std::string& n) { return !n.empty() && name.find(n) != name.npos; });
  if (!wanted) return 0;
  std::uintptr_t relro_begin = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_RELRO) {
      relro_begin = info->dlpi_addr + ph.p_vaddr;
      relro_end = relro_begin + ph.p_memsz;
    }
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) == 0) continue;
    std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    const std::uintptr_t end = begin + ph.p_memsz;
    // RELRO covers the start of the segment; rounded to a page, as mprotect does.
    if (relro_end > begin && relro_begin <= begin) begin = std::min(end, (relro_end + 4095) & ~std::uintptr_t{4095});
    if (begin >= end) continue;
    image_registry::region r;
    r.library = file;
    r.base = reinterpret_cast<char*>(begin);
    r.size = end - begin;
    s.out->push_back(std::move(r));
  }
  return 0;
}
#endif

}  // namespace

const image_registry& image_registry::get(const std::vector<std::string>& names) {
  static image_registry registry;
  static std::once_flag once;
  std::call_once(once, [&] {
#if defined(__linux__)
    search s{&names, &registry.regions_};
    ::dl_iterate_phdr(&visit, &s);
#endif
    for (region& r : registry.regions_) {
      r.pristine.assign(r.base, r.base + r.size);
      registry.bytes_ += r.size;
    }
  });
  return registry;
}

int image_registry::region_of(const void* p) const noexcept {
  const char* c = static_cast<const char*>(p);
  for (std::size_t i = 0; i < regions_.size(); ++i)
    if (c >= regions_[i].base && c < regions_[i].base + regions_[i].size) return static_cast<int>(i);
  return -1;
}

process_images::~process_images() {
  // The test program gets its bytes back: the next world starts from them.
  switch_to(0);
}

void process_images::save(std::uint32_t owner) {
  std::vector<char>& copy = saved_[owner];
  copy.resize(registry_->bytes());
  char* out = copy.data();
  for (const auto& r : registry_->regions()) {
    std::memcpy(out, r.base, r.size);
    out += r.size;
  }
}

void process_images::load(std::uint32_t owner) {
  const auto it = saved_.find(owner);
  const char* in = it != saved_.end() ? it->second.data() : nullptr;
  for (const auto& r : registry_->regions()) {
    std::memcpy(r.base, in != nullptr ? in : r.pristine.data(), r.size);
    if (in != nullptr) in += r.size;
  }
}

namespace {
constexpr std::uint32_t nobody = static_cast<std::uint32_t>(-1);  // live bytes of an owner that is gone
}  // namespace

void process_images::switch_to(std::uint32_t owner) {
  if (owner == live_ || registry_->regions().empty()) return;
  if (live_ != nobody) save(live_);
  load(owner);
  live_ = owner;
}

void process_images::forget(std::uint32_t owner) noexcept {
  if (owner == 0) return;
  saved_.erase(owner);
  // Its bytes stay live until another owner runs: they are nobody's now.
  if (live_ == owner) live_ = nobody;
}

}  // namespace simasio::detail
