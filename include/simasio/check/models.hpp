// simasio/check/models.hpp — ready sequential models for check_linearizable
#ifndef SIMASIO_CHECK_MODELS_HPP
#define SIMASIO_CHECK_MODELS_HPP

#include <string>
#include <tuple>

namespace simasio::models {

/// An operation on a register: write(value), or read().
template <class T = int>
struct register_op {
  bool write = false;  ///< true for write(value), false for read()
  T value{};           ///< the value a write writes
  /// A write of @p v.
  static register_op write_of(T v) { return {true, v}; }
  /// A read.
  static register_op read() { return {}; }
  /// Field-wise equality (and its negation).
  ///@{
  friend bool operator==(const register_op& a, const register_op& b) { return a.write == b.write && a.value == b.value; }
  friend bool operator!=(const register_op& a, const register_op& b) { return !(a == b); }
  ///@}
};

/// A single register that starts at T{}: write(v) outputs T{}, read()
/// outputs the value last written. A model for check_linearizable.
template <class T = int>
struct register_model {
  using state = T;               ///< the register's value
  using input = register_op<T>;  ///< a write or a read
  using output = T;              ///< T{} for a write, the value read for a read
  /// The register before any write: T{}.
  static state init() { return T{}; }
  /// Applies @p in to the register's value @p s; every operation is
  /// accepted. @returns (true, the output, the next value).
  static std::tuple<bool, output, state> step(const state& s, const input& in) {
    if (in.write) return {true, T{}, in.value};
    return {true, s, s};
  }
  /// "write(v)", or "read() -> v" ("read() -> ?" when @p out is null: a
  /// read that timed out or returned an unknown output), for
  /// check_linearizable's report.
  static std::string describe(const input& in, const output* out) {
    return in.write ? "write(" + std::to_string(in.value) + ")"
                    : "read() -> " + (out != nullptr ? std::to_string(*out) : std::string("?"));
  }
};

}  // namespace simasio::models

#endif  // SIMASIO_CHECK_MODELS_HPP
