// simasio/detail/signal_service.hpp — signal sets of one io_context and their pending waits
#ifndef SIMASIO_DETAIL_SIGNAL_SERVICE_HPP
#define SIMASIO_DETAIL_SIGNAL_SERVICE_HPP

#include <simasio/detail/handler_work.hpp>
#include <simasio/detail/op_memory.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/io_context.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution_context.hpp>

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <vector>

namespace simasio::detail {

struct signal_set_state;

class signal_op : public operation {
 public:
  boost::system::error_code ec_;
  int signal_ = 0;
  signal_set_state* set_ = nullptr;  // null once no longer waiting
  boost::asio::cancellation_slot slot_;

 protected:
  explicit signal_op(func_type f) noexcept : operation(f) {}
  ~signal_op() = default;
};

// The state of one signal_set: the signals it waits for, signals raised
// while nobody waited, and its waiting operations.
struct signal_set_state {
  context_state* ctx = nullptr;
  std::uint32_t incarnation = 0;  // of its host when created (host_state::incarnation)
  std::set<int> signals;
  std::deque<int> undelivered;
  std::deque<signal_op*> waiting;
};

// Every signal_set of one io_context; host::raise reaches them through it.
class signal_service final : public boost::asio::execution_context::service, public pending_source {
 public:
  using key_type = signal_service;
  inline static boost::asio::execution_context::id id;
  explicit signal_service(boost::asio::execution_context& ctx);
  ~signal_service() override;
  static signal_service& of(io_context& ctx) { return boost::asio::use_service<signal_service>(ctx); }

  void add(signal_set_state& s) { sets_.push_back(&s); }
  void remove(signal_set_state& s) noexcept;
  void start(signal_set_state& s, signal_op& op);
  std::size_t cancel(signal_set_state& s) noexcept;
  void cancel_op(signal_op& op) noexcept;
  // Delivers sig to every set of this context that has it.
  void raise(int sig);

  void abandon() noexcept override;
  void describe(std::vector<std::string>& out) const override;

 private:
  void shutdown() override { abandon(); }
  void deliver(signal_set_state& s);
  context_state* ctx_;
  std::vector<signal_set_state*> sets_;  // creation order
};

struct signal_cancellation {
  signal_service* service;
  signal_op* op;
  void operator()(boost::asio::cancellation_type_t type) const {
    using ct = boost::asio::cancellation_type;
    if ((type & (ct::terminal | ct::partial | ct::total)) != ct::none) service->cancel_op(*op);
  }
};

template <class Handler, class IoExecutor>
class signal_wait_op final : public handler_op<signal_op, Handler, IoExecutor> {
  using base = handler_op<signal_op, Handler, IoExecutor>;

 public:
  template <class H>
  signal_wait_op(H&& h, const IoExecutor& io_ex, const context_state& ctx, world_core& core)
      : base(&do_complete, std::forward<H>(h), io_ex, ctx, core) {}

 private:
  static void do_complete(operation* op, bool invoke) {
    auto* o = static_cast<signal_wait_op*>(op);
    base::finish(o, invoke, o->ec_, o->signal_);
  }
};

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_SIGNAL_SERVICE_HPP
