// command_line.h: the one parser of every grader command line, and the --help it prints. Each subcommand
// declares its command line as a table (a CommandSpec) and reads its values from what this parser made.
//
//   const CommandSpec kSpec{.name = "grader soak",
//                           .summary = "crash-and-retry rounds on one server and one database file",
//                           .usage = {"[--rounds N] [--seed S] [--stage N|NAME] [--bin-dir DIR] [options]"},
//                           .flags = {{"--rounds", "N", "rounds to run (default 200)"},
//                                     {"--all-findings", "", "show every finding of the failed round"}}};
//   auto line = parse_command_line(kSpec, args);          // a CommandLine, or the exit status (help, error)
//   if (auto* status = std::get_if<int>(&line)) return *status;
//   auto& cl = std::get<CommandLine>(line);
//   cl.number("--rounds", 1, 10'000'000, rounds);        // absent: rounds keeps its default
//   if (cl.failed()) return usage_error(kSpec, cl.error());
//
// The rules, the same for every subcommand:
//   1. --help or -h anywhere prints the help to stdout, exit status 0, whatever else is on the line.
//   2. A flag that takes a value takes the next argument, whatever it is ("--server --help" is a server
//      command), or the text after '=' ("--seed=3"). Without one: "--seed needs S".
//   3. Any other argument that starts with '-' is an unknown option: "unknown option '--sede'".
//   4. The rest are positional, at most spec.positional of them: "unexpected argument 'x'".
//   5. A flag given twice counts once, with its last value.
//   6. A usage error is printed on stderr as "<name>: <what>" and "Try '<name> --help'.", exit status 2.
// The help always has one shape: "<name>: <summary>", Usage lines, the description, the options (aligned,
// generated from the table), and the closing text (exit status, colour).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "grader/base/numbers.h"

namespace grader {

struct Flag {
  std::string name;   // "--seed"
  std::string value = {};  // what it takes, as the help shows it ("S", "FILE"); empty: a switch
  std::string help = {};   // one line or several ('\n'), shown beside the name
};

struct CommandSpec {
  std::string name;                     // "grader soak": the prefix of every message
  std::string summary = {};             // the help's first line, after the name
  std::vector<std::string> usage = {};  // each a line after the name: "[--rounds N] [--seed S]"
  std::string description = {};        // paragraphs between Usage and Options; may be empty
  std::vector<Flag> flags = {};
  std::string closing = {};             // after Options: exit status, colour
  std::size_t positional = 0;           // how many non-flag arguments it takes at most
};

// What a command line said, read through the flag names of its spec. The typed readers keep the first
// error they meet; failed() and error() tell it, so a subcommand reads every value and checks once.
class CommandLine {
 public:
  bool has(const std::string& flag) const { return given_.count(flag) > 0; }
  bool help() const { return help_; }  // --help or -h was on the line (rule 1)
  // The flag's value, or `otherwise` when it was not given.
  std::string text(const std::string& flag, const std::string& otherwise = "") const;
  // Each sets `out` when the flag was given with a valid number from lo to hi, and else (a bad value) keeps
  // the error "--rounds takes a whole number from 1 to 10000000". Absent: `out` is left as it was.
  template <typename T>
  void number(const std::string& flag, T lo, T hi, T& out);
  template <typename T>
  void number(const std::string& flag, T lo, T hi, std::optional<T>& out);
  const std::vector<std::string>& positional() const { return positional_; }

  // A check of the subcommand's own (two flags that exclude each other, a required one): the first wins.
  void fail(const std::string& what) {
    if (error_.empty()) error_ = what;
  }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  friend std::variant<CommandLine, std::string> read_command_line(const CommandSpec& spec,
                                                                  const std::vector<std::string>& args);
  template <typename T>
  std::optional<T> read(const std::string& flag, T lo, T hi);

  std::map<std::string, std::string> values_;
  std::set<std::string> given_;
  std::vector<std::string> positional_;
  std::string error_;
  bool help_ = false;
};

// The help text of a spec (rule: one shape for every subcommand).
std::string help_text(const CommandSpec& spec);

// Prints "<name>: <what>" and the pointer to --help on stderr; returns 2, the exit status of a usage error.
int usage_error(const CommandSpec& spec, const std::string& what);

// The line read by the rules above, or what is wrong with it (a usage error). Prints nothing.
std::variant<CommandLine, std::string> read_command_line(const CommandSpec& spec, const std::vector<std::string>& args);

// read_command_line for a subcommand: the line, or the exit status to return at once, 0 after printing the
// help, 2 after printing a usage error.
std::variant<CommandLine, int> parse_command_line(const CommandSpec& spec, const std::vector<std::string>& args);

template <typename T>
std::optional<T> CommandLine::read(const std::string& flag, T lo, T hi) {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  auto n = parse_number<T>(it->second, lo, hi);
  if (!n) {
    const bool whole = lo == 0 && hi == std::numeric_limits<T>::max();
    fail(flag + " takes a whole number" +
         (whole ? std::string() : " from " + std::to_string(lo) + " to " + std::to_string(hi)));
  }
  return n;
}

template <typename T>
void CommandLine::number(const std::string& flag, T lo, T hi, T& out) {
  if (auto n = read(flag, lo, hi)) out = *n;
}

template <typename T>
void CommandLine::number(const std::string& flag, T lo, T hi, std::optional<T>& out) {
  if (auto n = read(flag, lo, hi)) out = *n;
}

}  // namespace grader
