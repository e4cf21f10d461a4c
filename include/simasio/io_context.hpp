// simasio/io_context.hpp — the drop-in io_context and its standard executor
#ifndef SIMASIO_IO_CONTEXT_HPP
#define SIMASIO_IO_CONTEXT_HPP

#include <simasio/detail/config.hpp>

#include <simasio/clock.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>

#include <boost/asio/execution.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/defer.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace simasio {

class host;
class world;
namespace detail {
struct access;
}

/// A simulated io_context: Asio's execution context, run by a world.
///
/// Handlers posted here run one at a time when the world's scheduler picks
/// this context (DESIGN.md §3). With `concurrency_hint == 1` (the default)
/// it models one thread calling run(): its own handlers run in FIFO order.
/// With a larger hint it models a thread pool: any ready handler may run
/// next, so code that forgot a strand shows its race on some seeds.
///
/// `run()` and friends drive the whole world (every host keeps running, as
/// real machines would) until this context has no work left, and return
/// the number of this context's handlers that ran. When a run ends because
/// the context ran out of work, the context is stopped, exactly like
/// Asio's; call restart() before running it again.
///
/// @par Determinism
/// Which runnable context goes next is a scheduler draw (none when only one
/// is runnable); within a pool context, which ready handler goes next is one.
class io_context : public boost::asio::execution_context {
 public:
  template <typename Allocator, std::uintptr_t Bits>
  class basic_executor_type;
  /// The standard executor of this context (Asio's properties model).
  using executor_type = basic_executor_type<std::allocator<void>, 0>;
  class strand;
  class work;
  using count_type = std::size_t;

  /// Joins the current world's "localhost" host (127.0.0.1 on itself,
  /// world::localhost().address() to other hosts), or the thread's default
  /// world (seeded from SIMASIO_SEED) when there is none.
  io_context();
  /// As io_context(), modelling @p concurrency_hint threads.
  explicit io_context(int concurrency_hint);
  /// A context on @p h modelling @p concurrency_hint threads.
  explicit io_context(host& h, int concurrency_hint = 1);
  io_context(const io_context&) = delete;
  io_context& operator=(const io_context&) = delete;
  ~io_context();

  executor_type get_executor() noexcept;

  /// Runs the world until this context has no work or is stopped.
  count_type run();
  /// Runs the world until one handler of this context ran.
  count_type run_one();
  /// Runs the world for at most @p rel_time of virtual time.
  template <typename Rep, typename Period>
  count_type run_for(const std::chrono::duration<Rep, Period>& rel_time) {
    return run_for_ns(detail::saturating_ns(rel_time), max_count());
  }
  /// Runs the world until @p abs_time at the latest. @p Clock must be a
  /// simasio clock: a deadline read on a real clock would differ from run
  /// to run and break replay.
  template <typename Clock, typename Duration>
  count_type run_until(const std::chrono::time_point<Clock, Duration>& abs_time) {
    static_assert(detail::sim_clock_traits<Clock>::value,
                  "simasio::io_context::run_until needs a simasio clock time point (simasio::steady_clock or "
                  "simasio::system_clock): a real clock's now() would make the run differ from seed to replay");
    return run_for(abs_time - Clock::now());
  }
  template <typename Rep, typename Period>
  count_type run_one_for(const std::chrono::duration<Rep, Period>& rel_time) {
    return run_for_ns(detail::saturating_ns(rel_time), 1);
  }
  template <typename Clock, typename Duration>
  count_type run_one_until(const std::chrono::time_point<Clock, Duration>& abs_time) {
    static_assert(detail::sim_clock_traits<Clock>::value,
                  "simasio::io_context::run_one_until needs a simasio clock time point (simasio::steady_clock "
                  "or simasio::system_clock)");
    return run_one_for(abs_time - Clock::now());
  }
  /// Runs this context's ready handlers; virtual time does not move.
  count_type poll();
  /// Runs at most one ready handler of this context.
  count_type poll_one();

  void stop();
  bool stopped() const noexcept { return state_.stopped; }
  void restart();
  /// Deprecated Asio name of restart().
  void reset() { restart(); }

