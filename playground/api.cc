// api.cc: see api.h. docs/teach/the-playground.md "The playground".
#include "playground/api.h"

#include <httplib.h>

#include <charconv>
#include <functional>
#include <limits>
#include <type_traits>
#include <thread>

#include "grader/base/doc_ref.h"
#include "grader/base/stage_binaries.h"
#include "playground/book_files.h"
#include "playground/web_assets.h"

namespace playground {
namespace {

using namespace std::chrono_literals;

// Every server the playground can start: the stage servers and wrong turns (grader/base/stage_binaries.h),
// each shown with its title: "wrong turn 2a (SELECT, then INSERT)".
const std::vector<grader::DemoStand>& all_stands() {
  static const std::vector<grader::DemoStand> table = [] {
    std::vector<grader::DemoStand> stands;
    for (const auto& s : grader::stage_servers()) stands.push_back({s.binary, s.name + " (" + s.title + ")"});
    return stands;
  }();
  return table;
}

// A long poll holds an HTTP worker: short enough that stopping the playground (which waits for its
// workers) is quick, long enough that an idle page asks only every few seconds.
constexpr std::chrono::milliseconds kLongPoll{2'000};
constexpr std::chrono::milliseconds kStatePoll{150};  // how often a waiting long poll looks again

void reply_json(httplib::Response& res, int status, const nlohmann::json& body,
                const char* content_type = "application/json") {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), content_type);
}

// The playground's own errors, as RFC 9457 problem+json like the lab's servers answer theirs; their types are
// the playground's, not the contract's (/problems lists the stage servers' types only).
enum class Refusal { BadInput, NotFound, NotNow };

void reply_problem(httplib::Response& res, Refusal refusal, const std::string& detail) {
  struct Shape {
    int status;
    const char* slug;
    const char* title;
  };
  const Shape shape = refusal == Refusal::BadInput ? Shape{400, "bad-input", "The playground cannot do that as asked"}
                      : refusal == Refusal::NotFound ? Shape{404, "not-found", "No such scenario, stand or file"}
                                                     : Shape{409, "not-now", "The session cannot do that now"};
  reply_json(res, shape.status,
             {{"type", std::string("/playground/problems/") + shape.slug}, {"title", shape.title},
              {"status", shape.status}, {"detail", detail}},
             "application/problem+json");
}

// The request's JSON body as an object, or a 400 problem already answered.
std::optional<nlohmann::json> body_or_reply(const httplib::Request& req, httplib::Response& res) {
  auto body = nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    reply_problem(res, Refusal::BadInput, "the body must be a JSON object");
    return std::nullopt;
  }
  return body;
}

// A member of the body of the type T, or its default; nullopt (400 answered) when it has another type.
template <typename T>
std::optional<T> member(const nlohmann::json& body, const char* name, T fallback, httplib::Response& res) {
  if (!body.contains(name) || body[name].is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann's get<int> converts any number: 1.5 would become 1, and 1e300 is undefined behaviour. Only a
    // whole number the type holds exactly is taken.
    const nlohmann::json& v = body[name];
    const bool fits = v.is_number_unsigned()  ? v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                      : v.is_number_integer() ? v.get<std::int64_t>() >= std::int64_t(std::numeric_limits<T>::min()) &&
                                                    v.get<std::int64_t>() <= std::int64_t(std::numeric_limits<T>::max())
                                              : false;
    if (!fits) {
      reply_problem(res, Refusal::BadInput, std::string(name) + ": a whole number in range");
      return std::nullopt;
    }
  }
  try {
    return body[name].get<T>();
  } catch (const nlohmann::json::exception&) {
    reply_problem(res, Refusal::BadInput, std::string(name) + " has the wrong type");
    return std::nullopt;
  }
}

void reply_refused(httplib::Response& res, const std::string& why) {
  reply_problem(res, why.starts_with("no scenario") || why.starts_with("no stand") ? Refusal::NotFound : Refusal::BadInput,
                why);
}

