// database_file.cc: see database_file.h.
#include "grader/wire/database_file.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

extern char** environ;

namespace grader {
namespace {

struct ProgramOutput {
  std::string failed_to_run;  // "" when the program ran
  int exit_status = 0;
  std::string text = "";  // stdout and stderr together, as the program wrote them
};

// `sqlite3 -readonly -batch PATH SQL`, with no shell in between (the path is the server's, not ours).
ProgramOutput sqlite3_read_only(const std::string& path, const std::string& sql) {
  ProgramOutput out;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {.failed_to_run = std::string("pipe: ") + std::strerror(errno)};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string program = "sqlite3", readonly = "-readonly", batch = "-batch";
  std::string path_arg = path, sql_arg = sql;
  char* argv[] = {program.data(), readonly.data(), batch.data(), path_arg.data(), sql_arg.data(), nullptr};
  pid_t pid = -1;
  int spawned = ::posix_spawnp(&pid, "sqlite3", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return {.failed_to_run = spawned == ENOENT ? "the sqlite3 program is not installed (apt-get install sqlite3)"
                                               : std::string("sqlite3: ") + std::strerror(spawned)};
  }
  char chunk[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!out.text.empty() && out.text.back() == '\n') out.text.pop_back();
  return out;
}

}  // namespace

DatabaseFileReading read_database_file(const std::string& path, std::int64_t lab_now_ms) {
  DatabaseFileReading reading;
  ProgramOutput integrity = sqlite3_read_only(path, "PRAGMA integrity_check;");
  if (!integrity.failed_to_run.empty()) {
    reading.unavailable = integrity.failed_to_run;
    return reading;
  }
  reading.integrity = integrity.exit_status == 0 ? integrity.text : "sqlite3 failed: " + integrity.text;

  // A key whose lease has ended while nothing runs is one no holder will ever finish.
  ProgramOutput keys =
      sqlite3_read_only(path,
                        "SELECT key || ' (lease ended at ' || locked_until || ' ms)' FROM idempotency_keys "
                        "WHERE state = 'in_progress' AND locked_until <= " +
                            std::to_string(lab_now_ms) + ";");
  if (keys.exit_status != 0) return reading;  // no such table or column: not the reference schema
  std::vector<std::string> stuck;
  std::istringstream lines(keys.text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) stuck.push_back(line);
  reading.stuck_keys = std::move(stuck);
  return reading;
}

}  // namespace grader
