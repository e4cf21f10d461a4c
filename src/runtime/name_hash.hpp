// name_hash.hpp — FNV-1a over a name: seeds that follow names (hosts, streams), never creation order
#ifndef SIMASIO_SRC_NAME_HASH_HPP
#define SIMASIO_SRC_NAME_HASH_HPP

#include <cstdint>
#include <string_view>

namespace simasio::detail {

// FNV-1a going on from h, the hash of what came before s: the hash of a
// key made of parts, without making the key.
inline std::uint64_t name_hash_more(std::uint64_t h, std::string_view s) noexcept {
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

inline std::uint64_t name_hash(std::string_view s) noexcept { return name_hash_more(0xCBF29CE484222325ULL, s); }

}  // namespace simasio::detail

#endif  // SIMASIO_SRC_NAME_HASH_HPP
