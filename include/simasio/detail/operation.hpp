// simasio/detail/operation.hpp — the unit the scheduler runs: a queued completion
#ifndef SIMASIO_DETAIL_OPERATION_HPP
#define SIMASIO_DETAIL_OPERATION_HPP

#include <cstddef>
#include <cstdint>

namespace simasio::detail {

// A type-erased completion. complete() runs it, destroy() drops it without
// running; both free it. A function pointer, not a vtable, like Asio's ops.
class operation {
 public:
  using func_type = void (*)(operation* op, bool invoke);

  void complete() { func_(this, true); }
  void destroy() { func_(this, false); }

  operation* next_ = nullptr;  // intrusive FIFO link
  std::uint64_t seq_ = 0;      // world-wide enqueue order: FIFO picks and the trace

 protected:
  explicit operation(func_type f) noexcept : func_(f) {}
  ~operation() = default;

 private:
  func_type func_;
};

// Intrusive FIFO of operations.
class op_queue {
 public:
  op_queue() = default;
  op_queue(const op_queue&) = delete;
  op_queue& operator=(const op_queue&) = delete;
  op_queue(op_queue&& o) noexcept : head_(o.head_), tail_(o.tail_), size_(o.size_) {
    o.head_ = o.tail_ = nullptr;
    o.size_ = 0;
  }

  bool empty() const noexcept { return head_ == nullptr; }
  std::size_t size() const noexcept { return size_; }
  operation* front() const noexcept { return head_; }

  void push(operation* op) noexcept {
    op->next_ = nullptr;
    if (tail_ != nullptr) tail_->next_ = op;
    else head_ = op;
    tail_ = op;
    ++size_;
  }

  operation* pop() noexcept {
    operation* op = head_;
    head_ = op->next_;
    if (head_ == nullptr) tail_ = nullptr;
    op->next_ = nullptr;
    --size_;
    return op;
  }

  // Removes the i-th operation (0 = front). Pool contexts pick any ready op.
  operation* take_at(std::size_t i) noexcept {
    if (i == 0) return pop();
    operation* prev = head_;
    for (std::size_t k = 1; k < i; ++k) prev = prev->next_;
    operation* op = prev->next_;
    prev->next_ = op->next_;
    if (tail_ == op) tail_ = prev;
    op->next_ = nullptr;
    --size_;
    return op;
  }

 private:
  operation* head_ = nullptr;
  operation* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_OPERATION_HPP
