// options.h: the command lines of `grader --stage N ...` (grading one server) and `grader matrix`.
//
//   grader --stage N --server "<command with {port} {db} {admin_token}>" [options]
//   grader --stage N --url http://127.0.0.1:8080[,http://127.0.0.1:8081...] --admin-token T [options]
//   grader matrix --bin-dir build/stages [--seed S] [--jobs N] [--html FILE]
//   grader --list
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "grader/cli/command_line.h"

namespace grader {

struct GraderOptions {
  enum class Mode { Grade, Matrix, List, Help };
  Mode mode = Mode::Grade;
  int stage = 6;
  std::optional<int> only;
  std::optional<std::string> check;
  std::string server;       // --server command template
  std::string url;          // --url: one URL, or several comma-separated (grader/wire/target.h:parse_urls)
  std::string admin_token;  // with --url
  std::optional<std::uint64_t> seed;
  std::optional<int> histories;  // --histories: random histories per stageN.conformance
  std::string json_path, junit_path, history_path;
  std::string html_path;  // --html: the report as one self-contained page (grader/report/report_html.h)
  std::optional<std::int64_t> lease_seconds, key_ttl_seconds;
  std::optional<std::int64_t> server_memory_mib;  // --server-memory-mib: ServerLimits::memory_mib
  bool sandbox = false;      // --sandbox: ServerLimits::sandbox (grader/wire/sandbox.h)
  std::string sandbox_hide;  // --sandbox-hide: one more folder the server does not see (grader class's --out)
  std::string bin_dir;  // matrix
  std::optional<int> jobs;  // matrix: servers graded at once
  bool verbose = false;
  bool all_findings = false;  // the terminal shows every finding of a failed check, not only the first 3
};

// The command lines of `grader --stage N ...` and `grader matrix` (command_line.h), for their --help.
CommandSpec grade_spec();
CommandSpec matrix_spec();

// The options ("matrix" first: the matrix's), or a message saying what is wrong. Mode::Help: --help was asked.
std::variant<GraderOptions, std::string> parse_grader_options(const std::vector<std::string>& args);

}  // namespace grader
