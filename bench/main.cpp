// simasio_bench — how fast simasio is, as ratios measured in one run.
//
//   simasio_bench [--quick] [--only GROUP[,GROUP...]] [--json FILE]
//
// Groups: runtime, network, beast, raft, scale, cost, process, disk, history, isolation, headers. Prints a markdown table on
// stdout (progress goes to stderr) and writes the same rows as JSON to FILE
// (default simasio_bench.json). Targets are goals printed next to each
// figure; nothing here asserts them.
#include "groups.hpp"

#include <boost/version.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace bench {

std::string format(double value, const std::string& unit) {
  char buf[48];
  if (unit == "B") std::snprintf(buf, sizeof buf, "%.0f B", value);
  else if (value >= 1e6) std::snprintf(buf, sizeof buf, "%.2f M%s", value / 1e6, unit.c_str());
  else if (value >= 1e4) std::snprintf(buf, sizeof buf, "%.1f k%s", value / 1e3, unit.c_str());
  else std::snprintf(buf, sizeof buf, "%.0f %s", value, unit.c_str());
  return buf;
}

std::string times(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", ratio);
  return buf;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100.0);
  return buf;
}

}  // namespace bench

namespace {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "simasio_bench: %s\nusage: simasio_bench [--quick] [--only runtime,network,beast,raft,scale,cost,process,disk,history,isolation,headers] "
               "[--json FILE]\n",
               why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  bench::settings settings;
  std::string json_path = "simasio_bench.json";
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) settings.quick = true;
    else if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else usage((std::string("unknown argument '") + argv[i] + "'").c_str());
  }

  const std::vector<std::pair<std::string, bench::group>> groups = {
      {"runtime", bench::runtime_rows}, {"network", bench::network_rows}, {"beast", bench::beast_rows}, {"raft", bench::raft_rows},
      {"scale", bench::scale_rows},     {"cost", bench::cost_rows}, {"process", bench::process_rows}, {"disk", bench::disk_rows},
      {"history", bench::history_rows}, {"isolation", bench::isolation_rows}, {"headers", bench::header_rows}, {"posix", bench::posix_rows},
  };
  std::vector<std::string> chosen;
  if (only.empty()) {
    for (const auto& [name, g] : groups) chosen.push_back(name);
  } else {
    std::stringstream ss(only);
    for (std::string name; std::getline(ss, name, ',');) {
      bool known = false;
      for (const auto& [n, g] : groups) known = known || n == name;
      if (!known) usage(("unknown group '" + name + "'").c_str());
      chosen.push_back(name);
    }
  }

  std::vector<bench::row> rows;
  for (const auto& [name, g] : groups) {
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) continue;
    std::fprintf(stderr, "simasio_bench: %s...\n", name.c_str());
    const std::size_t first = rows.size();
    g(settings, rows);
    for (std::size_t i = first; i < rows.size(); ++i)
      std::fprintf(stderr, "  %s: %s\n", rows[i].scenario.c_str(), bench::format(rows[i].simasio, rows[i].unit).c_str());
  }

  std::printf("%u hardware threads, %s, Boost %s%s\n\n", std::thread::hardware_concurrency(), __VERSION__,
              BOOST_LIB_VERSION, settings.quick ? ", --quick (smoke run: sizes and repetitions cut)" : "");
  std::printf("| scenario | simasio | reference | ratio | target |\n|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    std::string target = r.target.empty() ? "" : r.target + (r.met ? " (met)" : " (not met)");
    std::printf("| %s | %s | %s | %s | %s |\n", r.scenario.c_str(), bench::format(r.simasio, r.unit).c_str(),
                r.reference > 0 ? bench::format(r.reference, r.unit).c_str() : "-", r.ratio.empty() ? "-" : r.ratio.c_str(),
                target.empty() ? "-" : target.c_str());
  }

  std::ofstream json(json_path);
  if (!json) {
    std::fprintf(stderr, "simasio_bench: cannot write %s\n", json_path.c_str());
    return 1;
  }
  json << "{\n  \"compiler\": \"" << json_escape(__VERSION__) << "\",\n  \"boost\": \"" << BOOST_LIB_VERSION
       << "\",\n  \"hardware_threads\": " << std::thread::hardware_concurrency()
       << ",\n  \"quick\": " << (settings.quick ? "true" : "false") << ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    json << "    {\"scenario\": \"" << json_escape(r.scenario) << "\", \"unit\": \"" << r.unit
         << "\", \"simasio\": " << r.simasio << ", \"reference\": ";
    if (r.reference > 0) json << r.reference;
    else json << "null";
    json << ", \"ratio\": \"" << r.ratio << "\", \"target\": \"" << json_escape(r.target)
         << "\", \"met\": " << (r.target.empty() ? "null" : r.met ? "true" : "false") << "}"
         << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  json << "  ]\n}\n";
  std::fprintf(stderr, "simasio_bench: wrote %s\n", json_path.c_str());
  return 0;
}
