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

// One argument of a test program's command line: the N of
// `--simasio-seed=N`, or nullopt for an argument that is not simasio's.
// @throws config_error for a malformed N or an unknown `--simasio-` option;
// @p usage ends that message with what the program understands.
std::optional<std::uint64_t> seed_argument(std::string_view arg, std::string_view usage);

// The value of environment variable @p name parsed by parse_u64, or
// nullopt when unset. An empty or malformed value is a config_error.
std::optional<std::uint64_t> env_u64(const char* name);

// The raw value of @p name, or nullopt when unset.
std::optional<std::string> env_string(const char* name);

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ENV_HPP
