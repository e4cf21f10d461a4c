// simasio/detail/fifo.hpp — a queue on one vector: nothing allocated until used
#ifndef SIMASIO_DETAIL_FIFO_HPP
#define SIMASIO_DETAIL_FIFO_HPP

#include <cstddef>
#include <utility>
#include <vector>

namespace simasio::detail {

// std::deque allocates a block as soon as it exists; a simulation keeps
// tens of thousands of idle sockets, each with several queues. This one
// costs three words until its first push, keeps its elements contiguous
// (byte streams copy out with one memcpy) and reclaims the consumed front
// lazily.
template <class T>
class fifo {
 public:
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  bool empty() const noexcept { return head_ == items_.size(); }
  std::size_t size() const noexcept { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  T& operator[](std::size_t i) { return items_[head_ + i]; }
  const T& operator[](std::size_t i) const { return items_[head_ + i]; }
  iterator begin() noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() noexcept { return items_.end(); }
  const_iterator begin() const noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const noexcept { return items_.end(); }
  T* data() noexcept { return items_.data() + head_; }

  void push_back(T v) { items_.push_back(std::move(v)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return items_.emplace_back(std::forward<Args>(args)...);
  }
  template <class It>
  void append(It first, It last) {
    items_.insert(items_.end(), first, last);
  }
  void push_front(T v) {
    if (head_ > 0) items_[--head_] = std::move(v);
    else items_.insert(items_.begin(), std::move(v));
  }
  void pop_back() { items_.pop_back(); }
  void pop_front(std::size_t n = 1) {
    head_ += n;
    if (head_ == items_.size()) {
      clear();
    } else if (head_ >= 64 && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() noexcept {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_FIFO_HPP
