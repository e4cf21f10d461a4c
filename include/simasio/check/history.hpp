// simasio/check/history.hpp — client operations with their virtual invoke and return times
#ifndef SIMASIO_CHECK_HISTORY_HPP
#define SIMASIO_CHECK_HISTORY_HPP

#include <simasio/detail/current.hpp>
#include <simasio/detail/world_core.hpp>
#include <simasio/error.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace simasio {

/// One operation of a history: who invoked what, when, and what came back.
template <class Input, class Output>
struct history_operation {
  std::uint32_t client = 0;  ///< who invoked it (numbered as the caller chooses)
  Input input{};             ///< what the client asked
  /// What the client got; empty while pending, for an indeterminate
  /// operation (a timeout: it may or may not have taken effect), and for
  /// one that returned with an unknown output (history::complete_unknown).
  std::optional<Output> output;
  std::int64_t call_ns = 0;  ///< world time of the invocation
  /// World time of the response; never_returned for a pending or
  /// indeterminate operation. An operation with a response time took
  /// effect by then, whether its output is known or not.
  std::int64_t return_ns = never_returned;
  /// Timed out (history::timeout): it may or may not have taken effect.
  bool indeterminate = false;
  /// The return_ns of an operation that has not returned (the latest time).
  static constexpr std::int64_t never_returned = std::numeric_limits<std::int64_t>::max();
};

/// Records what clients asked of a system and what they got, on the
/// world's virtual time, for simasio::check_linearizable.
///
/// @code
/// simasio::history<kv_input, kv_output> h;
/// auto id = h.invoke(client, {kv_input::get, "x"});
/// ... co_await the RPC ...
/// if (ok) h.complete(id, reply); else h.timeout(id);
/// @endcode
/// invoke/complete/timeout read the time of the world running on the
/// calling thread; the overloads with a time take it from the caller.
template <class Input, class Output>
class history {
 public:
  /// One recorded operation.
  using operation = history_operation<Input, Output>;
  /// An operation's number: its index in operations(), from 0.
  using id = std::size_t;

  /// A client invokes an operation now. @returns its id.
  /// @throws usage_error when no simasio::world is alive on this thread.
  id invoke(std::uint32_t client, Input input) { return invoke(client, std::move(input), now_ns()); }
  /// Client @p client invoked @p input at world time @p at_ns
  /// (nanoseconds, as world::now().count()). @returns its id.
  id invoke(std::uint32_t client, Input input, std::int64_t at_ns) {
    operation op;
    op.client = client;
    op.input = std::move(input);
    op.call_ns = at_ns;
    ops_.push_back(std::move(op));
    return ops_.size() - 1;
  }
  /// Operation @p op returned @p output now.
  /// @throws usage_error if @p op was never invoked, or no simasio::world
  /// is alive on this thread.
  void complete(id op, Output output) { complete(op, std::move(output), now_ns()); }
  /// Operation @p op returned @p output at world time @p at_ns
  /// (nanoseconds; a time before its invocation counts as its invocation's).
  /// @throws usage_error if @p op was never invoked.
  void complete(id op, Output output, std::int64_t at_ns) {
    operation& o = at(op);
    o.output = std::move(output);
    o.return_ns = at_ns < o.call_ns ? o.call_ns : at_ns;
  }
  /// Operation @p op returned now, and took effect by now, but what it
  /// returned is not known (Jepsen records a timed-out read this way): any
  /// output the model allows fits.
  /// @throws usage_error if @p op was never invoked, or no simasio::world
  /// is alive on this thread.
  void complete_unknown(id op) { complete_unknown(op, now_ns()); }
  /// Operation @p op returned at world time @p at_ns with an unknown output
  /// (nanoseconds; a time before its invocation counts as its invocation's).
  /// @throws usage_error if @p op was never invoked.
  void complete_unknown(id op, std::int64_t at_ns) {
    operation& o = at(op);
    o.indeterminate = false;
    o.output.reset();
    o.return_ns = at_ns < o.call_ns ? o.call_ns : at_ns;
  }
  /// Operation @p op timed out or failed in a way that says nothing about
  /// whether it took effect: it may have, at any moment after its invocation.
  /// @throws usage_error if @p op was never invoked.
  void timeout(id op) {
    operation& o = at(op);
    o.indeterminate = true;
    o.output.reset();
    o.return_ns = operation::never_returned;
  }

  /// Every operation invoked so far, indexed by id.
  const std::vector<operation>& operations() const noexcept { return ops_; }
  /// How many operations were invoked.
  std::size_t size() const noexcept { return ops_.size(); }
  /// Forgets every operation; ids start again from 0.
  void clear() noexcept { ops_.clear(); }

 private:
  operation& at(id op) {
    if (op >= ops_.size())
      throw usage_error("simasio::history: operation id " + std::to_string(op) + " was never invoked (" +
                        std::to_string(ops_.size()) + " operations recorded)");
    return ops_[op];
  }
  static std::int64_t now_ns() {
    detail::world_core* core = detail::current_core();
    if (core == nullptr)
      throw usage_error(
          "simasio::history: invoke/complete without a time need a simasio::world alive on this thread; pass the "
          "time (world.now().count()) explicitly otherwise");
    return core->now().count();
  }

  std::vector<operation> ops_;
};

}  // namespace simasio

#endif  // SIMASIO_CHECK_HISTORY_HPP
