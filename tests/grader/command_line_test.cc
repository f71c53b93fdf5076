// command_line_test.cc: the one parser of every grader command line (grader/cli/command_line.h), rule by rule.
#include <catch2/catch.hpp>

#include "grader/cli/command_line.h"

using namespace grader;

namespace {

const CommandSpec kSpec{.name = "grader test",
                        .summary = "a command line to test the parser with",
                        .usage = {"[--rounds N] [--server CMD] [NAME]"},
                        .flags = {{"--rounds", "N", "how many"},
                                  {"--server", "CMD", "a command"},
                                  {"--seed", "S", "a seed"},
                                  {"--step", "", "a switch"}},
                        .positional = 1};

CommandLine read(const std::vector<std::string>& args) {
  auto line = read_command_line(kSpec, args);
  REQUIRE(std::holds_alternative<CommandLine>(line));
  return std::get<CommandLine>(line);
}

std::string error_of(const std::vector<std::string>& args) {
  auto line = read_command_line(kSpec, args);
  REQUIRE(std::holds_alternative<std::string>(line));
  return std::get<std::string>(line);
}

}  // namespace

TEST_CASE("command line rule 1: --help anywhere is help, before any other error") {
  CHECK(read({"--help"}).help());
  CHECK(read({"--bogus", "-h"}).help());
  CHECK(read({"--rounds", "x", "--help"}).help());
  CHECK_FALSE(read({"--server", "--help"}).help());  // a flag's value, not a request for help (rule 2)
}

TEST_CASE("command line rule 2: a value is the next argument, whatever it is, or after '='") {
  CHECK(read({"--server", "--help"}).text("--server") == "--help");
  CHECK(read({"--server=python3 s.py"}).text("--server") == "python3 s.py");
  CHECK(error_of({"--rounds"}) == "--rounds needs N");
  CHECK(error_of({"--step=yes"}) == "--step takes no value");
}

TEST_CASE("command line rules 3 to 5: unknown options, positionals, the last value counts") {
  CHECK(error_of({"--sede", "1"}) == "unknown option '--sede'");
  CHECK(error_of({"a", "b"}) == "unexpected argument 'b'");
  auto line = read({"NAME", "--rounds", "3", "--rounds", "4", "--step"});
  CHECK(line.positional() == std::vector<std::string>{"NAME"});
  CHECK(line.has("--step"));
  CHECK_FALSE(line.has("--seed"));
  int rounds = 1;
  line.number("--rounds", 1, 10, rounds);
  CHECK(rounds == 4);
  CHECK_FALSE(line.failed());
}

TEST_CASE("command line numbers: digits within the range, or the first error is kept") {
  auto line = read({"--rounds", "11", "--seed", "x"});
  int rounds = 1;
  std::optional<std::uint64_t> seed;
  line.number("--rounds", 1, 10, rounds);
  line.number<std::uint64_t>("--seed", 0, UINT64_MAX, seed);
  CHECK(rounds == 1);
  CHECK_FALSE(seed);
  CHECK(line.error() == "--rounds takes a whole number from 1 to 10");
  auto whole = read({"--seed", "1e3"});
  whole.number<std::uint64_t>("--seed", 0, UINT64_MAX, seed);
  CHECK(whole.error() == "--seed takes a whole number");
}

TEST_CASE("command line help: one shape, the options aligned and --help last") {
  const std::string help = help_text(kSpec);
  CHECK(help.starts_with("grader test: a command line to test the parser with\n\nUsage:\n"
                         "  grader test [--rounds N] [--server CMD] [NAME]\n"));
  CHECK(help.find("\nOptions:\n  --rounds N    how many\n") != std::string::npos);
  CHECK(help.find("  --step        a switch\n  --help        this text\n") != std::string::npos);
}
