// tape_fuzz.cpp — the tape parser, and replaying whatever it accepts
//
// Any text either parses or is a tape_error that names its source; the
// same text in a real file loads as it parses (load_tape's checks of the
// file's kind, size and first line refuse only what parse_tape refuses); a
// tape that parses formats back to itself, and replays against a small
// scenario under each mismatch policy with no crash: it fits, or the replay
// stops with a tape_error (policy fail), or it continues (seeded, polite).
#include "fuzz_support.hpp"

#include <simasio/random/tape_file.hpp>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

// This process's tape file, removed when it exits.
const std::string& file_path() {
  static const simasio_fuzz::temp_file f("tape_fuzz");
  return f.path;
}

// The tape load_tape reads from a real file holding @p text, or the error.
std::string loaded(std::string_view text, simasio::saved_tape& out) {
  std::ofstream(file_path(), std::ios::binary | std::ios::trunc)
      .write(text.data(), static_cast<std::streamsize>(text.size()));
  try {
    out = simasio::load_tape(file_path());
    return "";
  } catch (const simasio::tape_error& e) {
    return e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using simasio_fuzz::broken;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  simasio::saved_tape tape;
  simasio::saved_tape from_file;
  const std::string file_error = loaded(text, from_file);
  if (!file_error.empty() && file_error.find(file_path()) == std::string::npos)
    broken("a load_tape error does not name the file: " + file_error);
  try {
    tape = simasio::parse_tape(text, "input");
  } catch (const simasio::tape_error& e) {
    if (std::string_view(e.what()).substr(0, 19) != "simasio: tape input") broken("message: " + std::string(e.what()));
    if (file_error.empty()) broken("load_tape accepted a file that parse_tape refuses: " + std::string(e.what()));
    return 0;
  }
  if (!file_error.empty()) broken("load_tape refused a file whose text parses: " + file_error);
  if (from_file != tape) broken("load_tape read another tape than parse_tape");
  for (const simasio::tape_stream& s : tape.streams)
    for (const simasio::choice& c : s.choices)
      if (c.value >= c.bound) broken("accepted a value not below its bound");
  const simasio::saved_tape again = simasio::parse_tape(simasio::format_tape(tape), "formatted");
  if (again != tape) broken("format_tape does not parse back to the tape");

  for (const auto policy : {simasio::tape_mismatch::fail, simasio::tape_mismatch::seeded, simasio::tape_mismatch::polite,
                            simasio::tape_mismatch::adapt}) {
    simasio::world_options opts;
    opts.seed = tape.seed;
    opts.replay_tape = std::make_shared<const simasio::saved_tape>(tape);
    opts.on_tape_mismatch = policy;
    try {
      simasio::world w(opts);
      simasio_fuzz::small_scenario(w);
    } catch (const simasio::tape_error& e) {
      if (policy != simasio::tape_mismatch::fail)
        broken("a replay with a continuing policy stopped: " + std::string(e.what()));
      if (std::string_view(e.what()).find("does not fit this program") == std::string_view::npos)
        broken("mismatch message: " + std::string(e.what()));
    }
  }
  return 0;
}