  /// A simulated context cannot follow a fork: the world, its hosts and
  /// their sockets live in this process only, and a child would run a copy
  /// of them that nothing else can reach.
  /// @throws usage_error naming the fork, for every @p event.
  [[noreturn]] void notify_fork(boost::asio::execution_context::fork_event event);

  /// The host this context belongs to.
  /// @throws usage_error if the world was destroyed before this context.
  host& get_host() {
    if (host_ == nullptr) SIMASIO_UNLIKELY throw_orphaned("io_context::get_host");
    return *host_;
  }
  /// The world this context belongs to.
  /// @throws usage_error if the world was destroyed before this context.
  world& get_world();
  /// How many threads this context models.
  int concurrency_hint() const noexcept { return state_.concurrency; }

#if !defined(BOOST_ASIO_NO_DEPRECATED)
  /// Deprecated Asio members, kept so old code compiles unchanged.
  template <typename Handler>
  auto dispatch(Handler&& handler);
  template <typename Handler>
  auto post(Handler&& handler);
  /// A function object that, when called, dispatches @p handler with the
  /// call's arguments on this context.
  template <typename Handler>
  auto wrap(Handler handler);
  /// As run(), run_one(), poll() and poll_one(), @p ec cleared first (as
  /// Asio's: a handler's exception still propagates).
  count_type run(boost::system::error_code& ec) {
    ec = {};
    return run();
  }
  count_type run_one(boost::system::error_code& ec) {
    ec = {};
    return run_one();
  }
  count_type poll(boost::system::error_code& ec) {
    ec = {};
    return poll();
  }
  count_type poll_one(boost::system::error_code& ec) {
    ec = {};
    return poll_one();
  }
#endif

 private:
  friend class world;
  friend struct detail::access;
  // The world core this context runs on. @throws usage_error naming
  // @p used_by if the world was destroyed first.
  detail::world_core& sim_core(const char* used_by) const {
    if (state_.core == nullptr) SIMASIO_UNLIKELY throw_orphaned(used_by);
    return *state_.core;
  }
  // Throws the usage_error for a use of this context (by @p used_by) after
  // its world was destroyed.
  [[noreturn]] void throw_orphaned(std::string_view used_by) const;
  struct join_default {};
  io_context(join_default, int concurrency_hint);
  void init(host& h, int concurrency_hint);
  void register_live();
  // A call from a thread that runs no world on an io_context that no longer
  // exists is a usage_error, not a use of freed memory.
  void check_caller(const char* used_by) const;
  void orphan() noexcept;  // the world dies first
  count_type run_for_ns(duration rel, count_type max);
  count_type poll_up_to(count_type max);
  count_type drive(const detail::run_limits& limits, const char* used_by);
  static constexpr count_type max_count() noexcept { return static_cast<count_type>(-1); }

  detail::context_state state_;
  host* host_ = nullptr;  // null once orphaned: the host died with the world
  bool holds_default_world_ = false;
  // What the orphan's usage_error names, kept when the world goes.
  std::string orphaned_host_;
  std::uint64_t orphaned_seed_ = 0;
};

namespace detail {
struct executor_bits {
  static constexpr std::uintptr_t blocking_never = 1;
  static constexpr std::uintptr_t relationship_continuation = 2;
  static constexpr std::uintptr_t outstanding_work_tracked = 4;
};

// io_context::wrap and strand::wrap: a call of @p handler with copies of
// @p args (decayed), to run later.
template <typename Handler, typename... Args>
auto bind_copies(Handler handler, Args&&... args) {
  return [h = std::move(handler), a = std::make_tuple(std::decay_t<Args>(std::forward<Args>(args))...)]() mutable {
    std::apply(h, a);
  };
}
}  // namespace detail

/// The executor of a simulated io_context: Asio's standard executor model
/// (context, blocking, relationship, outstanding_work, allocator, mapping)
/// plus the Networking TS members Asio's own io_context executor has.
///
/// `blocking.possibly` (the default) runs the function inline when called
/// from a handler of the same context, like Asio's dispatch; otherwise it
/// is queued. `outstanding_work.tracked` counts one unit of work for as long
/// as the executor lives, so work guards keep run() going.
template <typename Allocator, std::uintptr_t Bits>
class io_context::basic_executor_type : private detail::executor_bits {
  static constexpr bool tracked = (Bits & outstanding_work_tracked) != 0;

