// simasio/trace/export.hpp — a run's trace as JSON lines, Chrome trace events, and an HTML diagram
#ifndef SIMASIO_TRACE_EXPORT_HPP
#define SIMASIO_TRACE_EXPORT_HPP

#include <simasio/trace/trace.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace simasio {

// Each writer takes @p omitted: how many earlier events of the run are not
// in @p events (check() keeps the last check_options::max_trace_events);
// when it is not 0, the file says so at its top.

/// One JSON object a line: {"step":..,"t_ns":..,"host":"..","kind":"..","a":..,"b":..};
/// with omitted events, a first line {"omitted_events":N,"note":".."}.
void write_json_lines(const std::string& path, const std::vector<trace_event>& events,
                      const std::vector<std::string>& host_names, std::uint64_t omitted = 0);

/// Chrome trace event format (opens in Perfetto and chrome://tracing): one
/// track per host, an instant per event, a flow arrow per delivered packet.
void write_chrome_trace(const std::string& path, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted = 0);

/// A self-contained HTML page drawing a sequence diagram: hosts as lanes,
/// packets as arrows from send to delivery, drops, duplicates, faults,
/// crashes and restarts marked, virtual time down the page.
void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted = 0);

}  // namespace simasio

#endif  // SIMASIO_TRACE_EXPORT_HPP
