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

/// Where a run failed, to mark on its diagram.
struct trace_failure {
  std::uint64_t step = 0;    ///< the step the failure was noticed at (failure::step)
  std::int64_t time_ns = 0;  ///< its virtual time (failure::time)
  std::string what;          ///< the exception's message, or the invariant's
};

/// The diagram of a failing seed, as check() writes it: each arrow
/// labelled (kind, ports, bytes, and a network::describe_packets
/// decoder's words), each host's log lines and timers on its lane at
/// their virtual time, topology changes, crashes, restarts and disk
/// faults, the failing step marked with @p failure's message, and
/// controls to show or hide hosts and kinds, filter arrows by their
/// labels and collapse instants where only handlers ran.
/// @param path the file to write.
/// @param title the page's title (check() writes the scenario, the seed and the failure).
/// @param events the run's recorded events (trace::events()).
/// @param host_names the hosts' names, by id.
/// @param omitted how many earlier events are not in @p events.
/// @param notes the run's packet labels and log lines (trace::annotations()).
/// @param failure where the run failed, or null for a run that did not.
/// @throws artifact_error (a std::runtime_error) naming the file, its
/// directory and errno when @p path cannot be written whole; what was
/// written of it is removed.
void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted,
                        const trace_annotations& notes, const trace_failure* failure = nullptr);

/// One recorded run, for write_html_comparison.
struct recorded_run {
  std::string label;                    ///< how the page names it ("seed 14", "shrunk tape")
  std::vector<trace_event> events;      ///< its events (trace::events())
  std::vector<std::string> host_names;  ///< its hosts' names, by id
  trace_annotations notes;              ///< its packet labels and log lines
  std::uint64_t omitted = 0;            ///< events left out before events
};

/// A self-contained HTML page putting two runs side by side, event by
/// event: the prefix they share folded away, the first event where they
/// part marked, and what each did from there on (packet labels and log
/// lines included), so a failing seed can be read against a passing one,
/// or a shrunk tape against the run it came from.
/// @param path the file to write.
/// @param title the page's title.
/// @param a the run shown on the left.
/// @param b the run shown on the right.
/// @throws artifact_error (a std::runtime_error) naming the file, its
/// directory and errno when @p path cannot be written whole; what was
/// written of it is removed.
void write_html_comparison(const std::string& path, const std::string& title, const recorded_run& a,
                           const recorded_run& b);

}  // namespace simasio

#endif  // SIMASIO_TRACE_EXPORT_HPP
