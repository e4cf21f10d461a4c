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

// A 4-ary min-heap ordered by (when, seq); each event knows its position so
// cancellation is O(log n) and never leaves stale entries behind. Keys sit
// in the heap's own entries, so sifting compares without chasing pointers,
// and four children share a cache line or two: half the depth of a binary
// heap for the million-timer case.
class event_heap {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  std::size_t size() const noexcept { return heap_.size(); }
  timed_event* top() const noexcept { return heap_.front().ev; }
  duration top_when() const noexcept { return duration(heap_.front().when); }

  void push(timed_event* ev) {
    ev->where_ = timed_event::place::heap;
    heap_.push_back(entry{ev->when_.count(), ev->seq_, ev});
    sift_up(heap_.size() - 1);
  }

  timed_event* pop() {
    timed_event* ev = heap_.front().ev;
    remove_at(0);
    return ev;
  }

  void remove(timed_event* ev) { remove_at(ev->pos_); }

  template <class F>
  void for_each(F&& f) const {
    for (const entry& e : heap_) f(*e.ev);
  }

 private:
  static constexpr std::size_t arity = 4;
  struct entry {
    std::int64_t when;
    std::uint64_t seq;
    timed_event* ev;
  };
  static bool before(const entry& a, const entry& b) noexcept {
    return a.when < b.when || (a.when == b.when && a.seq < b.seq);
  }
  void place_at(std::size_t i, const entry& e) noexcept {
    heap_[i] = e;
    e.ev->pos_ = i;
  }
  void sift_up(std::size_t i) noexcept {
    const entry e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / arity;
      if (!before(e, heap_[parent])) break;
      place_at(i, heap_[parent]);
      i = parent;
    }
    place_at(i, e);
  }
  void sift_down(std::size_t i) noexcept {
    const entry e = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = arity * i + 1;
      if (first >= n) break;
      std::size_t child = first;
      const std::size_t last = first + arity < n ? first + arity : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[child])) child = c;
      if (!before(heap_[child], e)) break;
      place_at(i, heap_[child]);
      i = child;
    }
    place_at(i, e);
  }
  void remove_at(std::size_t i) noexcept {
    heap_[i].ev->where_ = timed_event::place::idle;
    const entry last = heap_.back();
    heap_.pop_back();
    if (i < heap_.size()) {
      heap_[i] = last;
      if (i > 0 && before(last, heap_[(i - 1) / arity])) sift_up(i);
      else sift_down(i);
    }
  }

  std::vector<entry> heap_;
};

}  // namespace simasio::detail

#endif  // SIMASIO_SCHED_TIMED_EVENT_HPP
