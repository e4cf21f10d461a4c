// trace_export.cpp — JSON lines, Chrome trace events and an HTML sequence diagram
#include <simasio/trace/export.hpp>

#include <simasio/error.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace simasio {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '<': out += "\\u003c"; break;  // safe inside an HTML <script>
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// The event's host as JSON: its name, or null for world-wide events.
std::string host_of(const trace_event& e, const std::vector<std::string>& names) {
  if (e.host == no_host) return "null";
  return json_string(e.host < names.size() ? names[e.host] : "#" + std::to_string(e.host));
}

// ,"packet":17,"reason":"lost" — the named fields of event_fields, never raw a and b.
std::string json_fields(const trace_event& e, const std::vector<std::string>& names) {
  std::string out;
  for (const trace_field& f : event_fields(e, names)) {
    out += ",\"";
    out += f.name;
    out += "\":";
    out += f.quoted ? json_string(f.value) : f.value;
  }
  return out;
}

// What a bounded artifact says about the events it left out.
std::string omitted_note(std::uint64_t omitted, std::size_t kept) {
  return "the first " + std::to_string(omitted) + " events of this run are left out; these are its last " +
         std::to_string(kept) + " (check_options::max_trace_events)";
}

std::ofstream open_for_writing(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("simasio: cannot write the trace artifact '" + path + "'");
  return out;
}

}  // namespace

void write_json_lines(const std::string& path, const std::vector<trace_event>& events,
                      const std::vector<std::string>& host_names, std::uint64_t omitted) {
  std::ofstream out = open_for_writing(path);
  if (omitted != 0)
    out << "{\"omitted_events\":" << omitted << ",\"note\":" << json_string(omitted_note(omitted, events.size())) << "}\n";
  for (const trace_event& e : events)
    out << "{\"step\":" << e.step << ",\"t_ns\":" << e.time_ns << ",\"host\":" << host_of(e, host_names)
        << ",\"kind\":\"" << to_string(e.kind) << '"' << json_fields(e, host_names) << "}\n";
}

void write_chrome_trace(const std::string& path, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted) {
  std::ofstream out = open_for_writing(path);
  out << "{\"displayTimeUnit\":\"ns\",";
  if (omitted != 0)
    out << "\"otherData\":{\"omitted_events\":" << omitted << ",\"note\":" << json_string(omitted_note(omitted, events.size()))
        << "},";
  out << "\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  // One thread (track) per host, named; events without a host on track 0.
  sep();
  out << R"({"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"world"}})";
  for (std::size_t i = 0; i < host_names.size(); ++i) {
    sep();
    out << R"({"ph":"M","pid":1,"tid":)" << i + 1 << R"(,"name":"thread_name","args":{"name":)"
        << json_string(host_names[i]) << "}}";
  }
  for (const trace_event& e : events) {
    const std::uint64_t tid = e.host == no_host ? 0 : e.host + 1;
    const double ts = static_cast<double>(e.time_ns) / 1000.0;  // microseconds
    sep();
    out << R"({"ph":"i","s":"t","pid":1,"tid":)" << tid << ",\"ts\":" << ts << ",\"name\":\"" << to_string(e.kind)
        << "\",\"args\":{\"step\":" << e.step << json_fields(e, host_names) << "}}";
    // Packets: a flow arrow from the send to the delivery.
    if (e.kind == event_kind::net_send || e.kind == event_kind::net_deliver) {
      sep();
      out << "{\"ph\":\"" << (e.kind == event_kind::net_send ? "s" : "f") << R"(","bp":"e","cat":"packet","name":"packet","id":)"
          << e.a << ",\"pid\":1,\"tid\":" << tid << ",\"ts\":" << ts << "}";
    }
  }
  out << "\n]}\n";
}

