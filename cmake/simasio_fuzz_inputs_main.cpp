// simasio_fuzz_inputs_main.cpp — runs a fuzz target's inputs once each, without libFuzzer
//
//   <target> FILE|FOLDER...
// Every file (a folder's files in name order) goes through the target's
// LLVMFuzzerTestOneInput; a failing input aborts, as it would under the
// fuzzer. No inputs is an error: a corpus that went missing must not pass.
// A target that defines LLVMFuzzerInitialize (SIMASIO_FUZZ_SCENARIO does:
// SIMASIO_TAPE replays a tape) gets it called first, as libFuzzer calls it.
// simasio_add_fuzz_scenario builds targets with it where the compiler
// cannot link libFuzzer; simasio's own fuzz targets build a replay program
// with it everywhere.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (&LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: '%s' is neither a file nor a folder\n", argv[0], argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER... (no inputs found)\n", argv[0]);
    return 2;
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs ran, no property broken\n", files.size());
  return 0;
}
