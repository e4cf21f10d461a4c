// simasio/detail/recycler.hpp — per-world free lists for operation memory
#ifndef SIMASIO_DETAIL_RECYCLER_HPP
#define SIMASIO_DETAIL_RECYCLER_HPP

#include <cstddef>
#include <new>
#include <vector>

namespace simasio::detail {

/// Whether this translation unit is built with AddressSanitizer (which
/// replaces malloc).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool under_address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool under_address_sanitizer = true;
#else
inline constexpr bool under_address_sanitizer = false;
#endif
#else
inline constexpr bool under_address_sanitizer = false;
#endif

/// Whether simasio keeps freed blocks for reuse. Off under AddressSanitizer,
/// so that every use after free is still caught.
inline constexpr bool pool_allocations = !under_address_sanitizer;

// Operations are allocated and freed at every step; a free list per size
// class makes that a few instructions, and carving new blocks out of slabs
// keeps bursts (a million posts) away from malloc. Memory is returned when
// the world dies. Addresses never influence any decision (DESIGN.md §4).
// Sanitizer builds use plain new/delete so use-after-free stays visible.
class recycler {
 public:
  static constexpr std::size_t granule = 16;
  static constexpr std::size_t classes = 48;  // blocks up to 768 bytes are recycled
  static constexpr std::size_t slab_size = 64 * 1024;

  recycler() = default;
  recycler(const recycler&) = delete;
  recycler& operator=(const recycler&) = delete;
  ~recycler() {
    for (void* slab : slabs_) ::operator delete(slab);
  }

  void* allocate(std::size_t size) {
    const std::size_t c = (size + granule - 1) / granule;
    if (pooled && c < classes) {
      if (node* n = free_[c]) {
        free_[c] = n->next;
        return n;
      }
      return carve(c * granule);
    }
    return ::operator new(size);
  }

  void deallocate(void* p, std::size_t size) noexcept {
    const std::size_t c = (size + granule - 1) / granule;
    if (pooled && c < classes) {
      node* n = static_cast<node*>(p);
      n->next = free_[c];
      free_[c] = n;
      return;
    }
    ::operator delete(p);
  }

 private:
  static constexpr bool pooled = pool_allocations;

  void* carve(std::size_t n) {
    if (left_ < n) {
      slabs_.push_back(nullptr);  // grow first: a throw then leaks nothing
      next_ = static_cast<char*>(::operator new(slab_size));
      slabs_.back() = next_;
      left_ = slab_size;
    }
    void* p = next_;
    next_ += n;
    left_ -= n;
    return p;
  }

  struct node {
    node* next;
  };
  node* free_[classes] = {};
  std::vector<void*> slabs_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_RECYCLER_HPP
