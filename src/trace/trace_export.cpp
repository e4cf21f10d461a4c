// trace_export.cpp — JSON lines, Chrome trace events and an HTML sequence diagram
#include <simasio/trace/export.hpp>

#include <simasio/detail/artifact_file.hpp>
#include <simasio/detail/text_escape.hpp>
#include <simasio/error.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>

namespace simasio {
namespace {

std::string json_string(const std::string& s) { return detail::json_quoted(s); }

std::string html_escape(const std::string& s) { return detail::html_escaped(s); }

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

}  // namespace

void write_json_lines(const std::string& path, const std::vector<trace_event>& events,
                      const std::vector<std::string>& host_names, std::uint64_t omitted) {
  std::ostringstream out;
  if (omitted != 0)
    out << "{\"omitted_events\":" << omitted << ",\"note\":" << json_string(omitted_note(omitted, events.size())) << "}\n";
  for (const trace_event& e : events)
    out << "{\"step\":" << e.step << ",\"t_ns\":" << e.time_ns << ",\"host\":" << host_of(e, host_names)
        << ",\"kind\":\"" << to_string(e.kind) << '"' << json_fields(e, host_names) << "}\n";
  detail::write_artifact(path, out.str());
}

void write_chrome_trace(const std::string& path, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted) {
  std::ostringstream out;
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
  detail::write_artifact(path, out.str());
}

namespace {

// The events as the pages' scripts read them: [step, t_ns, lane (-1:
// world-wide), kind, {named fields}].
void write_events_json(std::ostream& out, const std::vector<trace_event>& events,
                       const std::vector<std::string>& host_names) {
  out << "[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    const trace_event& e = events[i];
    const std::string fields = json_fields(e, host_names);
    out << (i ? "," : "") << "[" << e.step << "," << e.time_ns << ","
        << (e.host == no_host ? -1 : static_cast<long long>(e.host)) << ",\"" << to_string(e.kind) << "\",{"
        << (fields.empty() ? fields : fields.substr(1)) << "}]";
  }
  out << "]";
}

// {"hosts":[..],"events":[..],"labels":{"17":"udp 5000->5000 24 B"},"logs":[[step,t,lane,level,text]]}
void write_run_json(std::ostream& out, const std::vector<trace_event>& events, const std::vector<std::string>& host_names,
                    const trace_annotations& notes) {
  out << "{\"hosts\":[";
  for (std::size_t i = 0; i < host_names.size(); ++i) out << (i ? "," : "") << json_string(host_names[i]);
  out << "],\"events\":";
  write_events_json(out, events, host_names);
  out << ",\"labels\":{";
  for (std::size_t i = 0; i < notes.packets.size(); ++i)
    out << (i ? "," : "") << "\"" << notes.packets[i].packet << "\":" << json_string(notes.packets[i].text);
  out << "},\"logs\":[";
  for (std::size_t i = 0; i < notes.logs.size(); ++i) {
    const auto& l = notes.logs[i];
    out << (i ? "," : "") << "[" << l.step << "," << l.time_ns << ","
        << (l.host == no_host ? -1 : static_cast<long long>(l.host)) << "," << json_string(l.level) << ","
        << json_string(l.text) << "]";
  }
  out << "]}";
}

// What the two pages share: how an event reads as one line of text.
constexpr const char* describe_js = R"js(
const seconds = t => (t / 1e9).toFixed(6) + " s";
const describe = (run, [step, t, host, kind, f]) => {
  let s = "step " + step + " t=" + (t / 1e9).toFixed(9) + "s" + (host >= 0 ? " " + run.hosts[host] : "") + " " + kind +
    Object.entries(f).filter(([k, v]) => v !== null).map(([k, v]) => " " + k + "=" + v).join("");
  if ((kind === "net_send" || kind === "net_deliver" || kind === "net_drop") && run.labels[f.packet] !== undefined)
    s += " [" + run.labels[f.packet] + "]";
  return s;
};
)js";

// A page's start, up to its own styles: the doctype, the title, the base styles.
void page_head(std::ostream& out, const std::string& title) {
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(title)
      << "</title>\n<style>\nbody { font: 12px sans-serif; margin: 0; }\nh1 { font-size: 14px; margin: 8px; }\n";
}

}  // namespace

void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted) {
  write_html_diagram(path, title, events, host_names, omitted, trace_annotations{}, nullptr);
}

