// simasio/check/models.hpp — ready sequential models for check_linearizable
#ifndef SIMASIO_CHECK_MODELS_HPP
#define SIMASIO_CHECK_MODELS_HPP

#include <string>
#include <tuple>

namespace simasio::models {

/// An operation on a register: write(value), or read().
template <class T = int>
struct register_op {
  bool write = false;
  T value{};
  static register_op write_of(T v) { return {true, v}; }
  static register_op read() { return {}; }
  friend bool operator==(const register_op& a, const register_op& b) { return a.write == b.write && a.value == b.value; }
  friend bool operator!=(const register_op& a, const register_op& b) { return !(a == b); }
};

/// A single register that starts at T{}: write(v) outputs T{}, read()
/// outputs the value last written. A model for check_linearizable.
template <class T = int>
struct register_model {
  using state = T;
  using input = register_op<T>;
  using output = T;
  static state init() { return T{}; }
  static std::tuple<bool, output, state> step(const state& s, const input& in) {
    if (in.write) return {true, T{}, in.value};
    return {true, s, s};
  }
  static std::string describe(const input& in, const output* out) {
    return in.write ? "write(" + std::to_string(in.value) + ")"
                    : "read() -> " + (out != nullptr ? std::to_string(*out) : std::string("timeout"));
  }
};

}  // namespace simasio::models

#endif  // SIMASIO_CHECK_MODELS_HPP
