// 10_lost_wakeup — a threaded server whose worker loses a condition variable's wake-up, found, shrunk and replayed.
//
// The server is a plain blocking main(): it accepts connections, gives each
// a reader thread, and the readers hand requests to one worker thread
// through a queue and a std::condition_variable. The planted bug is the
// classic one: the worker calls cv.wait(lock) without a predicate loop, so
// a notify that arrives while it is busy writing a reply is lost, and that
// request waits until the next one comes (the last one waits for ever).
// Each request takes the worker 0.5 ms (a sleep_for in virtual time).
// Two clients on two hosts send three requests each.
//
// Every main runs as a simulated process (host::spawn); with
// simasio::interpose linked, its std::thread, std::mutex and
// std::condition_variable are simulated threads whose lock, wait and notify
// points are seeded scheduling choices. So the sweep finds a seed where the
// notify is lost, check() shrinks its choice tape, and both replay exactly.
// Then the fixed worker (cv.wait(lock, predicate)) runs the same seeds clean.
#include "../common/command_line.hpp"
#include "scenario.hpp"
#include <simasio/random/tape_file.hpp>  // load_tape

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

using namespace sample_10;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a threaded server (reader threads, one worker, a condition variable), %d clients x %d "
              "requests\n\n",
              clients, requests);
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;

  // 1. The worker without a predicate loop: sweep, shrink, replay.
  opts.name = "worker_without_predicate";
  const auto naive = simasio::check([](simasio::world& w) { scenario(w, false, false); }, opts);
  if (naive.ok()) {
    std::printf("cv.wait(lock): no lost wake-up found in %llu seeds\n", static_cast<unsigned long long>(naive.runs));
    return 1;
  }
  const simasio::failure& f = *naive.failure;
  std::printf("cv.wait(lock) without a predicate: lost wake-up at seed %llu (after %llu seeds)\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(naive.runs));
  const auto waiting = f.what.find("blocked in std::condition_variable::wait");
  std::printf("  the stall report names the waiting worker: %s\n", waiting != std::string::npos ? "yes" : "no");
  if (waiting == std::string::npos) {
    std::printf("%s\n", f.what.c_str());
    return 1;
  }
  std::printf("  replay: %s\n", f.replay.c_str());
  try {
    std::printf("  replaying seed %llu:\n", static_cast<unsigned long long>(f.seed));
    simasio::replay([](simasio::world& w) { scenario(w, false, true); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (f.tape_path.empty()) {
    std::printf("  no shrunk tape was saved\n");
    return 1;
  }
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  simasio::world_options replay_opts;
  replay_opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
  replay_opts.on_tape_mismatch = simasio::tape_mismatch::polite;
  try {
    simasio::replay([](simasio::world& w) { scenario(w, false, false); }, tape.seed, replay_opts);
    std::printf("  shrunk tape: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  shrunk tape (%llu of %llu draws kept, %llu not polite) reproduces it\n",
                static_cast<unsigned long long>(f.shrunk_choices), static_cast<unsigned long long>(f.original_choices),
                static_cast<unsigned long long>(f.deviations));
  }

  // 2. The fixed worker, same seeds.
  opts.name = "worker_with_predicate";
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, true, false); }, opts);
  if (!fixed.ok()) {
    std::printf("cv.wait(lock, predicate): FAILED at seed %llu: %s\n",
                static_cast<unsigned long long>(fixed.failure->seed), fixed.failure->what.c_str());
    return 1;
  }
  std::printf("cv.wait(lock, predicate): every reply delivered over %llu seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}
