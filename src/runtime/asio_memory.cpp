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

asio_memory_scope::fiber_switch::fiber_switch() noexcept : stepped_aside_(nullptr) {
  asio_memory_scope* s = innermost_scope;
  if (s != nullptr && s->pushed_ && call_stack::top() == &s->cache_) {
    s->pushed_.reset();
    stepped_aside_ = s;
  }
}

asio_memory_scope::fiber_switch::~fiber_switch() {
  if (stepped_aside_ != nullptr) stepped_aside_->push();  // above what the fiber left running
}

}  // namespace simasio::detail
