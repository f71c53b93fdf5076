// command_line.cc: see command_line.h.
#include "grader/cli/command_line.h"

#include <algorithm>
#include <iostream>

namespace grader {

std::string CommandLine::text(const std::string& flag, const std::string& otherwise) const {
  auto it = values_.find(flag);
  return it == values_.end() ? otherwise : it->second;
}

std::string help_text(const CommandSpec& spec) {
  std::string out = spec.name + ": " + spec.summary + "\n\nUsage:\n";
  for (const auto& line : spec.usage) out += "  " + spec.name + (line.empty() ? "" : " " + line) + "\n";
  if (!spec.description.empty()) out += "\n" + spec.description + (spec.description.back() == '\n' ? "" : "\n");
  // Options: the names (and what they take) in one column, their help beside it, aligned; --help last.
  std::vector<Flag> rows = spec.flags;
  rows.push_back({"--help", "", "this text"});
  std::size_t width = 0;
  auto left = [](const Flag& f) { return f.name + (f.value.empty() ? "" : " " + f.value); };
  for (const auto& f : rows) width = std::max(width, left(f).size());
  const std::string continued = "\n  " + std::string(width + 2, ' ');
  out += "\nOptions:\n";
  for (const auto& f : rows) {
    std::string help = f.help;
    for (std::size_t at = 0; (at = help.find('\n', at)) != std::string::npos; at += continued.size())
      help.replace(at, 1, continued);
    out += "  " + left(f) + std::string(width + 2 - left(f).size(), ' ') + help + "\n";
  }
  if (!spec.closing.empty()) out += "\n" + spec.closing + (spec.closing.back() == '\n' ? "" : "\n");
  return out;
}

int usage_error(const CommandSpec& spec, const std::string& what) {
  std::cerr << spec.name << ": " << what << "\nTry '" << spec.name << " --help'.\n";
  return 2;
}

std::variant<CommandLine, std::string> read_command_line(const CommandSpec& spec, const std::vector<std::string>& args) {
  auto find_flag = [&](const std::string& name) {
    return std::find_if(spec.flags.begin(), spec.flags.end(), [&](const Flag& f) { return f.name == name; });
  };
  CommandLine line;
  // Rule 1 first: --help wins over any error elsewhere on the line (but not when it is a flag's value).
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      line.help_ = true;
      return line;
    }
    auto flag = find_flag(args[i]);
    if (flag != spec.flags.end() && !flag->value.empty()) ++i;  // its value, whatever it is (rule 2)
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("-") || arg == "-") {
      if (line.positional_.size() == spec.positional) return "unexpected argument '" + arg + "'";
      line.positional_.push_back(arg);
      continue;
    }
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    auto flag = find_flag(name);
    if (flag == spec.flags.end()) return "unknown option '" + name + "'";
    if (flag->value.empty()) {
      if (equals != std::string::npos) return name + " takes no value";
    } else if (equals != std::string::npos) {
      line.values_[name] = arg.substr(equals + 1);
    } else if (i + 1 < args.size()) {
      line.values_[name] = args[++i];
    } else {
      return name + " needs " + flag->value;
    }
    line.given_.insert(name);
  }
  return line;
}

std::variant<CommandLine, int> parse_command_line(const CommandSpec& spec, const std::vector<std::string>& args) {
  auto line = read_command_line(spec, args);
  if (auto* error = std::get_if<std::string>(&line)) return usage_error(spec, *error);
  if (std::get<CommandLine>(line).help()) {
    std::cout << help_text(spec);
    return 0;
  }
  return std::get<CommandLine>(std::move(line));
}

}  // namespace grader
