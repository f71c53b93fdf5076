// history.cc: see history.h. The history is JSON Lines, one event per line, in the order recorded:
//
//   history  = *( event LF )
//   event    = invoke / complete / observe / fault / ended
//   invoke   = {"type":"invoke", common, "op":OP, "key":KEY, "request":request}
//   complete = {"type":("ok" / "fail" / "unknown"), common, "op":OP, "key":KEY,
//               "status":(INT / null), "response":(response / null), "error":STRING}
//   observe  = {"type":"observe", common, "ledger_entries":INT}
//   fault    = {"type":"fault", common, "fault":("lab-crash" / "sigkill" / "restart" / "clock" / "wait"),
//               "detail":STRING}
//   ended    = {"type":"ended", common, "op":OP, "status":(INT / null), "error":STRING}
//   common   = "t":MS, "check":STRING, "intent":STRING
//   request  = {"method":STRING, "target":STRING, "headers":[[NAME, VALUE], ...], "body":STRING}
//              ; an Authorization value is cut after "Bearer " + 12 characters and "..." (redacted)
//   response = {"status":INT, "headers":[[NAME, VALUE], ...], "body":STRING}
//   KEY      = STRING / null                  ; the Idempotency-Key header value as sent, quotes included
//   OP       = INT                            ; 1, 2, ...: pairs an invoke with its completion
//   MS       = NUMBER                         ; monotonic milliseconds since the grader started
//
// Semantics (Jepsen's): "ok" means a 2xx came back; "fail" any other status (a definite answer);
// "unknown" no response (refused after sending, dropped, timed out, or lost on purpose), so the request may
// or may not have executed. An intent is one thing a client wants done; all its retries share the id.
// "observe" is what GET /admin/ledger held for the intent right after a success was reported. "ended"
// follows an "unknown" whose request the grader kept watching (a lost response, a timeout): when the server
// answered (status) or closed the connection, or the error "no response within ..." if it did not end in
// time. It is the observer's knowledge, not the client's: the client's completion stays unknown. Bodies
// are text: bytes that are not UTF-8 are written as U+FFFD. Events of concurrent requests interleave; an
// invoke's "t" is taken just before its request (or a burst's last byte) is sent, a completion's when the
// answer or the error came.
#include "grader/record/history.h"

#include <openssl/sha.h>
#include <strings.h>

#include <stdexcept>