 public:
  basic_executor_type(const basic_executor_type& o) noexcept : ctx_(o.ctx_), alloc_(o.alloc_), bits_(o.bits_) {
    if constexpr (tracked)
      if (ctx_ != nullptr) ++ctx_->state_.work;
  }
  basic_executor_type(basic_executor_type&& o) noexcept : ctx_(o.ctx_), alloc_(std::move(o.alloc_)), bits_(o.bits_) {
    if constexpr (tracked) o.ctx_ = nullptr;
  }
  ~basic_executor_type() {
    if constexpr (tracked)
      if (ctx_ != nullptr) --ctx_->state_.work;
  }
  basic_executor_type& operator=(const basic_executor_type& o) noexcept {
    if (this != &o) {
      io_context* old = ctx_;
      ctx_ = o.ctx_;
      alloc_ = o.alloc_;
      bits_ = o.bits_;
      if constexpr (tracked) {
        if (ctx_ != nullptr) ++ctx_->state_.work;
        if (old != nullptr) --old->state_.work;
      }
    }
    return *this;
  }
  basic_executor_type& operator=(basic_executor_type&& o) noexcept {
    if (this != &o) {
      io_context* old = ctx_;
      ctx_ = o.ctx_;
      alloc_ = std::move(o.alloc_);
      bits_ = o.bits_;
      if constexpr (tracked) {
        o.ctx_ = nullptr;
        if (old != nullptr) --old->state_.work;
      }
    }
    return *this;
  }

  // ---- require ---------------------------------------------------------
  constexpr basic_executor_type require(boost::asio::execution::blocking_t::possibly_t) const {
    return basic_executor_type(ctx_, alloc_, bits_ & ~blocking_never);
  }
  constexpr basic_executor_type require(boost::asio::execution::blocking_t::never_t) const {
    return basic_executor_type(ctx_, alloc_, bits_ | blocking_never);
  }
  constexpr basic_executor_type require(boost::asio::execution::relationship_t::fork_t) const {
    return basic_executor_type(ctx_, alloc_, bits_ & ~relationship_continuation);
  }
  constexpr basic_executor_type require(boost::asio::execution::relationship_t::continuation_t) const {
    return basic_executor_type(ctx_, alloc_, bits_ | relationship_continuation);
  }
  basic_executor_type<Allocator, Bits | outstanding_work_tracked> require(
      boost::asio::execution::outstanding_work_t::tracked_t) const {
    return basic_executor_type<Allocator, Bits | outstanding_work_tracked>(ctx_, alloc_, bits_);
  }
  basic_executor_type<Allocator, Bits & ~outstanding_work_tracked> require(
      boost::asio::execution::outstanding_work_t::untracked_t) const {
    return basic_executor_type<Allocator, Bits & ~outstanding_work_tracked>(ctx_, alloc_, bits_);
  }
  template <typename OtherAllocator>
  basic_executor_type<OtherAllocator, Bits> require(
      boost::asio::execution::allocator_t<OtherAllocator> a) const {
    return basic_executor_type<OtherAllocator, Bits>(ctx_, a.value(), bits_);
  }
  basic_executor_type<std::allocator<void>, Bits> require(boost::asio::execution::allocator_t<void>) const {
    return basic_executor_type<std::allocator<void>, Bits>(ctx_, std::allocator<void>(), bits_);
  }