// The playground starts processes and moves (test) money for whoever drives it, so only its own page may.
// Another web site open in the same browser can make the browser send requests to 127.0.0.1, two ways:
//   - DNS rebinding: a name of the attacker's that resolves to 127.0.0.1; the Host header still carries
//     that name, so only "127.0.0.1" and "localhost" are served;
//   - a cross-site form POST (no CORS preflight): it can only be text/plain, form-urlencoded or multipart,
//     so every POST must be application/json, which a cross-site page cannot send without a preflight that
//     the playground never answers.
std::string refused_origin(const httplib::Request& req) {
  const std::string host = req.get_header_value("Host");
  const std::string name = host.substr(0, host.rfind(':') == std::string::npos ? host.size() : host.rfind(':'));
  if (name != "127.0.0.1" && name != "localhost") return "Host \"" + host + "\": the playground serves 127.0.0.1 and localhost only";
  if (req.method == "POST" && !req.get_header_value("Content-Type").starts_with("application/json"))
    return "a POST to the playground is application/json";
  return "";
}

using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
Handler guarded(Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    if (auto why = refused_origin(req); !why.empty()) return reply_problem(res, Refusal::BadInput, why);
    handler(req, res);
  };
}

}  // namespace

Playground::~Playground() { replace(nullptr); }

nlohmann::json Playground::stands() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : all_stands())
    if (grader::find_stage_binary(s.binary, bin_dir_)) out.push_back(stand_json(s));
  return out;
}

nlohmann::json Playground::scenarios() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : grader::demo_scenarios()) {
    bool built = grader::find_stage_binary(s.flawed.binary, bin_dir_) &&
                 (!s.fixing || grader::find_stage_binary(s.fixing->binary, bin_dir_));
    if (!built) continue;  // a learner's starter copy has stage 1 only
    // The chapter to read: the fixing stage's (or, for a story of the last stage's policy, its own).
    const grader::StageServer* teacher = grader::find_stage_server(s.fixing ? s.fixing->binary : s.flawed.binary);
    nlohmann::json read;
    if (teacher && !teacher->must_fail) {
      const grader::DocRef chapter = grader::stage_chapter(teacher->stage);
      read = {{"text", chapter.heading}, {"href", grader::book_href(chapter)}};
    }
    out.push_back({{"name", s.name}, {"title", s.title}, {"flawed", stand_json(s.flawed)},
                   {"fixing", s.fixing ? stand_json(*s.fixing) : nlohmann::json()}, {"read", read}});
  }
  return out;
}

void Playground::replace(std::shared_ptr<Session> next) {
  std::shared_ptr<Session> old;
  {
    std::lock_guard lock(mutex_);
    old = std::move(session_);
  }
  if (old && old->scenario() && old->role() == grader::DemoRole::Flawed)
    if (auto o = old->outcome()) {
      std::lock_guard lock(mutex_);
      flawed_outcomes_[old->scenario()->name] = *o;
    }
  old.reset();  // its server stops before the next one starts (an HTTP thread may still hold it a moment)
  std::lock_guard lock(mutex_);
  session_ = std::move(next);
}

std::string Playground::start_tour(const std::string& name, const std::string& role, int seed, int step) {
  const grader::DemoScenario* scenario = grader::find_demo_scenario(name);
  if (!scenario) return "no scenario \"" + name + "\" (GET /api/scenarios lists them)";
  if (role != "flawed" && role != "fixing") return "role: \"flawed\" or \"fixing\"";
  if (step < 0 || step > 50) return "step: 0 to 50";
  SessionOptions options{.seed = seed, .step = step, .bin_dir = bin_dir_, .first_telling = std::nullopt};
  replace(nullptr);
  {
    std::lock_guard lock(mutex_);
    if (auto it = flawed_outcomes_.find(name); it != flawed_outcomes_.end()) options.first_telling = it->second;
  }
  replace(Session::tour(*scenario, role == "fixing" ? grader::DemoRole::Fixing : grader::DemoRole::Flawed, options));
  return "";
}

std::string Playground::start_free(const std::string& binary, int seed) {
  for (const auto& s : all_stands())
    if (binary == s.binary) {
      if (!grader::find_stage_binary(s.binary, bin_dir_)) return "no stand \"" + binary + "\" is built";
      replace(nullptr);
      replace(Session::free(s, SessionOptions{.seed = seed, .step = 0, .bin_dir = bin_dir_, .first_telling = {}}));
      return "";
    }
  return "no stand \"" + binary + "\" (GET /api/stands lists them)";
}

