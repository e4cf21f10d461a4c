// name_hash.hpp — FNV-1a over a name: seeds that follow names (hosts, streams), never creation order
#ifndef SIMASIO_SRC_NAME_HASH_HPP
#define SIMASIO_SRC_NAME_HASH_HPP

#include <cstdint>
#include <string_view>

namespace simasio::detail {

inline std::uint64_t name_hash(std::string_view s) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

}  // namespace simasio::detail

#endif  // SIMASIO_SRC_NAME_HASH_HPP