  // ---- query -------------------------------------------------------------
  static constexpr boost::asio::execution::mapping_t query(boost::asio::execution::mapping_t) noexcept {
    return boost::asio::execution::mapping.thread;
  }
  io_context& query(boost::asio::execution::context_t) const noexcept {
    ctx_->state_.context_queried = true;  // a real Asio object may be built on it: see world_core
    return *ctx_;
  }
  constexpr boost::asio::execution::blocking_t query(boost::asio::execution::blocking_t) const noexcept {
    return (bits_ & blocking_never) ? boost::asio::execution::blocking_t(boost::asio::execution::blocking.never)
                                    : boost::asio::execution::blocking_t(boost::asio::execution::blocking.possibly);
  }
  constexpr boost::asio::execution::relationship_t query(boost::asio::execution::relationship_t) const noexcept {
    return (bits_ & relationship_continuation)
               ? boost::asio::execution::relationship_t(boost::asio::execution::relationship.continuation)
               : boost::asio::execution::relationship_t(boost::asio::execution::relationship.fork);
  }
  static constexpr boost::asio::execution::outstanding_work_t query(
      boost::asio::execution::outstanding_work_t) noexcept {
    return tracked ? boost::asio::execution::outstanding_work_t(boost::asio::execution::outstanding_work.tracked)
                   : boost::asio::execution::outstanding_work_t(boost::asio::execution::outstanding_work.untracked);
  }
  template <typename OtherAllocator>
  constexpr Allocator query(boost::asio::execution::allocator_t<OtherAllocator>) const noexcept {
    return alloc_;
  }
  constexpr Allocator query(boost::asio::execution::allocator_t<void>) const noexcept { return alloc_; }

  /// True inside a handler of this context.
  bool running_in_this_thread() const noexcept {
    const detail::world_core* core = ctx_->state_.core;
    return core != nullptr && core->running_in(ctx_->state_);
  }

  friend bool operator==(const basic_executor_type& a, const basic_executor_type& b) noexcept {
    return a.ctx_ == b.ctx_ && a.bits_ == b.bits_ && a.alloc_ == b.alloc_;
  }
  friend bool operator!=(const basic_executor_type& a, const basic_executor_type& b) noexcept {
    return !(a == b);
  }

  /// Runs @p f inline (blocking.possibly, inside this context) or queues it.
  template <typename Function>
  void execute(Function&& f) const {
    using function_type = std::decay_t<Function>;
    detail::world_core& core = ctx_->sim_core("a post or dispatch to its executor");
    detail::context_state& st = ctx_->state_;
    core.check_thread(st);
    if ((bits_ & blocking_never) == 0 && core.running_in(st)) {
      function_type tmp(std::forward<Function>(f));
      try {
        tmp();
      } catch (...) {
        core.capture_exception();  // rethrown when the current handler returns, as Asio does
      }
      return;
    }
    using op = detail::function_op<function_type, Allocator>;
    core.post_new(st, detail::new_op<op>(core, alloc_, std::forward<Function>(f), alloc_, core));
  }

  // ---- Networking TS members (Asio's io_context executor has them too) ----
  io_context& context() const noexcept { return *ctx_; }
  void on_work_started() const noexcept { ++ctx_->state_.work; }
  void on_work_finished() const noexcept { --ctx_->state_.work; }
  template <typename Function, typename OtherAllocator>
  void dispatch(Function&& f, const OtherAllocator& a) const {
    require(boost::asio::execution::blocking.possibly)
        .require(boost::asio::execution::allocator(a))
        .execute(std::forward<Function>(f));
  }
  template <typename Function, typename OtherAllocator>
  void post(Function&& f, const OtherAllocator& a) const {
    require(boost::asio::execution::blocking.never)
        .require(boost::asio::execution::relationship.fork)
        .require(boost::asio::execution::allocator(a))
        .execute(std::forward<Function>(f));
  }
  template <typename Function, typename OtherAllocator>
  void defer(Function&& f, const OtherAllocator& a) const {
    require(boost::asio::execution::blocking.never)
        .require(boost::asio::execution::relationship.continuation)
        .require(boost::asio::execution::allocator(a))
        .execute(std::forward<Function>(f));
  }

 private:
  friend class io_context;
  template <typename, std::uintptr_t>
  friend class basic_executor_type;

  constexpr basic_executor_type(io_context* ctx, const Allocator& a, std::uintptr_t bits) noexcept
      : ctx_(ctx), alloc_(a), bits_(bits & ~outstanding_work_tracked) {
    if constexpr (tracked)
      if (ctx_ != nullptr) ++ctx_->state_.work;
  }

  io_context* ctx_;
  [[no_unique_address]] Allocator alloc_;
  std::uintptr_t bits_;  // blocking_never | relationship_continuation (runtime properties)
};

