// keys.cc: the Idempotency-Key header's grammar and the row's clock questions (keys.h).
// docs/reference/http-contract.md "The Idempotency-Key header".
//
//   header   = OWS ( sf-string / bare ) OWS
//   sf-string = DQUOTE *( %x20-21 / %x23-5B / %x5D-7E / "\" ( DQUOTE / "\" ) ) DQUOTE
//   bare     = 1*( printable ASCII except SP DQUOTE "," ";" "\" )     (a documented leniency)
//   then 1 to 255 characters; a "," after a key is a list, a ";" parameters.
#include "grader/model/keys.h"

#include <string_view>

namespace grader::model {

namespace {
KeyHeader refused(std::vector<std::string> problems) { return KeyHeader{.ok = false, .key = {}, .problems = std::move(problems)}; }
bool printable(char c) { return c >= 0x20 && c <= 0x7E; }

std::string_view trim_ows(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// What follows a complete key decides between a list, parameters and malformed.
KeyHeader after_key(std::string key, std::string_view rest) {
  rest = trim_ows(rest);
  if (!rest.empty()) {
    if (rest.front() == ',') return refused({"idempotency-key-list"});
    if (rest.front() == ';') return refused({"idempotency-key-parameters"});
    return refused({"idempotency-key-malformed"});
  }
  if (key.empty()) return refused({"idempotency-key-empty"});
  if (key.size() > kMaxKeyLength) return refused({"idempotency-key-too-long"});
  return KeyHeader{.ok = true, .key = std::move(key), .problems = {}};
}
}  // namespace

KeyHeader read_idempotency_key(const std::vector<std::string>& values) {
  if (values.empty()) return refused({"idempotency-key-missing"});
  if (values.size() > 1) return refused({"idempotency-key-repeated-header"});
  // An empty header line never reaches the lab's handlers (cpp-httplib drops it): missing there, empty
  // in another language; the contract allows either for that one case.
  if (values[0].empty()) return refused({"idempotency-key-missing", "idempotency-key-empty"});
  std::string_view v = trim_ows(values[0]);
  if (v.empty()) return refused({"idempotency-key-empty"});
  std::string key;
  if (v.front() == '"') {
    std::size_t i = 1;
    for (;;) {
      if (i >= v.size()) return refused({"idempotency-key-malformed"});  // no closing quote
      char c = v[i];
      if (c == '"') break;
      if (!printable(c)) return refused({"idempotency-key-malformed"});
      if (c == '\\') {
        if (i + 1 >= v.size() || (v[i + 1] != '"' && v[i + 1] != '\\')) return refused({"idempotency-key-malformed"});
        key += v[i + 1];
        i += 2;
        continue;
      }
      key += c;
      ++i;
    }
    return after_key(std::move(key), v.substr(i + 1));
  }
  std::size_t i = 0;
  while (i < v.size() && printable(v[i]) && v[i] != ' ' && v[i] != '"' && v[i] != ',' && v[i] != ';' && v[i] != '\\')
    key += v[i++];
  if (i < v.size() && v[i] != ',' && v[i] != ';' && v[i] != ' ' && v[i] != '\t')
    return refused({"idempotency-key-malformed"});
  return after_key(std::move(key), v.substr(i));
}

const char* endpoint_path(Endpoint endpoint) { return endpoint == Endpoint::Transfers ? "/transfers" : "/payouts"; }

Maybe reached(Span deadline, Span now) {
  if (now.lo >= deadline.hi) return Maybe::Yes;
  if (now.hi < deadline.lo) return Maybe::No;
  return Maybe::Either;
}

Maybe lease_run_out(const KeyRow& row, Span now) {
  if (row.state != KeyState::InProgress) return Maybe::No;
  return reached(row.locked_until, now);
}

Maybe expired(const KeyRow& row, Span now) {
  Maybe ttl = reached(row.expires_at, now);
  Maybe lease = row.state == KeyState::Completed ? Maybe::Yes : reached(row.locked_until, now);
  if (ttl == Maybe::No || lease == Maybe::No) return Maybe::No;
  if (ttl == Maybe::Yes && lease == Maybe::Yes) return Maybe::Yes;
  return Maybe::Either;
}

}  // namespace grader::model
