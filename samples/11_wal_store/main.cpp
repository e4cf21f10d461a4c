// 11_wal_store — a key-value store with a write-ahead log loses acknowledged writes to power cuts; found, shrunk, replayed.
//
// The store (host "store") serves "put key value" lines over TCP. Each put
// is appended to a write-ahead log, /db/wal, a random_access_file; every 8
// puts it compacts: the whole map goes to /db/snap.tmp, which is synced and
// renamed over /db/snap, and the log is emptied. On boot it recovers: the
// snapshot, then every whole record of the log (each carries its length and
// a checksum, so a torn tail is cut off).
//
// Two planted bugs, each a classic of real storage engines:
//   ack_before_sync     the put is acknowledged once the log write is in the
//                       page cache, before wal.sync_data();
//   rename_without_sync the snapshot is renamed (and the log created) without
//                       disk::sync_directory("/db"), so a power cut can undo
//                       the rename after the log was emptied.
// A client on host "client" puts 40 keys one at a time, reconnecting when
// the store goes away. Each seed cuts the store's power once at a random
// moment and restarts it; the scenario fails when a put acknowledged before
// the cut is missing from what the store recovered. check() finds each bug,
// shrinks its choice tape and replays it; the fixed store (sync before the
// ack, sync the directory after create and rename) passes the same seeds.
#include "../common/command_line.hpp"
#include "scenario.hpp"
#include <simasio/random/tape_file.hpp>  // load_tape

#include <cstdint>
#include <cstdio>
#include <memory>

using namespace sample_11;

namespace {

int find_shrink_replay(const variant& v, simasio::check_options opts) {
  opts.name = v.name;
  const auto result = simasio::check([&](simasio::world& w) { scenario(w, v, false); }, opts);
  if (result.ok()) {
    std::printf("%s: no lost write found in %llu seeds\n", v.name, static_cast<unsigned long long>(result.runs));
    return 1;
  }
  const simasio::failure& f = *result.failure;
  std::printf("%s: found at seed %llu (after %llu seeds): %s\n", v.name, static_cast<unsigned long long>(f.seed),
              static_cast<unsigned long long>(result.runs), f.what.c_str());
  std::printf("  replay: %s\n", f.replay.c_str());
  try {
    simasio::replay([&](simasio::world& w) { scenario(w, v, true); }, f.seed);
    std::printf("  replay: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  replay reproduces it\n");
  }
  if (f.tape_path.empty()) {
    std::printf("  no shrunk tape was saved (%s)\n", f.not_shrunk.c_str());
    return 1;
  }
  const simasio::saved_tape tape = simasio::load_tape(f.tape_path);
  simasio::world_options replay_opts;
  replay_opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
  replay_opts.on_tape_mismatch = simasio::tape_mismatch::polite;
  try {
    simasio::replay([&](simasio::world& w) { scenario(w, v, false); }, tape.seed, replay_opts);
    std::printf("  shrunk tape: NOT reproduced\n");
    return 1;
  } catch (const simasio::scenario_failure&) {
    std::printf("  shrunk tape (%llu of %llu draws kept, %llu not polite) reproduces it\n",
                static_cast<unsigned long long>(f.shrunk_choices), static_cast<unsigned long long>(f.original_choices),
                static_cast<unsigned long long>(f.deviations));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::uint64_t seeds = 300;
  sample::read_command_line(argc, argv, seeds);
  std::printf("simasio: a key-value store with a write-ahead log, %d puts, one power cut per seed\n\n", total_puts);
  simasio::check_options opts;
  opts.seeds = seeds;
  opts.print = false;
  if (find_shrink_replay(ack_before_sync, opts) != 0) return 1;
  if (find_shrink_replay(rename_without_sync, opts) != 0) return 1;
  opts.name = fixed_store.name;
  const auto fixed = simasio::check([](simasio::world& w) { scenario(w, fixed_store, false); }, opts);
  if (!fixed.ok()) {
    std::printf("fixed store: FAILED at seed %llu: %s\n", static_cast<unsigned long long>(fixed.failure->seed),
                fixed.failure->what.c_str());
    return 1;
  }
  std::printf("fixed store (sync before ack, directory synced): no acknowledged write lost over %llu seeds\n",
              static_cast<unsigned long long>(fixed.runs));
  return 0;
}