inline io_context::executor_type io_context::get_executor() noexcept {
  return executor_type(this, std::allocator<void>(), 0);
}

#if !defined(BOOST_ASIO_NO_DEPRECATED)
template <typename Handler>
auto io_context::dispatch(Handler&& handler) {
  return boost::asio::dispatch(get_executor(), std::forward<Handler>(handler));
}
template <typename Handler>
auto io_context::post(Handler&& handler) {
  return boost::asio::post(get_executor(), std::forward<Handler>(handler));
}
template <typename Handler>
auto io_context::wrap(Handler handler) {
  return [ex = get_executor(), h = std::move(handler)](auto&&... args) mutable {
    boost::asio::dispatch(ex, detail::bind_copies(std::move(h), std::forward<decltype(args)>(args)...));
  };
}
#endif

/// Asio's legacy `io_context::strand`: serialises the handlers it wraps.
/// Built on boost::asio::strand over this context's executor.
class io_context::strand {
 public:
  explicit strand(io_context& ctx) : impl_(ctx.get_executor()) {}

  io_context& context() const noexcept { return impl_.get_inner_executor().context(); }
  void on_work_started() const noexcept { context().get_executor().on_work_started(); }
  void on_work_finished() const noexcept { context().get_executor().on_work_finished(); }

  template <typename Function, typename Allocator>
  void dispatch(Function&& f, const Allocator& a) const {
    boost::asio::execution::execute(
        boost::asio::prefer(impl_, boost::asio::execution::blocking.possibly, boost::asio::execution::allocator(a)),
        std::forward<Function>(f));
  }
  template <typename Function, typename Allocator>
  void post(Function&& f, const Allocator& a) const {
    boost::asio::execution::execute(
        boost::asio::prefer(boost::asio::require(impl_, boost::asio::execution::blocking.never),
                            boost::asio::execution::relationship.fork, boost::asio::execution::allocator(a)),
        std::forward<Function>(f));
  }
  template <typename Function, typename Allocator>
  void defer(Function&& f, const Allocator& a) const {
    boost::asio::execution::execute(
        boost::asio::prefer(boost::asio::require(impl_, boost::asio::execution::blocking.never),
                            boost::asio::execution::relationship.continuation,
                            boost::asio::execution::allocator(a)),
        std::forward<Function>(f));
  }

#if !defined(BOOST_ASIO_NO_DEPRECATED)
  template <typename Handler>
  auto dispatch(Handler&& handler) {
    return boost::asio::dispatch(impl_, std::forward<Handler>(handler));
  }
  template <typename Handler>
  auto post(Handler&& handler) {
    return boost::asio::post(impl_, std::forward<Handler>(handler));
  }
  /// A function object that, when called, dispatches @p handler with the
  /// call's arguments on this strand.
  template <typename Handler>
  auto wrap(Handler handler) const {
    return [s = *this, h = std::move(handler)](auto&&... args) mutable {
      s.dispatch(detail::bind_copies(std::move(h), std::forward<decltype(args)>(args)...), std::allocator<void>());
    };
  }
#endif

  bool running_in_this_thread() const noexcept { return impl_.running_in_this_thread(); }

  friend bool operator==(const strand& a, const strand& b) noexcept { return a.impl_ == b.impl_; }
  friend bool operator!=(const strand& a, const strand& b) noexcept { return !(a == b); }

 private:
  boost::asio::strand<io_context::executor_type> impl_;
};

/// Asio's legacy `io_context::work`: keeps run() going while it lives.
class io_context::work {
 public:
  explicit work(io_context& ctx) noexcept : ctx_(&ctx) { ctx_->get_executor().on_work_started(); }
  work(const work& o) noexcept : ctx_(o.ctx_) { ctx_->get_executor().on_work_started(); }
  work& operator=(const work&) = delete;
  ~work() { ctx_->get_executor().on_work_finished(); }
  io_context& get_io_context() noexcept { return *ctx_; }

 private:
  io_context* ctx_;
};

}  // namespace simasio

#endif  // SIMASIO_IO_CONTEXT_HPP
