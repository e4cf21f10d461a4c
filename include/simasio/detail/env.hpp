// simasio/detail/env.hpp — strict parsing of SIMASIO_* settings
#ifndef SIMASIO_DETAIL_ENV_HPP
#define SIMASIO_DETAIL_ENV_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

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

// Environment variable @p name as a whole number from @p lo to @p hi, or
// nullopt when unset. Anything else is a config_error that quotes the
// value and says what the setting counts (@p meaning, e.g. "worker
// threads") and its range, not the whole 64-bit one.
std::optional<std::uint64_t> env_in_range(const char* name, std::uint64_t lo, std::uint64_t hi,
                                          std::string_view meaning);

// Every SIMASIO_* variable the library reads.
extern const std::string_view known_settings[];
extern const std::size_t known_settings_count;

// The known setting closest to @p name (a SIMASIO_* variable's name) and
// its edit distance, or {"", large} when none is near.
std::pair<std::string_view, std::size_t> closest_setting(std::string_view name);

// Looks at every SIMASIO_* variable in the environment: one a single edit
// away from a known setting (SIMASIO_SEEED, SIMASIO_JOB) is a config_error
// naming it, since the sweep would otherwise run without it; any other
// unknown one gets a warning line on stderr, once per program.
void check_environment();

// The spdlog level SIMASIO_LOG names (as spdlog::level::level_enum), or
// nullopt when unset. @throws config_error for a name that is not a level.
std::optional<int> env_log_level();

}  // namespace simasio::detail

#endif  // SIMASIO_DETAIL_ENV_HPP
