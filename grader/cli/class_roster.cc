// class_roster.cc: see class_roster.h.
#include "grader/cli/class_roster.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace grader {
namespace {

namespace fs = std::filesystem;

bool blank_or_comment(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  return first == std::string::npos || line[first] == '#';
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The first line of the submission's command file that is a command, or "" (then `problem` says why).
std::string command_in(const fs::path& folder, std::string& problem) {
  std::ifstream in(folder / kCommandFile, std::ios::binary);
  if (!in) {
    problem = "no " + std::string(kCommandFile) + " in its folder (it holds the server's start command)";
    return "";
  }
  for (std::string line; std::getline(in, line);)
    if (!blank_or_comment(line)) return trimmed(line);
  problem = std::string(kCommandFile) + " holds no command (only blank lines and # comments)";
  return "";
}

}  // namespace

std::string name_problem(const std::string& name) {
  if (name.empty()) return "is empty";
  // '.' first: "." and ".." would name the output folder itself or its parent, and a hidden folder hides.
  if (name.front() == '.') return "starts with '.'";
  if (name.find('/') != std::string::npos) return "has a '/'";
  if (std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return "has a control character";
  if (name.size() > 100) return "is longer than 100 bytes";
  return "";
}

Class read_roster(const std::string& roster_path) {
  std::ifstream in(roster_path, std::ios::binary);
  if (!in) return "cannot read the roster " + roster_path;
  const fs::path base = fs::absolute(roster_path).parent_path();
  std::vector<Learner> learners;
  std::set<std::string> names;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a roster saved on Windows
    if (blank_or_comment(line)) continue;
    const std::string where = roster_path + ":" + std::to_string(number) + ": ";
    const auto tab1 = line.find('\t');
    const auto tab2 = tab1 == std::string::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string::npos)
      return where + "a line is name<TAB>folder<TAB>command (tab-separated), this one has " +
             std::to_string(tab1 == std::string::npos ? 1 : 2) + " field(s)";
    Learner learner{.name = trimmed(line.substr(0, tab1)),
                    .folder = trimmed(line.substr(tab1 + 1, tab2 - tab1 - 1)),
                    .command = trimmed(line.substr(tab2 + 1))};
    if (auto why = name_problem(learner.name); !why.empty())
      return where + "the name '" + learner.name + "' " + why + " (it becomes a folder of the output)";
    if (learner.folder.empty()) return where + "the folder is empty";
    if (learner.command.empty()) return where + "the command is empty";
    if (!names.insert(learner.name).second) return where + "the name '" + learner.name + "' is on an earlier line";
    learner.folder = (base / learner.folder).lexically_normal().string();
    // A folder that is not there is this learner's red row, not a stopped class.
    if (!fs::is_directory(learner.folder)) learner.problem = "its folder " + learner.folder + " does not exist";
    learners.push_back(std::move(learner));
  }
  if (learners.empty()) return "the roster " + roster_path + " names no learner";
  return learners;
}

Class read_submissions(const std::string& submissions_dir) {
  std::error_code error;
  fs::directory_iterator it(submissions_dir, error);
  if (error) return "cannot read the folder " + submissions_dir + ": " + error.message();
  std::vector<Learner> learners;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.front() == '.') continue;  // files beside them, .git
    if (auto why = name_problem(name); !why.empty())
      return "the submission folder '" + name + "' " + why + ": rename it (it becomes a folder of the output)";
    Learner learner{.name = name, .folder = fs::absolute(entry.path()).lexically_normal().string(), .command = ""};
    learner.command = command_in(entry.path(), learner.problem);
    learners.push_back(std::move(learner));
  }
  if (learners.empty()) return "the folder " + submissions_dir + " has no submission (a subfolder per learner)";
  std::sort(learners.begin(), learners.end(), [](const Learner& a, const Learner& b) { return a.name < b.name; });
  return learners;
}

}  // namespace grader
