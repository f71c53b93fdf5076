// canon: prints the RFC 8785 canonical form of a JSON document and its SHA-256 fingerprint, the
// way the lab's stages compute it, so learners can see why two bodies match or not.
//
// Interface:
//   canon [FILE]          canonical text on one line, then "sha256: <hex>"
//   canon --raw [FILE]    only the canonical UTF-8 bytes, no trailing newline
//   canon --help          usage with an example
// FILE "-" or no FILE reads standard input. Exit status: 0 done, 1 input rejected or unreadable,
// 2 bad usage; the reason goes to standard error.
// Belongs to docs/learn/stage-3-fingerprint.md "Stage 3: the canonical fingerprint".
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/canonical_json.h"
#include "common/fingerprint.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;  // also: the input could not be read
constexpr int kExitUsage = 2;

constexpr std::string_view kUsage =
    "usage: canon [--raw] [FILE]\n"
    "       canon --help\n";

constexpr std::string_view kHelp =
    "usage: canon [--raw] [FILE]\n"
    "\n"
    "Reads one JSON document from FILE (or standard input when FILE is missing or \"-\"),\n"
    "prints its RFC 8785 (JSON Canonicalization Scheme) form on one line and then\n"
    "\"sha256: <hex>\", the request fingerprint the lab's stages compare.\n"
    "\n"
    "  --raw    print only the canonical UTF-8 bytes, without a newline\n"
    "           (canon --raw body.json | sha256sum gives the same hash)\n"
    "  --help   show this text\n"
    "\n"
    "Two bodies that differ only in member order, whitespace or escaping give the\n"
    "same canonical text and so the same hash:\n"
    "\n"
    "  $ echo '{\"currency\":\"EUR\",\"amount\":1250}' | canon\n"
    "  {\"amount\":1250,\"currency\":\"EUR\"}\n"
    "  sha256: eeee78fb20f8fbb03fb016f376c0389d6be5286bbce3a472be2a2b376b3953d4\n"
    "  $ echo '{ \"amount\": 1250.0, \"currency\": \"\\u0045UR\" }' | canon\n"
    "  {\"amount\":1250,\"currency\":\"EUR\"}\n"
    "  sha256: eeee78fb20f8fbb03fb016f376c0389d6be5286bbce3a472be2a2b376b3953d4\n"
    "\n"
    "Input that has no canonical form is refused with exit status 1 and the reason:\n"
    "\n"
    "  $ echo '{\"amount\":1,\"amount\":2}' | canon\n"
    "  canon: rejected: duplicate-member: duplicate member name \"amount\"\n"
    "\n"
    "Exit status: 0 printed, 1 rejected or unreadable input, 2 bad usage.\n";

// Reads all of a stream as bytes. Returns false with errno set when reading fails.
bool read_all(std::FILE* stream, std::string& bytes) {
  constexpr std::size_t kChunkBytes = 64 * 1024;
  std::vector<char> chunk(kChunkBytes);
  while (true) {
    const std::size_t got = std::fread(chunk.data(), 1, chunk.size(), stream);
    bytes.append(chunk.data(), got);
    if (got < chunk.size()) return std::ferror(stream) == 0;
  }
}

bool write_all(std::string_view bytes) {
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() && std::fflush(stdout) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool raw = false;
  bool options_done = false;
  std::string path;  // empty: standard input
  bool have_path = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!options_done && (arg == "--help" || arg == "-h")) {
      return write_all(kHelp) ? kExitOk : kExitRejected;
    } else if (!options_done && arg == "--raw") {
      raw = true;
    } else if (!options_done && arg == "--") {
      options_done = true;
    } else if (!options_done && arg.size() > 1 && arg.front() == '-') {
      std::fprintf(stderr, "canon: unknown option %s\n%.*s", argv[i], static_cast<int>(kUsage.size()),
                   kUsage.data());
      return kExitUsage;
    } else if (have_path) {
      std::fprintf(stderr, "canon: one FILE at most\n%.*s", static_cast<int>(kUsage.size()), kUsage.data());
      return kExitUsage;
    } else {
      path = arg == "-" ? "" : std::string(arg);
      have_path = true;
    }
  }

  std::string body;
  if (path.empty()) {
    if (!read_all(stdin, body)) {
      std::fprintf(stderr, "canon: cannot read standard input: %s\n", std::strerror(errno));
      return kExitRejected;
    }
  } else {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
      std::fprintf(stderr, "canon: cannot open %s: %s\n", path.c_str(), std::strerror(errno));
      return kExitRejected;
    }
    const bool ok = read_all(file, body);
    const int read_errno = errno;
    std::fclose(file);
    if (!ok) {
      std::fprintf(stderr, "canon: cannot read %s: %s\n", path.c_str(), std::strerror(read_errno));
      return kExitRejected;
    }
  }

  const auto parsed = lab::parse_canonical_json(body);
  if (const auto* error = std::get_if<lab::JsonError>(&parsed)) {
    const std::string_view name = lab::rejection_name(error->why);
    std::fprintf(stderr, "canon: rejected: %.*s: %s\n", static_cast<int>(name.size()), name.data(),
                 error->detail.c_str());
    return kExitRejected;
  }
  const std::string& canonical = std::get<lab::CanonicalJson>(parsed).text;
  const bool written = raw ? write_all(canonical)
                           : write_all(canonical + "\nsha256: " + lab::request_fingerprint(canonical) + "\n");
  if (!written) {
    std::fprintf(stderr, "canon: cannot write standard output: %s\n", std::strerror(errno));
    return kExitRejected;
  }
  return kExitOk;
}
