// simasio/detail/recycler.hpp — per-world free lists for operation memory
#ifndef SIMASIO_DETAIL_RECYCLER_HPP
#define SIMASIO_DETAIL_RECYCLER_HPP

#include <cstddef>
#include <new>

namespace simasio::detail {

// Operations are allocated and freed at every step; a free list per size
// class makes that a few instructions. Memory is returned when the world
// dies. Addresses never influence any decision (DESIGN.md §4).
class recycler {
 public:
  static constexpr std::size_t granule = 16;
  static constexpr std::size_t classes = 48;  // blocks up to 768 bytes are recycled

  recycler() = default;
  recycler(const recycler&) = delete;
  recycler& operator=(const recycler&) = delete;
  ~recycler() {
    for (node*& head : free_) {
      while (head != nullptr) {
        node* n = head;
        head = n->next;
        ::operator delete(static_cast<void*>(n));
      }
    }
  }

  void* allocate(std::size_t size) {
    const std::size_t c = (size + granule - 1) / granule;
    if (c < classes) {
      if (node* n = free_[c]) {
        free_[c] = n->next;
        return n;
      }
      return ::operator new(c * granule);
    }
    return ::operator new(size);
  }

  void deallocate(void* p, std::size_t size) noexcept {
    const std::size_t c = (size + granule - 1) / granule;
    if (c < classes) {
      node* n = static_cast<node*>(p);
      n->next = free_[c];
      free_[c] = n;
      return;
    }
    ::operator delete(p);
  }

 private:
  struct node {
    node* next;
  };
  node* free_[classes] = {};
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_RECYCLER_HPP
