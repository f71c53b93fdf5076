// api.h: the playground's HTTP API, which the page (playground/web/playground.js) drives, and the one
// session it shows. docs/teach/the-playground.md "The playground" lists the routes.
//
//   Playground playground(bin_dir);
//   install_routes(server, playground);   // GET /, the assets, /api/state, POST /api/tour, /api/send, ...
//
// State versions: the page long-polls GET /api/state?since=V. The playground numbers the states it has
// shown: when what a session shows changes (a request went out, an answer came, a key row changed in the
// server's file), the version goes up by one. Errors are problem+json (400 for a bad order, 404 for an
// unknown scenario or stand, 409 for an action the session cannot take now).
// Thread safety: every HTTP thread may call in; mutex_ guards the session pointer and the versions.
#pragma once

#include <filesystem>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "playground/session.h"

namespace httplib { class Server; }

namespace playground {

class Playground {
 public:
  Playground(std::string bin_dir, std::filesystem::path book_dir)
      : bin_dir_(std::move(bin_dir)), book_dir_(std::move(book_dir)) {}
  ~Playground();

  // The stands (stages and wrong turns) that are built, as [{"binary","label"}].
  nlohmann::json stands() const;
  nlohmann::json scenarios() const;  // each with "read": the chapter that teaches its fix, and its /book/ link
  const std::filesystem::path& book_dir() const { return book_dir_; }

  // Replaces the session (the old one's server stops). Each returns "" or why it could not.
  std::string start_tour(const std::string& scenario, const std::string& role, int seed, int step);
  std::string start_free(const std::string& stand, int seed);
  std::string back();  // the tour again, to one step before this one

  // The current session, or nullptr; shared so an HTTP thread keeps it alive while using it.
  std::shared_ptr<Session> session() const;
  // The state with its version; waits up to `patience` for a version above `since`.
  nlohmann::json state(std::int64_t since, std::chrono::milliseconds patience);

 private:
  void replace(std::shared_ptr<Session> next);

  const std::string bin_dir_;
  const std::filesystem::path book_dir_;
  mutable std::mutex mutex_;
  std::shared_ptr<Session> session_;
  std::int64_t version_ = 0;
  std::size_t last_digest_ = 0;
  // simultaneous-retries: the bursts the last flawed tour needed, for its fixing tour (as grader demo does).
  std::map<std::string, grader::Outcome> flawed_outcomes_;
  std::string last_tour_scenario_, last_tour_role_;
  int last_tour_seed_ = 1;
};

void install_routes(httplib::Server& server, Playground& playground);

}  // namespace playground
