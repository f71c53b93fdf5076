// options.h: the grader's command line. `grader --help` prints usage().
//
//   grader --stage N --server "<command with {port} {db} {admin_token}>" [options]
//   grader --stage N --url http://127.0.0.1:8080[,http://127.0.0.1:8081...] --admin-token T [options]
//   grader matrix --bin-dir build/stages [--seed S] [--jobs N] [--html FILE]
//   grader --list
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "grader/base/numbers.h"

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
  std::string json_path, junit_path, history_path;
  std::string html_path;  // --html: the report as one self-contained page (grader/report/report_html.h)
  std::optional<std::int64_t> lease_seconds, key_ttl_seconds;
  std::string bin_dir;  // matrix
  std::optional<int> jobs;  // matrix: servers graded at once
  bool verbose = false;
  bool all_findings = false;  // the terminal shows every finding of a failed check, not only the first 3
};

// The command line of a subcommand whose options each take one value ("--seeds 3", as `grader mutants`
// and `grader load` have): calls take(option, value) for each pair in order; take returns what is wrong,
// or nothing. Returns the first thing wrong, or nothing; *help says whether --help or -h came first.
std::optional<std::string> parse_option_pairs(
    const std::vector<std::string>& args, bool* help,
    const std::function<std::optional<std::string>(const std::string& option, const std::string& value)>& take);

// The options, or a message saying what is wrong.
std::variant<GraderOptions, std::string> parse_grader_options(const std::vector<std::string>& args);
std::string usage();

}  // namespace grader
