// 14_route_push — a config push designed as a model, checked exhaustively, and the code held to the design on every seed.
//
// A controller pushes a route table's version to a replica over UDP: version
// 1 at start, version 2 at 100 ms. The replica applies the newest version it
// has seen and answers with it. Fire-and-forget sends each version once; the
// fix re-sends every 30 ms until the replica's answer says it has it. The
// network loses 30% of the datagrams (a fault rule the scenario installs,
// so it knows which pushes were lost).
//
// The design is a simasio::model: the controller's version v, the
// replica's version r, the versions in flight and the versions ever sent.
// Its actions are bump, send, send lost at once, deliver v1 and deliver v2
// (strongly fair: fair delivery) and lose. check_model finds that
// fire-and-forget can stop short of convergence (a lost push of version 2 is
// never sent again) and that the re-push converges on every fair behaviour.
// The code is then held to the design: simasio::refines maps the real state
// to a model state after every step. Fire-and-forget code is found not to
// converge on some seed; the re-push code converges and refines the re-push
// design over every seed of the sweep, and is refused by the fire-and-forget
// design at its first re-send.
#include "../common/command_line.hpp"
#include "scenario.hpp"

#include <cstdint>
#include <cstdio>

using namespace sample_14;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a route push to one replica, 30%% of datagrams lost\n\n");
  const auto fire_and_forget = design(false), repush = design(true);
  const auto flawed_design = simasio::check_model(*fire_and_forget);
  if (flawed_design.ok) {
    std::printf("design, fire-and-forget: no violation found\n");
    return 1;
  }
  std::printf("design, fire-and-forget (%zu states): %s", flawed_design.states, flawed_design.explanation().c_str());
  const auto fixed_design = simasio::check_model(*repush);
  if (!fixed_design.ok) {
    std::printf("design, re-push: %s", fixed_design.explanation().c_str());
    return 1;
  }
  std::printf("design, re-push: every fair behaviour converges (%zu states, %zu transitions)\n\n", fixed_design.states,
              fixed_design.transitions);

  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;
  opts.name = "fire_and_forget";
  const auto flawed = simasio::check([&](simasio::world& w) { scenario(w, false, fire_and_forget); }, opts);
  if (flawed.ok()) {
    std::printf("code, fire-and-forget: converged on all %llu seeds\n", static_cast<unsigned long long>(flawed.runs));
    return 1;
  }
  std::printf("code, fire-and-forget: %s at seed %llu (after %llu seeds); it refined its design until then\n  replay: %s\n",
              flawed.failure->what.c_str(), static_cast<unsigned long long>(flawed.failure->seed),
              static_cast<unsigned long long>(flawed.runs), flawed.failure->replay.c_str());
  opts.name = "repush";
  const auto fixed = simasio::check([&](simasio::world& w) { scenario(w, true, repush); }, opts);
  if (!fixed.ok()) {
    std::printf("code, re-push: failed at seed %llu: %s\n", static_cast<unsigned long long>(fixed.failure->seed),
                fixed.failure->what.c_str());
    return 1;
  }
  std::printf("code, re-push: converges and refines the re-push design on all %llu seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  opts.name = "repush_vs_fire_and_forget";
  const auto mismatch = simasio::check([&](simasio::world& w) { scenario(w, true, fire_and_forget); }, opts);
  if (mismatch.ok()) {
    std::printf("code, re-push, held to the fire-and-forget design: no mismatch found\n");
    return 1;
  }
  std::printf("code, re-push, held to the fire-and-forget design: %s\n", mismatch.failure->what.c_str());
  return 0;
}