namespace grader {

std::string_view to_string(EventType type) {
  switch (type) {
    case EventType::Invoke:
      return "invoke";
    case EventType::Ok:
      return "ok";
    case EventType::Fail:
      return "fail";
    case EventType::Unknown:
      return "unknown";
    case EventType::Observe:
      return "observe";
    case EventType::Fault:
      return "fault";
    case EventType::Ended:
      return "ended";
  }
  return "?";
}

namespace {

// A history or a failure report may be shared (a bug report, the playground, Gradescope's output) and the
// server it came from may still run (--url): bearer tokens are cut to their first kTokenCharsKept
// characters, enough to tell the clients apart.
constexpr std::size_t kTokenCharsKept = 12;
constexpr std::string_view kBearer = "Bearer ";

}  // namespace

std::string redacted_header_value(std::string_view name, const std::string& value) {
  bool is_authorization = name.size() == 13 && strncasecmp(name.data(), "Authorization", 13) == 0;
  const std::size_t kept = kBearer.size() + kTokenCharsKept;
  if (!is_authorization || value.size() <= kept) return value;
  return value.substr(0, kept) + "...";
}

namespace {

nlohmann::json headers_json(const Headers& headers) {
  auto list = nlohmann::json::array();
  for (const auto& [name, value] : headers) list.push_back({name, redacted_header_value(name, value)});
  return list;
}

nlohmann::json key_json(const std::optional<std::string>& key) { return key ? nlohmann::json(*key) : nullptr; }

}  // namespace

History::History(std::size_t keep_at_most) : start_ns_(monotonic_ns()), keep_at_most_(keep_at_most) {}

void History::stream_to(std::ostream* out) {
  std::lock_guard lock(mutex_);
  out_ = out;
}

std::string kept_body(const std::string& body) {
  if (body.size() <= kKeptBodyBytes) return body;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  std::string hex;
  for (unsigned char b : digest) {
    static constexpr char kHex[] = "0123456789abcdef";
    hex += kHex[b >> 4];
    hex += kHex[b & 0xf];
  }
  return body.substr(0, kKeptBodyHead) + "\n... [" + std::to_string(body.size()) + " bytes in all, SHA-256 " + hex +
         "; the history keeps the first " + std::to_string(kKeptBodyHead) + "]";
}

void History::append(Event event) {
  if (event.response) event.response->body = kept_body(event.response->body);
  event.request.body = kept_body(event.request.body);
  if (out_) {
    *out_ << to_json(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out_->flush();  // a history that survives a grader crash is the useful one
  }
  events_.push_back(std::move(event));
  if (keep_at_most_ == 0) return;
  while (events_.size() > keep_at_most_) {
    const Event& oldest = events_.front();
    if (oldest.type == EventType::Invoke && oldest.key && !dropped_.every_key) {
      // The set is bounded like the events: past keep_at_most_ keys, "any key" is all it can say.
      if (dropped_.keys.size() < keep_at_most_ || dropped_.keys.count(*oldest.key)) {
        dropped_.keys.insert(*oldest.key);
      } else {
        dropped_.every_key = true;
        dropped_.keys.clear();
      }
    }
    events_.pop_front();
    ++first_event_;
    ++dropped_.events;
  }
  while (!open_.empty() && open_.front() < first_event_) {  // ops whose invoke is gone
    open_.pop_front();
    ++first_op_;
  }
}

const Event* History::invoke_of(std::int64_t op) const {
  if (op < 1 || op >= next_op_) throw std::out_of_range("history: no op " + std::to_string(op));
  if (op < first_op_) return nullptr;
  const std::size_t number = open_.at(static_cast<std::size_t>(op - first_op_));
  return number < first_event_ ? nullptr : &events_.at(number - first_event_);
}

std::int64_t History::invoke(const std::string& check, const std::string& intent, const std::optional<std::string>& key,
                             const HttpRequest& request) {
  std::lock_guard lock(mutex_);
  Event e;
  e.type = EventType::Invoke;
  const std::int64_t op = e.op = next_op_;
  e.t_ms = static_cast<double>(monotonic_ns() - start_ns_) / 1e6;
  e.check = check;
  e.intent = intent;
  e.key = key;
  e.request = request;
  open_.push_back(first_event_ + events_.size());
  ++next_op_;
  append(std::move(e));
  return op;
}

void History::complete(std::int64_t op, const Exchange& exchange) {
  std::lock_guard lock(mutex_);
  const Event* invoked = invoke_of(op);
  if (!invoked) {
    ++dropped_.events;
    return;
  }
  Event e;
  e.op = op;
  e.check = invoked->check;
  e.intent = invoked->intent;
  e.key = invoked->key;
  e.t_ms = static_cast<double>(exchange.done_ns - start_ns_) / 1e6;
  if (exchange.response) {
    e.type = exchange.response->status / 100 == 2 ? EventType::Ok : EventType::Fail;
    e.response = exchange.response;
  } else {
    e.type = EventType::Unknown;
    e.error = exchange.error;
  }
  append(std::move(e));
}

void History::observe(const std::string& check, const std::string& intent, std::int64_t ledger_entries) {
  std::lock_guard lock(mutex_);
  Event e;
  e.type = EventType::Observe;
  e.t_ms = static_cast<double>(monotonic_ns() - start_ns_) / 1e6;
  e.check = check;
  e.intent = intent;
  e.ledger_entries = ledger_entries;
  append(std::move(e));
}

void History::fault(const std::string& check, const std::string& what, const std::string& detail) {
  std::lock_guard lock(mutex_);
  Event e;
  e.type = EventType::Fault;
  e.t_ms = static_cast<double>(monotonic_ns() - start_ns_) / 1e6;
  e.check = check;
  e.fault = what;
  e.detail = detail;
  append(std::move(e));
}

void History::ended(std::int64_t op, const Exchange& exchange) {
  std::lock_guard lock(mutex_);
  const Event* invoked = invoke_of(op);
  if (!invoked) {
    ++dropped_.events;
    return;
  }
  Event e;
  e.type = EventType::Ended;
  e.op = op;
  e.check = invoked->check;
  e.intent = invoked->intent;
  e.t_ms = static_cast<double>(exchange.done_ns - start_ns_) / 1e6;
  e.response = exchange.response;
  e.error = exchange.error;
  append(std::move(e));
}

std::vector<Event> History::of_check(const std::string& check) const {
  std::lock_guard lock(mutex_);
  std::vector<Event> out;
  for (const auto& e : events_)
    if (e.check == check) out.push_back(e);
  return out;
}

History::Dropped History::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

nlohmann::json History::to_json(const Event& e) {
  nlohmann::json j = {{"type", to_string(e.type)}, {"t", e.t_ms}, {"check", e.check}, {"intent", e.intent}};
  switch (e.type) {
    case EventType::Invoke:
      j["op"] = e.op;
      j["key"] = key_json(e.key);
      j["request"] = {{"method", e.request.method},
                      {"target", e.request.target},
                      {"headers", headers_json(e.request.headers)},
                      {"body", e.request.body}};
      break;
    case EventType::Ok:
    case EventType::Fail:
    case EventType::Unknown:
      j["op"] = e.op;
      j["key"] = key_json(e.key);
      j["status"] = e.response ? nlohmann::json(e.response->status) : nullptr;
      j["response"] = e.response ? nlohmann::json{{"status", e.response->status},
                                                  {"headers", headers_json(e.response->headers)},
                                                  {"body", e.response->body}}
                                 : nlohmann::json(nullptr);
      j["error"] = e.error;
      break;
    case EventType::Observe:
      j["ledger_entries"] = e.ledger_entries;
      break;
    case EventType::Fault:
      j["fault"] = e.fault;
      j["detail"] = e.detail;
      break;
    case EventType::Ended:
      j["op"] = e.op;
      j["status"] = e.response ? nlohmann::json(e.response->status) : nullptr;
      j["error"] = e.error;
      break;
  }
  return j;
}

}  // namespace grader
