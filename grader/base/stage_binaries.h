// stage_binaries.h: where the reference stage servers and wrong turns are, and the command line that
// starts one of them, for the subcommands that run them by name (`grader day replay --stage 3`,
// `grader demo`). docs/teach/the-day.md "The day", docs/teach/grader.md "The grader".
//
//   auto bin = find_stage_binary("3", "");        // "build/stages/stage3_fingerprint", or nullopt
//   std::string cmd = stage_command(*bin, "--lease 2");
//
// The binaries are looked for in --bin-dir if given, else beside the grader (<build>/grader/../stages).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace grader {

// A reference stage server or a wrong turn: what the matrix grades, the day replays, the demo tells and the
// playground starts. A row of stages/stage_servers.json, the one list of them (which says what each field
// is); the build writes the grader's copy from it (stage_server_rows.cmake).
struct StageServer {
  std::string binary;                    // file name in the bin dir
  std::string label;                     // short name: the matrix's column heading ("s3", "w-raw")
  std::string name;                      // how the demo's narration names it ("stage 3", "wrong turn 3a")
  std::string title;                     // what it is, in a few words ("the canonical fingerprint")
  std::string chapter;                   // the chapter that teaches it ("docs/learn/stage-3-fingerprint.md")
  int stage = 0;                         // the stage it is (or the stage it got wrong)
  std::optional<std::string> must_fail;  // wrong turns: the check named for the mistake
  std::vector<std::string> does;         // what it truly does: its traits ("durable-keys", "lease"; the table's
                                         // "traits" say what each means), which the truth table holds findings to
};

// Every stage server and wrong turn, stages first.
const std::vector<StageServer>& stage_servers();

// A stage by number ("1".."6") or a binary by name (a matrix subject: "wrong_select_then_insert", "w-sel").
// Returns its row, or nullptr if it is unknown.
const StageServer* find_stage_server(const std::string& name);

// The same name's binary: its path, or nullopt if it is unknown or not built.
std::optional<std::string> find_stage_binary(const std::string& name, const std::string& bin_dir);

// The folder the grader looks in by default: <the grader's own folder>/../stages.
std::string default_bin_dir();

// Where `make book` writes the book, beside the stages: <the program's own folder>/../book. The HTML report
// links into it, the playground serves it (docs/teach/the-playground.md "The book").
std::string default_book_dir();

// The grader's own path, for the commands it prints to repeat a run ("grader" alone is rarely on PATH).
std::string grader_path();

// The command line the grader starts a reference binary with: placeholders for the port, the database and
// the admin token, lab controls on, the request log off; `extra` is appended.
std::string stage_command(const std::string& binary_path, const std::string& extra = "");

}  // namespace grader