void write_html_diagram(const std::string& path, const std::string& title, const std::vector<trace_event>& events,
                        const std::vector<std::string>& host_names, std::uint64_t omitted,
                        const trace_annotations& notes, const trace_failure* failure) {
  std::ostringstream out;
  page_head(out, title);
  out << R"js(.controls { margin: 4px 8px; line-height: 22px; }
.controls label { margin-right: 10px; white-space: nowrap; }
.failure-banner { margin: 4px 8px; padding: 6px; background: #fde8e8; border-left: 4px solid #d22; }
.lane { stroke: #999; stroke-width: 1; }
.host { font-weight: bold; text-anchor: middle; }
.time { fill: #666; text-anchor: end; }
.message { stroke: #2a6fdb; stroke-width: 1.2; marker-end: url(#arrow); }
.label { fill: #1a4f9b; font-size: 10px; text-anchor: middle; }
.log { fill: #333; font-size: 10px; font-family: monospace; }
.log-tick { fill: #555; }
.log-warn { fill: #b60; } .log-err { fill: #d22; }
.timer { fill: #777; text-anchor: middle; }
.drop { fill: #d22; font-weight: bold; text-anchor: middle; }
.drop-reason { fill: #d22; font-size: 10px; }
.duplicate { fill: #e90; text-anchor: middle; }
.fault { stroke: #c0c; stroke-dasharray: 4 3; }
.fault-label { fill: #c0c; }
.crash { fill: #d22; }
.restart { fill: #2a2; }
.step { fill: #bbb; }
.failure { stroke: #d22; stroke-width: 2; }
.failure-label { fill: #d22; font-weight: bold; }
.disk-fault { fill: #e60; font-weight: bold; text-anchor: middle; }
.disk-label { font-size: 10px; }
.kept { fill: #2a2; } .lost { fill: #d22; } .torn { fill: #e90; }
</style></head><body>
<h1>)js" << html_escape(title)
      << R"js(</h1>
<p style="margin:8px">Hosts are lanes, virtual time runs down the page (one row per instant shown), arrows are
packets from send to delivery, labelled with their kind, ports and bytes (and what the scenario's decoder says);
each host's log lines and timers sit on its lane; <span style="color:#d22">&#x2715;</span> a drop and its reason,
<span style="color:#e90">&#x2687;</span> a duplicate, dashed lines topology changes, red and green bars crashes and
restarts, <span style="color:#e60">&#x26a0;</span> a disk fault, and
<span style="color:#2a2">&#x25a0;</span>/<span style="color:#d22">&#x25a0;</span>/<span style="color:#e90">&#x25a0;</span>
what a power cut did to each unsynced write (kept, lost, torn); the red line is the failure. Hover a mark for its event.</p>
)js";
  if (failure != nullptr)
    out << "<div class=\"failure-banner\" id=\"failure\"><b>&#x2716; failed at step " << failure->step << ", t="
        << std::fixed << static_cast<double>(failure->time_ns) / 1e9 << " s:</b> " << html_escape(failure->what)
        << " <a href=\"#failure-mark\">(jump to it)</a></div>\n";
  if (omitted != 0) out << "<p style=\"margin:8px\"><b>" << html_escape(omitted_note(omitted, events.size())) << "</b></p>\n";
  out << R"js(<div class="controls" id="controls"></div>
<div id="diagram"></div>
<script>
const data = )js";
  write_run_json(out, events, host_names, notes);
  out << ";\nconst failure = ";
  if (failure != nullptr)
    out << "{\"step\":" << failure->step << ",\"t\":" << failure->time_ns << ",\"what\":" << json_string(failure->what) << "}";
  else
    out << "null";
  out << ";\n" << describe_js << R"js(
const groups = {packets: "packets", drops: "drops and duplicates", logs: "log lines", timers: "timers",
                handlers: "handler steps", faults: "topology changes", lifecycle: "crashes and restarts", disk: "disk"};
const shown = new Set(Object.keys(groups).filter(g => g !== "handlers" || data.events.length < 400));
const hiddenHosts = new Set();
let filter = "";
(function controls() {
  const box = document.getElementById("controls");
  const check = (text, on, change) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.checked = on;
    input.addEventListener("change", () => { change(input.checked); render(); });
    label.appendChild(input);
    label.appendChild(document.createTextNode(" " + text));
    box.appendChild(label);
  };
  box.appendChild(document.createTextNode("Hosts: "));
  data.hosts.forEach((h, i) => check(h, true, on => on ? hiddenHosts.delete(i) : hiddenHosts.add(i)));
  box.appendChild(document.createElement("br"));
  box.appendChild(document.createTextNode("Show: "));
  for (const [g, text] of Object.entries(groups)) check(text, shown.has(g), on => on ? shown.add(g) : shown.delete(g));
  box.appendChild(document.createElement("br"));
  const input = document.createElement("input");
  input.id = "filter";
  input.placeholder = "arrows and logs containing (a port, a kind, a connection, a word)";
  input.size = 60;
  input.addEventListener("input", () => { filter = input.value.toLowerCase(); render(); });
  box.appendChild(document.createTextNode("Filter: "));
  box.appendChild(input);
})();

function render() {
  const ns = "http://www.w3.org/2000/svg";
  const lanes = data.hosts.map((_, i) => i).filter(i => !hiddenHosts.has(i));
  const laneIndex = new Map(lanes.map((h, i) => [h, i]));
  const visible = h => h < 0 || laneIndex.has(h);
  const matches = text => filter === "" || text.toLowerCase().includes(filter);
  // The context each handler ran on belongs to its host: timers find their lane.
  const contextHost = new Map();
  for (const [, , host, kind, f] of data.events) if (kind === "handler" && host >= 0) contextHost.set(f.context, host);
  const items = [];  // {t, draw(y)}
  const at = (t, group, draw) => { if (shown.has(group)) items.push({t, draw}); };
  const sent = new Map();
  for (const e of data.events) {
    const [step, t, host, kind, f] = e;
    const label = describe(data, e);
    if (!visible(host)) { if (kind === "net_send") sent.set(f.packet, {host, t}); continue; }
    if (kind === "net_send" && host >= 0) sent.set(f.packet, {host, t});
    else if (kind === "net_deliver" && host >= 0 && sent.has(f.packet)) {
      const s = sent.get(f.packet);
      const text = data.labels[f.packet] !== undefined ? data.labels[f.packet] : "packet " + f.packet;
      if (!visible(s.host) || !matches(text)) continue;
      at(s.t, "packets", () => {});
      at(t, "packets", (y, rowY) => {
        const x1 = laneX(s.host), y1 = rowY(s.t), x2 = laneX(host), y2 = y;
        titled(add("line", {class: "message", x1, y1, x2, y2}), label);
        // A third of the way from the sender: arrows that cross keep their labels apart.
        titled(add("text", {class: "label", x: x1 + (x2 - x1) / 3, y: y1 + (y2 - y1) / 3 - 3}, clip(text, 48)), label);
      });
    } else if (kind === "net_drop" && host >= 0) {
      const text = data.labels[f.packet] !== undefined ? data.labels[f.packet] : "";
      if (!matches(text + " " + f.reason)) continue;
      at(t, "drops", y => {
        titled(add("text", {class: "drop", x: laneX(host), y: y + 4}, "\u2715"), label);
        add("text", {class: "drop-reason", x: laneX(host) + 8, y: y + 4}, f.reason + (text ? " (" + clip(text, 30) + ")" : ""));
      });
    } else if (kind === "net_duplicate" && host >= 0)
      at(t, "drops", y => titled(add("text", {class: "duplicate", x: laneX(host) + 10, y: y + 4}, "\u2687"), label));
    else if (kind === "net_fault")
      at(t, "faults", y => {
        titled(add("line", {class: "fault", x1: 100, y1: y, x2: width() - 10, y2: y}), label);
        add("text", {class: "fault-label", x: width() - 10, y: y - 3, "text-anchor": "end"},
            f.fault + (f.from ? " " + f.from : "") + (f.to ? " / " + f.to : ""));
      });
    else if ((kind === "crash" || kind === "restart") && host >= 0)
      at(t, "lifecycle", y => titled(add("rect", {class: kind, x: laneX(host) - 6, y: y - 4, width: 12, height: 8}), label));
    else if (kind === "handler" && host >= 0)
      at(t, "handlers", y => titled(add("circle", {class: "step", cx: laneX(host), cy: y, r: 2}), label));
    else if (kind === "timer_fire" && f.context !== null && contextHost.has(f.context)) {
      const h = contextHost.get(f.context);
      if (visible(h)) at(t, "timers", y => titled(add("text", {class: "timer", x: laneX(h) - 12, y: y + 4}, "\u25d4"), label));
    } else if (kind === "disk_fault" && host >= 0)
      at(t, "disk", y => {
        titled(add("text", {class: "disk-fault", x: laneX(host), y: y + 4}, "\u26a0"), label);
        add("text", {class: "disk-label disk-fault", x: laneX(host) + 10, y: y + 4, "text-anchor": "start"}, f.fault);
      });
    else if (kind === "disk_resolve" && host >= 0) {
      const cls = /lost/.test(f.outcome) ? "lost" : f.outcome === "torn" ? "torn" : "kept";
      at(t, "disk", (y, rowY, k) => titled(add("rect", {class: cls, x: laneX(host) + 10 + 7 * k("d" + host + "@" + t), y: y - 3, width: 6, height: 6}), label));
    }
  }
  // Log lines: a tick on the host's lane, the line in the log column, at their instant.
  const logsAt = new Map();
  for (const [step, t, host, level, text] of data.logs) {
    if (!visible(host) || host < 0 || !matches(text)) continue;
    if (!shown.has("logs")) continue;
    const n = logsAt.get(t) || 0;
    logsAt.set(t, n + 1);
    const cls = "log" + (/warn/.test(level) ? " log-warn" : /err|crit/.test(level) ? " log-err" : "");
    at(t, "logs", y => {
      add("rect", {class: "log-tick", x: laneX(host) - 3, y: y - 1 + 12 * n, width: 6, height: 2});
      titled(add("text", {class: cls, x: logX(), y: y + 4 + 12 * n}, data.hosts[host] + " [" + level + "] " + clip(text, 70)),
             "step " + step + " t=" + (t / 1e9).toFixed(9) + "s " + data.hosts[host] + " [" + level + "] " + text);
    });
  }
  if (failure) items.push({t: failure.t, draw: y => {
    const line = add("line", {class: "failure", x1: 90, y1: y, x2: width() - 10, y2: y, id: "failure-mark"});
    titled(line, "failure at step " + failure.step);
    add("text", {class: "failure-label", x: 92, y: y - 4}, "\u2716 step " + failure.step + ": " + clip(failure.what, 90));
  }});
  const times = [...new Set(items.map(i => i.t))].sort((a, b) => a - b);
  // Rows are instants, 20 px each; an instant with several log lines gets room for them.
  const row = new Map();
  let y = 70;
  for (const t of times) {
    row.set(t, y);
    y += Math.max(20, 12 * (logsAt.get(t) || 0) + 8);
  }
  const rowY = t => row.get(t);
  const laneX = h => 160 + laneIndex.get(h) * 230;
  const logX = () => 160 + Math.max(1, lanes.length) * 230 - 100;
  const width = () => logX() + (logsAt.size ? 520 : 60);
  const height = y + 40;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width());
  svg.setAttribute("height", height);
  function add(tag, attrs, text) {
    const el = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    svg.appendChild(el);
    return el;
  }
  function titled(el, text) {
    const title = document.createElementNS(ns, "title");
    title.textContent = text;
    el.appendChild(title);
    return el;
  }
  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "\u2026" : s; }
  const marker = document.createElementNS(ns, "marker");
  for (const [k, v] of Object.entries({id: "arrow", markerWidth: 8, markerHeight: 8, refX: 7, refY: 3, orient: "auto"}))
    marker.setAttribute(k, v);
  const tip = document.createElementNS(ns, "path");
  tip.setAttribute("d", "M0,0 L0,6 L7,3 z");
  tip.setAttribute("fill", "#2a6fdb");
  marker.appendChild(tip);
  add("defs", {}).appendChild(marker);
  lanes.forEach(h => {
    add("text", {class: "host", x: laneX(h), y: 30}, data.hosts[h]);
    add("line", {class: "lane", x1: laneX(h), y1: 40, x2: laneX(h), y2: height - 20});
  });
  times.forEach(t => add("text", {class: "time", x: 86, y: rowY(t) + 4}, seconds(t)));
  const counts = new Map();
  const k = key => { const n = counts.get(key) || 0; counts.set(key, n + 1); return n; };
  for (const item of items) item.draw(rowY(item.t), rowY, k);
  const diagram = document.getElementById("diagram");
  diagram.replaceChildren(svg);
}
render();
</script>
</body></html>
)js";
  detail::write_artifact(path, out.str());
}

void write_html_comparison(const std::string& path, const std::string& title, const recorded_run& a,
                           const recorded_run& b) {
  std::ostringstream out;
  page_head(out, title);
  out << R"js(p { margin: 8px; }
table { border-collapse: collapse; margin: 8px; font-family: monospace; font-size: 11px; }
td, th { border-bottom: 1px solid #eee; padding: 1px 6px; vertical-align: top; text-align: left; }
tr.same td { color: #888; }
tr.part td { background: #fde8e8; font-weight: bold; }
tr.after td.differs { background: #fff6d8; }
td.n { color: #aaa; text-align: right; }
button { margin: 8px; }
</style></head><body>
<h1>)js" << html_escape(title) << R"js(</h1>
<p id="summary"></p>
<div id="comparison"></div>
<script>
const runs = [)js";
  write_run_json(out, a.events, a.host_names, a.notes);
  out << ",";
  write_run_json(out, b.events, b.host_names, b.notes);
  out << "];\nconst names = [" << json_string(a.label) << "," << json_string(b.label) << "];\nconst omitted = ["
      << a.omitted << "," << b.omitted << "];\n"
      << describe_js << R"js(
// Each run as lines: its events, its log lines after the events of their step.
const lines = runs.map(run => {
  const out = [];
  let l = 0;
  for (const e of run.events) {
    while (l < run.logs.length && run.logs[l][0] < e[0]) { out.push(logLine(run, run.logs[l++])); }
    out.push(describe(run, e));
  }
  while (l < run.logs.length) out.push(logLine(run, run.logs[l++]));
  return out;
});
function logLine(run, [step, t, host, level, text]) {
  return "step " + step + " t=" + (t / 1e9).toFixed(9) + "s" + (host >= 0 ? " " + run.hosts[host] : "") + " log [" +
    level + "] " + text;
}
const n = Math.max(lines[0].length, lines[1].length);
let part = 0;
while (part < n && lines[0][part] === lines[1][part]) ++part;
const summary = document.getElementById("summary");
if (omitted[0] || omitted[1])
  summary.append("The runs' first events are not all kept (" + omitted[0] + " and " + omitted[1] + " left out): lines count from there. ");
if (part === n) summary.append("The two runs are the same, line for line (" + n + " lines).");
else summary.append("The runs share their first " + part + " lines; they part at line " + part + ": " + names[0] + " " +
  (part < lines[0].length ? "has \u201c" + lines[0][part] + "\u201d" : "has ended") + ", " + names[1] + " " +
  (part < lines[1].length ? "has \u201c" + lines[1][part] + "\u201d" : "has ended") + ".");
const context = 5;
const table = document.createElement("table");
const head = table.insertRow();
for (const text of ["#", names[0], names[1]]) { const th = document.createElement("th"); th.textContent = text; head.appendChild(th); }
const folded = [];
for (let i = 0; i < n; ++i) {
  const tr = table.insertRow();
  tr.className = i < part ? "same" : i === part ? "part" : "after";
  if (i === part) tr.id = "part";
  const num = tr.insertCell(); num.className = "n"; num.textContent = i;
  for (const side of [0, 1]) {
    const td = tr.insertCell();
    td.textContent = i < lines[side].length ? lines[side][i] : "";
    if (i > part && lines[0][i] !== lines[1][i]) td.className = "differs";
  }
  if (i < part - context) { tr.hidden = true; folded.push(tr); }
}
if (folded.length) {
  const button = document.createElement("button");
  button.textContent = "show the " + folded.length + " shared lines before the parting";
  button.addEventListener("click", () => { folded.forEach(tr => tr.hidden = false); button.remove(); });
  document.getElementById("comparison").appendChild(button);
}
document.getElementById("comparison").appendChild(table);
</script>
</body></html>
)js";
  detail::write_artifact(path, out.str());
}

namespace detail {

namespace {

// The length of the valid UTF-8 sequence at the start of @p s, or 0.
std::size_t utf8_length(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (b(i) & 0x3F);
  }
  // No overlong forms, no surrogates, nothing past U+10FFFF.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string json_quoted(std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    switch (c) {
      case '"': out += "\\\""; ++i; continue;
      case '\\': out += "\\\\"; ++i; continue;
      case '\n': out += "\\n"; ++i; continue;
      case '<': out += "\\u003c"; ++i; continue;  // safe inside an HTML <script>
      default: break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s.substr(i));
    if (n == 0) {
      out += "\\ufffd";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out + "\"";
}

std::string html_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace detail

}  // namespace simasio
