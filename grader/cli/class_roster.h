// class_roster.h: who is in a class, for `grader class`: each learner's name, folder and start command.
// docs/teach/grader-for-courses.md "Grading a class".
//
// Two ways to name a class:
//   a folder of submissions   each subfolder is one learner, named by the folder; its start command is the
//                             first line of kCommandFile in it that is not blank and not a # comment
//   a roster file             one learner a line: name<TAB>folder<TAB>command, the folder relative to the
//                             roster's own folder; blank lines and lines starting with # are skipped
// The command is a grader --server template ({port}, {db}, {db_name}, {admin_token}); it runs in the
// learner's folder, so relative paths in it work.
//
//   auto roster = read_roster("class.tsv");     // the learners, or "class.tsv:3: ..." naming the bad line
//   auto folder = read_submissions("subs/");    // the same for a folder of submissions
//
// A name becomes a folder of the output (OUT/<name>/), so it must be one plain file name: see name_problem.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace grader {

// The file in a submission's folder that holds its start command.
inline constexpr const char* kCommandFile = "lab-server.cmd";

struct Learner {
  std::string name;     // a plain file name (name_problem says none)
  std::string folder;   // absolute: the server command runs there
  std::string command;  // the --server template; empty: `problem` says why there is none
  std::string problem = "";  // a learner that cannot be graded (no command file): a red row, not a stopped run
};

// Why `name` cannot be a folder of the output ("has a '/'", ...), or "" when it can.
std::string name_problem(const std::string& name);

using Class = std::variant<std::vector<Learner>, std::string>;  // the learners, or what is wrong

Class read_roster(const std::string& roster_path);
Class read_submissions(const std::string& submissions_dir);  // in name order; folders starting with '.' skipped

}  // namespace grader
