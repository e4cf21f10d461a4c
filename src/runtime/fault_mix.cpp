// fault_mix.cpp — a run's fault families: described, and drawn per seed for swarm testing
#include <simasio/random/rng.hpp>
#include <simasio/world_options.hpp>

#include <cstdio>
#include <string>

namespace simasio {

namespace {
// On with chance 1/2 (off is the polite draw), then uniform in [lo, hi].
// Both draws are made either way, so each family keeps its place on the
// tape and shrinking can turn one off without moving the others.
double rate(rng& r, double lo, double hi) {
  const bool on = r.below(2) == 1;
  const double u = r.uniform01();
  return on ? lo + (hi - lo) * u : 0.0;
}

std::string percent(const char* name, double p) {
  if (p <= 0.0) return std::string(name) + " off";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %.2g%%", name, p * 100.0);
  return buf;
}

std::string per_round(const char* name, double p) {
  if (p <= 0.0) return std::string(name) + " off";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %.2f per round", name, p);
  return buf;
}
}  // namespace

fault_mix fault_mix::draw(rng& r) {
  fault_mix m;
  m.loss = rate(r, 0.001, 0.2);
  m.duplicate = rate(r, 0.001, 0.1);
  m.partitions = rate(r, 0.05, 0.5);
  m.crashes = rate(r, 0.05, 0.5);
  const bool drift = r.below(2) == 1;
  const auto ppb = static_cast<std::int64_t>(r.between(std::uint64_t{1'000}, std::uint64_t{1'000'000}));
  m.drift_ppb = drift ? ppb : 0;
  m.disk_faults = rate(r, 0.0001, 0.01);
  return m;
}

std::string fault_mix::describe() const {
  std::string out = percent("loss", loss) + ", " + percent("duplication", duplicate) + ", " +
                    per_round("partitions", partitions) + ", " + per_round("crashes", crashes) + ", ";
  if (drift_ppb <= 0) {
    out += "clock drift off";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "clock drift up to %.3g ppm", static_cast<double>(drift_ppb) / 1000.0);
    out += buf;
  }
  return out + ", " + percent("disk faults", disk_faults);
}

}  // namespace simasio