void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted) {
  std::ofstream out = open_for_writing(path);
  out << R"(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>)"
      << html_escape(title) << R"(</title>
<style>
body { font: 12px sans-serif; margin: 0; }
h1 { font-size: 14px; margin: 8px; }
.lane { stroke: #999; stroke-width: 1; }
.host { font-weight: bold; text-anchor: middle; }
.time { fill: #666; text-anchor: end; }
.message { stroke: #2a6fdb; stroke-width: 1.2; marker-end: url(#arrow); }
.drop { fill: #d22; font-weight: bold; text-anchor: middle; }
.drop-reason { fill: #d22; font-size: 10px; }
.duplicate { fill: #e90; text-anchor: middle; }
.fault { stroke: #c0c; stroke-dasharray: 4 3; }
.fault-label { fill: #c0c; }
.crash { fill: #d22; }
.restart { fill: #2a2; }
.step { fill: #bbb; }
.disk-fault { fill: #e60; font-weight: bold; text-anchor: middle; }
.disk-label { font-size: 10px; }
.kept { fill: #2a2; } .lost { fill: #d22; } .torn { fill: #e90; }
</style></head><body>
<h1>)" << html_escape(title)
      << R"(</h1>
<p style="margin:8px">Hosts are lanes, virtual time runs down the page (one row per instant),
arrows are packets from send to delivery; <span style="color:#d22">&#x2715;</span> a drop and its reason,
<span style="color:#e90">&#x2687;</span> a duplicate, dashed lines topology changes,
red and green bars crashes and restarts, <span style="color:#e60">&#x26a0;</span> a disk fault, and
<span style="color:#2a2">&#x25a0;</span>/<span style="color:#d22">&#x25a0;</span>/<span style="color:#e90">&#x25a0;</span>
what a power cut did to each unsynced write or directory entry (kept, lost, torn). Hover a mark for its event.</p>
)";
  if (omitted != 0) out << "<p style=\"margin:8px\"><b>" << html_escape(omitted_note(omitted, events.size())) << "</b></p>\n";
  out << R"(<div id="diagram"></div>
<script>
const data = {"hosts":[)";
  for (std::size_t i = 0; i < host_names.size(); ++i) out << (i ? "," : "") << json_string(host_names[i]);
  out << "],\"events\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    const trace_event& e = events[i];
    // [step, t_ns, lane (-1: world-wide), kind, {named fields}]
    const std::string fields = json_fields(e, host_names);
    out << (i ? "," : "") << "[" << e.step << "," << e.time_ns << ","
        << (e.host == no_host ? -1 : static_cast<long long>(e.host)) << ",\"" << to_string(e.kind) << "\",{"
        << (fields.empty() ? fields : fields.substr(1)) << "}]";
  }
  out << R"(]};
(function () {
  const ns = "http://www.w3.org/2000/svg";
  const times = [...new Set(data.events.map(e => e[1]))].sort((a, b) => a - b);
  const row = new Map(times.map((t, i) => [t, i]));
  const laneX = h => 140 + h * 150, rowY = t => 60 + row.get(t) * 18;
  const width = 160 + Math.max(1, data.hosts.length) * 150, height = 90 + times.length * 18;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  const add = (tag, attrs, text) => {
    const el = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
    return el;
  };
  const defs = add("defs", {});
  const marker = document.createElementNS(ns, "marker");
  for (const [k, v] of Object.entries({id: "arrow", markerWidth: 8, markerHeight: 8, refX: 7, refY: 3, orient: "auto"}))
    marker.setAttribute(k, v);
  const tip = document.createElementNS(ns, "path");
  tip.setAttribute("d", "M0,0 L0,6 L7,3 z");
  tip.setAttribute("fill", "#2a6fdb");
  marker.appendChild(tip);
  defs.appendChild(marker);
  data.hosts.forEach((name, h) => {
    add("text", {class: "host", x: laneX(h), y: 30}, name);
    add("line", {class: "lane", x1: laneX(h), y1: 40, x2: laneX(h), y2: height - 20});
  });
  times.forEach(t => add("text", {class: "time", x: 80, y: rowY(t) + 4}, (t / 1e9).toFixed(6) + " s"));
  const sent = new Map();
  const labelsAt = new Map();  // several topology changes at one instant: labels side by side
  // Every mark carries its event's description as a tooltip, as describe() writes it.
  const describe = (step, t, host, kind, f) =>
    "step " + step + " t=" + (t / 1e9).toFixed(9) + "s" + (host >= 0 ? " host " + data.hosts[host] : "") + " " + kind +
    Object.entries(f).filter(([k, v]) => v !== null).map(([k, v]) => " " + k + "=" + v).join("");
  const titled = (el, label) => {
    const title = document.createElementNS(ns, "title");
    title.textContent = label;
    el.appendChild(title);
    return el;
  };
  for (const [step, t, host, kind, f] of data.events) {
    const label = describe(step, t, host, kind, f);
    if (kind === "net_send" && host >= 0) sent.set(f.packet, {host, t});
    else if (kind === "net_deliver" && host >= 0 && sent.has(f.packet)) {
      const s = sent.get(f.packet);
      titled(add("line", {class: "message", x1: laneX(s.host), y1: rowY(s.t), x2: laneX(host), y2: rowY(t)}), label);
    } else if (kind === "net_drop" && host >= 0) {
      titled(add("text", {class: "drop", x: laneX(host), y: rowY(t) + 4}, "\u2715"), label);
      add("text", {class: "drop-reason", x: laneX(host) + 8, y: rowY(t) + 4}, f.reason);
    } else if (kind === "net_duplicate" && host >= 0)
      titled(add("text", {class: "duplicate", x: laneX(host) + 10, y: rowY(t) + 4}, "\u2687"), label);
    else if (kind === "net_fault") {
      titled(add("line", {class: "fault", x1: 100, y1: rowY(t), x2: width - 10, y2: rowY(t)}), label);
      const k = labelsAt.get(t) || 0;
      labelsAt.set(t, k + 1);
      add("text", {class: "fault-label", x: width - 10, y: rowY(t) - 3 - 11 * k, "text-anchor": "end"},
          f.fault + (f.from ? " " + f.from : "") + (f.to ? " / " + f.to : ""));
    } else if (kind === "crash" && host >= 0)
      titled(add("rect", {class: "crash", x: laneX(host) - 6, y: rowY(t) - 4, width: 12, height: 8}), label);
    else if (kind === "restart" && host >= 0)
      titled(add("rect", {class: "restart", x: laneX(host) - 6, y: rowY(t) - 4, width: 12, height: 8}), label);
    else if (kind === "handler" && host >= 0) titled(add("circle", {class: "step", cx: laneX(host), cy: rowY(t), r: 2}), label);
    else if (kind === "disk_fault" && host >= 0) {
      titled(add("text", {class: "disk-fault", x: laneX(host), y: rowY(t) + 4}, "\u26a0"), label);
      add("text", {class: "disk-label disk-fault", x: laneX(host) + 10, y: rowY(t) + 4, "text-anchor": "start"}, f.fault);
    } else if (kind === "disk_resolve" && host >= 0) {
      const k = labelsAt.get("d" + host + "@" + t) || 0;  // several changes settled at one cut: side by side
      labelsAt.set("d" + host + "@" + t, k + 1);
      const cls = /lost/.test(f.outcome) ? "lost" : f.outcome === "torn" ? "torn" : "kept";
      titled(add("rect", {class: cls, x: laneX(host) + 10 + 7 * k, y: rowY(t) - 3, width: 6, height: 6}), label);
    }
  }
  document.getElementById("diagram").appendChild(svg);
})();
</script>
</body></html>
)";
}

}  // namespace simasio
