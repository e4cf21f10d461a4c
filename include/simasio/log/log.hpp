// simasio/log/log.hpp — spdlog with virtual time: per-host loggers, a ring per run
#ifndef SIMASIO_LOG_LOG_HPP
#define SIMASIO_LOG_LOG_HPP

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include <memory>
#include <string>
#include <vector>

namespace simasio {
class host;
class world;
}  // namespace simasio

namespace simasio::log {

/// The logger of @p h: lines carry the host's name and the virtual time on
/// the host's clock, stamped when the line is logged (DESIGN.md §7).
///
/// During a run, lines go to a bounded ring kept per world (the last
/// `ring_lines`); check() prints the ring of a failing seed only. With
/// `SIMASIO_LOG=<level>` (trace, debug, info, warn, error, critical, off) they
/// stream to stderr instead, from that level up.
/// @code
/// simasio::log::logger(host)->info("elected leader of term {}", term);
/// @endcode
std::shared_ptr<spdlog::logger> logger(host& h);

/// A sink for your own spdlog loggers: lines logged through it while a
/// world runs get that world's virtual time and the running host's name,
/// and land in the same ring (or stream). Add it to an existing logger:
/// @code
/// my_logger->sinks().push_back(simasio::log::sink());
/// @endcode
/// @throws escape_error when no world is alive on this thread.
std::shared_ptr<spdlog::sinks::sink> sink();

/// The ring's lines, oldest first (empty when streaming).
std::vector<std::string> recent_lines(world& w);

/// How many lines the ring keeps.
inline constexpr std::size_t ring_lines = 256;

}  // namespace simasio::log

#endif  // SIMASIO_LOG_LOG_HPP
