// signal_service.cpp — delivering host::raise signals to simulated signal sets
#include <simasio/detail/signal_service.hpp>

#include <simasio/detail/access.hpp>
#include <simasio/detail/sim_context.hpp>

#include <algorithm>

namespace simasio::detail {

signal_service::signal_service(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx), ctx_(&access::state(sim_context_of(ctx, "signal_set"))) {
  ctx_->sources.push_back(this);
}

signal_service::~signal_service() {
  auto& sources = ctx_->sources;
  sources.erase(std::remove(sources.begin(), sources.end(), static_cast<pending_source*>(this)), sources.end());
}

void signal_service::remove(signal_set_state& s) noexcept {
  sets_.erase(std::remove(sets_.begin(), sets_.end(), &s), sets_.end());
}

void signal_service::start(signal_set_state& s, signal_op& op) {
  op.set_ = &s;
  s.waiting.push_back(&op);
  deliver(s);
}

void signal_service::cancel_op(signal_op& op) noexcept {
  if (op.set_ == nullptr) return;
  auto& waiting = op.set_->waiting;
  waiting.erase(std::remove(waiting.begin(), waiting.end(), &op), waiting.end());
  op.set_ = nullptr;
  op.ec_ = boost::asio::error::operation_aborted;
  if (ctx_->core != nullptr) ctx_->core->post_ready(*ctx_, &op);
}

// Pairs undelivered signals with waiting operations, oldest first.
void signal_service::deliver(signal_set_state& s) {
  while (!s.undelivered.empty() && !s.waiting.empty()) {
    signal_op* op = s.waiting.front();
    s.waiting.pop_front();
    op->set_ = nullptr;
    op->ec_ = {};
    op->signal_ = s.undelivered.front();
    s.undelivered.pop_front();
    ctx_->core->post_ready(*ctx_, op);
  }
}

std::size_t signal_service::cancel(signal_set_state& s) noexcept {
  std::size_t n = 0;
  while (!s.waiting.empty()) {
    signal_op* op = s.waiting.front();
    s.waiting.pop_front();
    op->set_ = nullptr;
    op->ec_ = boost::asio::error::operation_aborted;
    op->signal_ = 0;
    if (ctx_->core != nullptr) ctx_->core->post_ready(*ctx_, op);
    ++n;
  }
  return n;
}

void signal_service::raise(int sig) {
  for (signal_set_state* s : sets_) {
    if (s->signals.count(sig) == 0) continue;
    // Like Asio, a signal raised while nobody waits is kept for the next wait.
    s->undelivered.push_back(sig);
    deliver(*s);
  }
}

void signal_service::abandon() noexcept {
  std::vector<signal_op*> ops;
  for (signal_set_state* s : sets_) {
    for (signal_op* op : s->waiting) op->set_ = nullptr;
    ops.insert(ops.end(), s->waiting.begin(), s->waiting.end());
    s->waiting.clear();
  }
  for (signal_op* op : ops) {
    op->destroy();
    --ctx_->work;
  }
}

void signal_service::describe(std::vector<std::string>& out) const {
  for (const signal_set_state* s : sets_) {
    for (std::size_t i = 0; i < s->waiting.size(); ++i) {
      std::string sigs;
      for (int sig : s->signals) sigs += (sigs.empty() ? "" : ",") + std::to_string(sig);
      out.push_back("signal_set::async_wait for signal(s) " + (sigs.empty() ? std::string("none") : sigs) +
                    " (host::raise delivers them)");
    }
  }
}

}  // namespace simasio::detail
