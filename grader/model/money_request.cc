// money_request.cc: the body rules (money_request.h). docs/reference/http-contract.md "Client endpoints (client token)".
// Numbers are judged by their value (the double RFC 8785 canonicalizes), never by their spelling: 1500,
// 1500.0, 1.5e3 and 15E2 are one amount, so one fingerprint never gets two verdicts.
#include "grader/model/money_request.h"

#include <cmath>

#include "grader/model/canonical.h"
#include "grader/model/message.h"

namespace grader::model {

namespace {

std::optional<std::int64_t> positive_integer(const Json* v) {
  if (v == nullptr || v->kind != Json::Kind::Number) return std::nullopt;
  double d = v->number;
  if (d < 1 || d > static_cast<double>(kMaxMoney) || std::floor(d) != d) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::size_t code_points(std::string_view utf8) {
  std::size_t n = 0;
  for (char c : utf8)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

int depth(const Json& v) {
  int inner = 0;
  for (const Json& item : v.items) inner = std::max(inner, depth(item));
  for (const auto& m : v.members) inner = std::max(inner, depth(m.second));
  bool container = v.kind == Json::Kind::Array || v.kind == Json::Kind::Object;
  return container ? inner + 1 : 0;
}

bool valid_metadata(const Json& m) {
  if (m.kind != Json::Kind::Object || m.members.size() > kMaxMetadataKeys) return false;
  for (const auto& [key, value] : m.members) {
    std::size_t chars = code_points(key);
    if (chars < 1 || chars > kMaxMetadataKeyChars) return false;
  }
  return depth(m) <= kMaxMetadataDepth && canonical_text(m).size() <= kMaxMetadataBytes;
}

bool is_currency(const Json* v) {
  if (v == nullptr || v->kind != Json::Kind::String || v->text.size() != 3) return false;
  for (char c : v->text)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

BodyRead refuse(int status, std::string problem) { return BodyRead{.status = status, .problem = std::move(problem), .request = {}}; }

}  // namespace

BodyRead read_money_body(Endpoint endpoint, std::optional<std::string_view> content_type, std::string_view body) {
  // Step 3 of the order: the media type, the size, the JSON, the fields.
  if (!content_type || media_type(*content_type) != "application/json") return refuse(415, "unsupported-media-type");
  if (body.size() > kMaxMoneyBody) return refuse(413, "body-too-large");
  JsonText parsed = parse_json(body);
  if (parsed.fault != JsonFault::None) return refuse(400, json_fault_type(parsed.fault));
  const Json& v = parsed.value;
  if (v.kind != Json::Kind::Object) return refuse(400, "invalid-field");

  bool transfer = endpoint == Endpoint::Transfers;
  for (const auto& [name, value] : v.members) {
    bool known = name == "from_account" || name == "amount" || name == "currency" || name == "memo" ||
                 name == "metadata" || (transfer ? name == "to_account" : name == "destination");
    if (!known) return refuse(400, "invalid-field");  // "ammount" must not pass silently
  }
  MoneyRequest r;
  r.endpoint = endpoint;
  auto from = positive_integer(v.member("from_account"));
  auto amount = positive_integer(v.member("amount"));
  if (!from || !amount || !is_currency(v.member("currency"))) return refuse(400, "invalid-field");
  r.from = *from;
  r.amount = *amount;
  r.currency = v.member("currency")->text;
  if (transfer) {
    auto to = positive_integer(v.member("to_account"));
    if (!to || *to == *from) return refuse(400, "invalid-field");
    r.to = *to;
  } else {
    const Json* d = v.member("destination");
    if (d == nullptr || d->kind != Json::Kind::String || d->text.empty() || d->text.size() > kMaxDestinationBytes)
      return refuse(400, "invalid-field");
    r.destination = d->text;
  }
  if (const Json* memo = v.member("memo")) {
    if (memo->kind != Json::Kind::String || memo->text.size() > kMaxMemoBytes) return refuse(400, "invalid-field");
    r.memo = memo->text;
  }
  if (const Json* m = v.member("metadata")) {
    if (!valid_metadata(*m)) return refuse(400, "invalid-field");
    r.metadata = canonical_text(*m);
  }
  r.canonical = parsed.canonical;
  return BodyRead{.status = 0, .problem = {}, .request = std::move(r)};
}

}  // namespace grader::model