std::string Playground::back() {
  auto s = session();
  if (!s || !s->scenario()) return "back: only a guided tour steps back";
  // A real server cannot un-send: the tour is told again on a fresh database, to the step before.
  return start_tour(s->scenario()->name, s->role() == grader::DemoRole::Fixing ? "fixing" : "flawed", s->seed(),
                    std::max(0, s->step() - 1));
}

std::shared_ptr<Session> Playground::session() const {
  std::lock_guard lock(mutex_);
  return session_;
}

nlohmann::json Playground::state(std::int64_t since, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto s = session();
    nlohmann::json st = s ? s->state()
                          : nlohmann::json{{"session", {{"mode", "none"}, {"waiting", "finished"}}},
                                           {"narration", nlohmann::json::array()},
                                           {"history", nlohmann::json::array()}};
    const std::size_t digest = std::hash<std::string>{}(st.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    {
      std::lock_guard lock(mutex_);
      if (digest != last_digest_) {
        last_digest_ = digest;
        ++version_;
      }
      if (version_ > since || std::chrono::steady_clock::now() >= deadline) {
        st["version"] = version_;
        return st;
      }
    }
    std::this_thread::sleep_for(kStatePoll);
  }
}

void install_routes(httplib::Server& server, Playground& playground) {
  server.Get(R"(/(|[a-z_]+\.(html|js|css|svg|png)))", guarded([](const httplib::Request& req, httplib::Response& res) {
    const WebAsset* asset = find_web_asset(req.path);
    if (!asset) return reply_problem(res, Refusal::NotFound, "no such file");
    res.set_content(std::string(asset->body), std::string(asset->content_type).c_str());
    res.set_header("Cache-Control", "no-store");  // a rebuilt playground serves its new page at once
  }));
  // The book (`make book`): /book/ and the files below it, read from the book's folder (book_files.h).
  server.Get("/book", guarded([](const httplib::Request&, httplib::Response& res) {
    res.status = 301;
    res.set_header("Location", "/book/");
  }));
  server.Get(R"(/book/(.*))", guarded([&](const httplib::Request& req, httplib::Response& res) {
    auto file = read_book_file(playground.book_dir(), req.matches[1].str());
    if (!file) {
      const bool made = std::filesystem::exists(playground.book_dir() / "index.html");
      return reply_problem(res, Refusal::NotFound,
                           made ? "the book has no such page" : "the book has not been made: run make book");
    }
    res.set_content(file->body, file->content_type.c_str());
    res.set_header("Cache-Control", "no-store");  // a `make book` shows at the next reload
  }));
  server.Get("/api/stands", guarded([&](const httplib::Request&, httplib::Response& res) { reply_json(res, 200, playground.stands()); }));
  server.Get("/api/scenarios", guarded([&](const httplib::Request&, httplib::Response& res) {
    reply_json(res, 200, playground.scenarios());
  }));
  server.Get("/api/state", guarded([&](const httplib::Request& req, httplib::Response& res) {
    std::int64_t since = -1;
    if (req.has_param("since")) {
      const std::string text = req.get_param_value("since");
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), since);
      if (error != std::errc() || end != text.data() + text.size())
        return reply_problem(res, Refusal::BadInput, "since: a state version (an integer)");
    }
    reply_json(res, 200, playground.state(since, since < 0 ? 0ms : kLongPoll));
  }));
  server.Get("/api/history.jsonl", guarded([&](const httplib::Request&, httplib::Response& res) {
    auto s = playground.session();
    res.set_content(s ? s->history_jsonl() : "", "application/jsonl");
    res.set_header("Content-Disposition", "attachment; filename=\"playground-history.jsonl\"");
  }));
  server.Post("/api/tour", guarded([&](const httplib::Request& req, httplib::Response& res) {
    auto body = body_or_reply(req, res);
    if (!body) return;
    auto name = member<std::string>(*body, "scenario", "", res);
    auto role = name ? member<std::string>(*body, "role", "flawed", res) : std::nullopt;
    auto seed = role ? member<int>(*body, "seed", 1, res) : std::nullopt;
    auto step = seed ? member<int>(*body, "step", 0, res) : std::nullopt;
    if (!step) return;
    if (auto why = playground.start_tour(*name, *role, *seed, *step); !why.empty()) return reply_refused(res, why);
    reply_json(res, 202, playground.state(-1, 0ms));
  }));
  server.Post("/api/free", guarded([&](const httplib::Request& req, httplib::Response& res) {
    auto body = body_or_reply(req, res);
    if (!body) return;
    auto stand = member<std::string>(*body, "stand", "stage1_naive", res);
    auto seed = stand ? member<int>(*body, "seed", 1, res) : std::nullopt;
    if (!seed) return;
    if (auto why = playground.start_free(*stand, *seed); !why.empty()) return reply_refused(res, why);
    reply_json(res, 202, playground.state(-1, 0ms));
  }));
  server.Post("/api/back", guarded([&](const httplib::Request&, httplib::Response& res) {
    if (auto why = playground.back(); !why.empty())
      return reply_problem(res, Refusal::NotNow, why);
    reply_json(res, 202, playground.state(-1, 0ms));
  }));

  // The actions of a running session: 409 when there is none of the right kind.
  auto with_session = [&](bool tour, httplib::Response& res) -> std::shared_ptr<Session> {
    auto s = playground.session();
    if (!s || (s->scenario() != nullptr) != tour) {
      reply_problem(res, Refusal::NotNow,
                    tour ? "no guided tour is running (POST /api/tour)" : "free mode is not running (POST /api/free)");
      return nullptr;
    }
    return s;
  };
  server.Post("/api/next", guarded([&, with_session](const httplib::Request&, httplib::Response& res) {
    if (auto s = with_session(true, res)) {
      s->next();
      reply_json(res, 202, {{"step", s->step()}});
    }
  }));
  server.Post("/api/predict", guarded([&, with_session](const httplib::Request& req, httplib::Response& res) {
    auto body = body_or_reply(req, res);
    if (!body) return;
    auto choice = member<std::string>(*body, "choice", "", res);
    if (!choice) return;
    if (*choice != "replay" && *choice != "409" && *choice != "422" && *choice != "new-debit")
      return reply_problem(res, Refusal::BadInput, "choice: replay, 409, 422 or new-debit");
    auto s = playground.session();
    if (!s || !s->predict(*choice))
      return reply_problem(res, Refusal::NotNow, "no repeat waits for a prediction");
    reply_json(res, 202, {{"choice", *choice}});
  }));
  server.Post("/api/send", guarded([&, with_session](const httplib::Request& req, httplib::Response& res) {
    auto body = body_or_reply(req, res);
    if (!body) return;
    SendOrder o;
    auto client = member<std::string>(*body, "client", "alice", res);
    auto key = client ? member<std::string>(*body, "key", "", res) : std::nullopt;
    auto amount = key ? member<std::int64_t>(*body, "amount", 0, res) : std::nullopt;
    auto copies = amount ? member<int>(*body, "copies", 1, res) : std::nullopt;
    auto drop = copies ? member<bool>(*body, "drop", false, res) : std::nullopt;
    auto crash = drop ? member<std::string>(*body, "crash", "", res) : std::nullopt;
    auto delay = crash ? member<int>(*body, "delay_ms", 0, res) : std::nullopt;
    if (!delay) return;
    o = {*client, *key, *amount, *copies, *drop, *crash, *delay};
    if (auto why = invalid_order(o); !why.empty())
      return reply_problem(res, Refusal::BadInput, why);
    if (auto s = with_session(false, res)) {
      s->send(o);
      reply_json(res, 202, {{"queued", true}});
    }
  }));
  server.Post("/api/restart", guarded([&, with_session](const httplib::Request&, httplib::Response& res) {
    if (auto s = with_session(false, res)) {
      s->restart();
      reply_json(res, 202, {{"queued", true}});
    }
  }));
  server.Post("/api/clock", guarded([&, with_session](const httplib::Request& req, httplib::Response& res) {
    auto body = body_or_reply(req, res);
    if (!body) return;
    auto seconds = member<int>(*body, "seconds", 0, res);
    if (!seconds) return;
    if (*seconds < 1 || *seconds > 30 * 24 * 3600)
      return reply_problem(res, Refusal::BadInput, "seconds: 1 to 2,592,000 (30 days)");
    if (auto s = with_session(false, res)) {
      s->advance_clock(*seconds);
      reply_json(res, 202, {{"queued", true}});
    }
  }));
}

}  // namespace playground
