// simasio/detail/env.hpp — strict parsing of SIMASIO_* settings
#ifndef SIMASIO_DETAIL_ENV_HPP
#define SIMASIO_DETAIL_ENV_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simasio::detail {

// Parses a whole decimal (or 0x-prefixed hexadecimal) unsigned 64-bit
// number. @throws config_error naming @p what and the expected form.
std::uint64_t parse_u64(std::string_view text, std::string_view what);

// The value of environment variable @p name parsed by parse_u64, or
// nullopt when unset. An empty or malformed value is a config_error.
std::optional<std::uint64_t> env_u64(const char* name);

// The raw value of @p name, or nullopt when unset.
std::optional<std::string> env_string(const char* name);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ENV_HPP
