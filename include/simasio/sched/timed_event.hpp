// simasio/sched/timed_event.hpp — events due at a virtual instant, and their heap
#ifndef SIMASIO_SCHED_TIMED_EVENT_HPP
#define SIMASIO_SCHED_TIMED_EVENT_HPP

#include <simasio/world_options.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simasio::detail {

// Something that happens at a virtual instant: a timer expiry, a packet
// arrival. Owned by whoever scheduled it; it must be cancelled before it dies.
class timed_event {
 public:
  using fire_func = void (*)(timed_event*);

  timed_event(fire_func f, void* owner) noexcept : fire_(f), owner_(owner) {}
  timed_event(const timed_event&) = delete;
  timed_event& operator=(const timed_event&) = delete;

  bool scheduled() const noexcept { return where_ != place::idle; }
  duration when() const noexcept { return when_; }
  std::uint64_t seq() const noexcept { return seq_; }
  void* owner() const noexcept { return owner_; }
  std::uint32_t context_id = 0xFFFFFFFFu;  // for the trace; set by the scheduler of the event

 private:
  friend class event_heap;
  friend class world_core;
  enum class place : std::uint8_t { idle, heap, batch };

  fire_func fire_;
  void* owner_;
  duration when_{0};
  std::uint64_t seq_ = 0;
  std::size_t pos_ = 0;
  place where_ = place::idle;
};

// Binary min-heap ordered by (when, seq); each event knows its position so
// cancellation is O(log n) and never leaves stale entries behind.
class event_heap {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  timed_event* top() const noexcept { return heap_.front(); }

  void push(timed_event* ev) {
    ev->where_ = timed_event::place::heap;
    ev->pos_ = heap_.size();
    heap_.push_back(ev);
    sift_up(ev->pos_);
  }

  timed_event* pop() {
    timed_event* ev = heap_.front();
    remove_at(0);
    return ev;
  }

  void remove(timed_event* ev) { remove_at(ev->pos_); }

  const std::vector<timed_event*>& items() const noexcept { return heap_; }

 private:
  static bool before(const timed_event* a, const timed_event* b) noexcept {
    return a->when_ < b->when_ || (a->when_ == b->when_ && a->seq_ < b->seq_);
  }
  void place_at(std::size_t i, timed_event* ev) noexcept {
    heap_[i] = ev;
    ev->pos_ = i;
  }
  void sift_up(std::size_t i) noexcept {
    timed_event* ev = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(ev, heap_[parent])) break;
      place_at(i, heap_[parent]);
      i = parent;
    }
    place_at(i, ev);
  }
  void sift_down(std::size_t i) noexcept {
    timed_event* ev = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], ev)) break;
      place_at(i, heap_[child]);
      i = child;
    }
    place_at(i, ev);
  }
  void remove_at(std::size_t i) noexcept {
    timed_event* ev = heap_[i];
    ev->where_ = timed_event::place::idle;
    timed_event* last = heap_.back();
    heap_.pop_back();
    if (i < heap_.size()) {
      place_at(i, last);
      if (i > 0 && before(last, heap_[(i - 1) / 2])) sift_up(i);
      else sift_down(i);
    }
  }

  std::vector<timed_event*> heap_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_SCHED_TIMED_EVENT_HPP
