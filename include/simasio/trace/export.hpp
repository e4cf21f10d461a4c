// simasio/trace/export.hpp — a run's trace as JSON lines, Chrome trace events, and an HTML diagram
#ifndef SIMASIO_TRACE_EXPORT_HPP
#define SIMASIO_TRACE_EXPORT_HPP

#include <simasio/trace/trace.hpp>

#include <string>
#include <vector>

namespace simasio {

/// One JSON object a line: {"step":..,"t_ns":..,"host":"..","kind":"..","a":..,"b":..}.
void write_json_lines(const std::string& path, const std::vector<trace_event>& events,
                      const std::vector<std::string>& host_names);

/// Chrome trace event format (opens in Perfetto and chrome://tracing): one
/// track per host, an instant per event, a flow arrow per delivered packet.
void write_chrome_trace(const std::string& path, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names);

/// A self-contained HTML page drawing a sequence diagram: hosts as lanes,
/// packets as arrows from send to delivery, drops, duplicates, faults,
/// crashes and restarts marked, virtual time down the page.
void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names);

}  // namespace simasio

#endif  // SIMASIO_TRACE_EXPORT_HPP
