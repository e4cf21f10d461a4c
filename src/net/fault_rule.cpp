// fault_rule.cpp — verdicts, packet kinds and the guard that removes a rule
#include <simasio/net/fault_rule.hpp>

#include <simasio/detail/format.hpp>
#include <simasio/detail/net/link.hpp>
#include <simasio/error.hpp>

#include <utility>

namespace simasio {

const char* to_string(packet_kind k) noexcept {
  switch (k) {
    case packet_kind::udp: return "udp";
    case packet_kind::tcp_syn: return "tcp_syn";
    case packet_kind::tcp_syn_ack: return "tcp_syn_ack";
    case packet_kind::tcp_rst: return "tcp_rst";
    case packet_kind::tcp_data: return "tcp_data";
    case packet_kind::tcp_fin: return "tcp_fin";
    case packet_kind::tcp_ack: return "tcp_ack";
  }
  return "unknown";
}

verdict verdict::delay(duration d) {
  if (d < duration::zero())
    throw config_error("simasio: verdict::delay(" + detail::format_time(d) +
                       "): a delay cannot be negative (use verdict::pass() for no delay)");
  return {action::delay, d};
}

rule_guard& rule_guard::operator=(rule_guard&& other) noexcept {
  if (this != &other) {
    remove();
    slot_ = std::move(other.slot_);
  }
  return *this;
}

void rule_guard::remove() noexcept {
  if (slot_ && slot_->link != nullptr) slot_->link->remove_rule(slot_->serial);
  slot_.reset();
}

bool rule_guard::active() const noexcept { return slot_ && slot_->link != nullptr; }

}  // namespace simasio
