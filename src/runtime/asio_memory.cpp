// asio_memory.cpp — Asio's recycling cache while the world runs (asio_memory.hpp)
#include "asio_memory.hpp"

namespace simasio::detail {

namespace {

// The innermost run of a world on this thread (asio_memory.hpp).
constinit thread_local asio_memory_scope* innermost_scope = nullptr;

}  // namespace

asio_memory_scope::asio_memory_scope() noexcept : outer_(innermost_scope) {
  innermost_scope = this;
  if constexpr (pool_allocations) push();
}

asio_memory_scope::~asio_memory_scope() {
  pushed_.reset();
  innermost_scope = outer_;
}

// Asio's call stack of schedulers is a private static of call_stack; an
// explicit instantiation may name it (access is not checked there), which
// is how the fiber switch reads and sets its top.
using thread_call_stack =
    boost::asio::detail::call_stack<boost::asio::detail::thread_context, boost::asio::detail::thread_info_base>;
using call_stack_top = boost::asio::detail::tss_ptr<thread_call_stack::context>;

template <call_stack_top* Top>
struct call_stack_access {
  friend call_stack_top& asio_call_stack_top() noexcept { return *Top; }
};
call_stack_top& asio_call_stack_top() noexcept;
template struct call_stack_access<&thread_call_stack::top_>;

asio_memory_scope::fiber_switch::fiber_switch(void*& fiber_top) noexcept
    : stepped_aside_(nullptr), fiber_top_(fiber_top) {
  asio_memory_scope* s = innermost_scope;
  if (s != nullptr && s->pushed_ && call_stack::top() == &s->cache_) {
    s->pushed_.reset();
    stepped_aside_ = s;
  }
  call_stack_top& top = asio_call_stack_top();
  outer_top_ = static_cast<thread_call_stack::context*>(top);
  top = static_cast<thread_call_stack::context*>(fiber_top_);
}

asio_memory_scope::fiber_switch::~fiber_switch() {
  call_stack_top& top = asio_call_stack_top();
  fiber_top_ = static_cast<thread_call_stack::context*>(top);
  top = static_cast<thread_call_stack::context*>(outer_top_);
  if (stepped_aside_ != nullptr) stepped_aside_->push();  // above what the fiber left running
}

}  // namespace simasio::detail
