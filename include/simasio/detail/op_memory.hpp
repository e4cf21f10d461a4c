// simasio/detail/op_memory.hpp — allocating operations through the right allocator
#ifndef SIMASIO_DETAIL_OP_MEMORY_HPP
#define SIMASIO_DETAIL_OP_MEMORY_HPP

#include <simasio/detail/world_core.hpp>

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace simasio::detail {

template <class A>
struct is_std_allocator : std::false_type {};
template <class T>
struct is_std_allocator<std::allocator<T>> : std::true_type {};

// Operations whose handler has no allocator of its own come from the world's
// recycler (Asio's io_context does the same with its thread-local cache);
// otherwise the handler's associated allocator is used, as Asio requires.
template <class Op, class Alloc>
inline constexpr bool uses_recycler =
    is_std_allocator<Alloc>::value && alignof(Op) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__;

template <class Op, class Alloc, class... Args>
Op* new_op(world_core& core, const Alloc& alloc, Args&&... args) {
  if constexpr (uses_recycler<Op, Alloc>) {
    void* p = core.memory().allocate(sizeof(Op));
    try {
      return ::new (p) Op(std::forward<Args>(args)...);
    } catch (...) {
      core.memory().deallocate(p, sizeof(Op));
      throw;
    }
  } else {
    using op_alloc = typename std::allocator_traits<Alloc>::template rebind_alloc<Op>;
    op_alloc a(alloc);
    Op* p = std::allocator_traits<op_alloc>::allocate(a, 1);
    try {
      return ::new (static_cast<void*>(p)) Op(std::forward<Args>(args)...);
    } catch (...) {
      std::allocator_traits<op_alloc>::deallocate(a, p, 1);
      throw;
    }
  }
}

// Destroys and frees op; alloc must be a copy taken before (op owns the original).
template <class Op, class Alloc>
void delete_op(Op* op, world_core& core, const Alloc& alloc) noexcept {
  op->~Op();
  if constexpr (uses_recycler<Op, Alloc>) {
    core.memory().deallocate(op, sizeof(Op));
  } else {
    using op_alloc = typename std::allocator_traits<Alloc>::template rebind_alloc<Op>;
    op_alloc a(alloc);
    std::allocator_traits<op_alloc>::deallocate(a, op, 1);
  }
}

// A function object queued by an executor's execute().
template <class Function, class Alloc>
class function_op final : public operation {
 public:
  template <class F>
  function_op(F&& f, const Alloc& a, world_core& core)
      : operation(&do_complete), f_(std::forward<F>(f)), alloc_(a), core_(&core) {}

 private:
  static void do_complete(operation* base, bool invoke) {
    auto* o = static_cast<function_op*>(base);
    Function f(std::move(o->f_));
    const Alloc a(o->alloc_);
    world_core& core = *o->core_;
    delete_op(o, core, a);
    if (invoke) f();
  }

  Function f_;
  [[no_unique_address]] Alloc alloc_;
  world_core* core_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_OP_MEMORY_HPP
