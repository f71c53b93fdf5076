// replay_main.cc: runs a fuzz target over saved inputs, without libFuzzer and without clang.
//
//   build/fuzz/fuzz_canonical_json_replay fuzz/corpus/canonical_json      # every file of the folder
//   build/fuzz/fuzz_canonical_json_replay crash-0a1b2c...                 # one input
//
// The normal (GCC) build links each fuzz target with this main instead of libFuzzer's, so `make test`
// replays the committed corpora (the seeds and every input that once found a bug) through the same
// properties the fuzzer checks: a property that breaks aborts, and the test fails. No fuzzing happens here;
// `make fuzz` does that (docs/reference/plumbing.md "Reliability", Fuzzing).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_at(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());   // a fixed order, so a failure names the same file every time
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::printf("Usage: %s FILE_OR_FOLDER...\n\n"
                "Runs this fuzz target once on each input (each file of a folder) and stops at the first\n"
                "property that fails. Replays only: `make fuzz` fuzzes. See fuzz/ and docs/reference/plumbing.md \"Reliability\".\n",
                argc > 0 ? argv[0] : "replay");
    return argc < 2 ? 2 : 0;
  }
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::fprintf(stderr, "%s: no such file or folder: %s\n", argv[0], argv[i]);
      return 2;
    }
    for (const auto& file : inputs_at(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s\n", file.c_str());   // the last line before an abort names the input
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs: every property held\n", replayed);
  return 0;
}
