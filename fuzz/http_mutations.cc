// http_mutations.cc: see http_mutations.h. Each mutation is one small function; kMutations lists them all and
// mutate() draws one. The odd values are the ones HTTP parsers and the lab's validators are known to trip on.
#include "fuzz/http_mutations.h"

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

namespace lab::fuzz {
namespace {

using namespace std::string_view_literals;

using grader::Rng;

template <typename T, std::size_t N>
const T& pick(const T (&options)[N], Rng& rng) {
  return options[rng.between(0, N - 1)];
}

std::size_t position(const std::string& bytes, Rng& rng) {
  return bytes.empty() ? 0 : static_cast<std::size_t>(rng.between(0, static_cast<std::int64_t>(bytes.size()) - 1));
}

char any_byte(Rng& rng) { return static_cast<char>(rng.between(0, 255)); }

// The request with its framing headers written out, so that mutations can reach them too.
RequestParts framed(RequestParts request, const grader::Address& to) {
  request.headers.insert(request.headers.begin(), {"Host", to.authority()});
  if (!request.body.empty() || request.method == "POST")
    request.headers.emplace_back("Content-Length", std::to_string(request.body.size()));
  request.headers.emplace_back("Connection", "close");
  return request;
}

std::size_t header_index(const RequestParts& request, std::string_view name) {
  for (std::size_t i = 0; i < request.headers.size(); ++i)
    if (request.headers[i].first == name) return i;
  return request.headers.size();
}

void set_header(RequestParts& request, const std::string& name, std::string value) {
  auto i = header_index(request, name);
  if (i == request.headers.size())
    request.headers.emplace_back(name, std::move(value));
  else
    request.headers[i].second = std::move(value);
}

// ---------------------------------------------------------------------------------------------
// Mutations of the parts. Each returns its name and changes the request.
// ---------------------------------------------------------------------------------------------

std::string duplicate_header(RequestParts& r, Rng& rng) {
  auto header = r.headers[rng.between(0, static_cast<std::int64_t>(r.headers.size()) - 1)];
  if (rng.between(0, 1) == 1) header.second += "x";   // a second line that disagrees with the first
  r.headers.push_back(header);
  return "duplicate-header " + header.first;
}

std::string remove_header(RequestParts& r, Rng& rng) {
  auto i = rng.between(0, static_cast<std::int64_t>(r.headers.size()) - 1);
  std::string name = r.headers[i].first;
  r.headers.erase(r.headers.begin() + i);
  return "remove-header " + name;
}

std::string garble_header_name(RequestParts& r, Rng& rng) {
  auto& name = r.headers[rng.between(0, static_cast<std::int64_t>(r.headers.size()) - 1)].first;
  static const char* const kGarbles[] = {" ", "\t", "\xff", "\x00", "-", ":", "\r", "\xc3\xa9"};
  const std::string original = name;
  switch (rng.between(0, 3)) {
    case 0: for (auto& c : name) c = static_cast<char>(c ^ 0x20); break;   // case flipped (or worse)
    case 1: name.insert(position(name, rng), std::string_view(pick(kGarbles, rng), 1)); break;
    case 2: name += " "; break;                                             // a space before the colon
    default: name.clear(); break;                                          // ": value"
  }
  return "garble-header-name " + original;
}

std::string garble_header_value(RequestParts& r, Rng& rng) {
  auto& [name, value] = r.headers[rng.between(0, static_cast<std::int64_t>(r.headers.size()) - 1)];
  static const char* const kValues[] = {"", " ", "\xff\xfe", "caf\xc3\xa9", "\x01\x02", "a\rb", "a\nb: c",
                                        "\xed\xa0\x80", "null", "-1", "0", "%00", "Bearer", "Bearer  x"};
  switch (rng.between(0, 3)) {
    case 0: value = pick(kValues, rng); break;
    case 1: value.empty() ? value.push_back(any_byte(rng)) : void(value[position(value, rng)] = any_byte(rng)); break;
    case 2: value += std::string(static_cast<std::size_t>(rng.between(100, 9000)), 'a'); break;
    default: value.insert(position(value, rng), std::string(1, '\0')); break;
  }
  return "garble-header-value " + name;
}

std::string odd_method(RequestParts& r, Rng& rng) {
  static const char* const kMethods[] = {"GET", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT",
                                         "post", "POSTT", "PRI", "", "P\xc3\x96ST", "BREW"};
  r.method = pick(kMethods, rng);
  if (rng.between(0, 20) == 0) r.method = std::string(9000, 'P');
  return "odd-method " + r.method.substr(0, 10);
}

std::string odd_target(RequestParts& r, Rng& rng) {
  static const char* const kTargets[] = {"/transfers?x=1", "/transfers/", "//transfers", "/Transfers", "/%74ransfers",
                                         "/transfers%00", "/transfers%0a", "/../transfers", "*", "transfers",
                                         "http://127.0.0.1/transfers", "/accounts/1%2f2", "/accounts/99999999999999999",
                                         "/accounts/-1", "/admin/ledger?after=-1", "/admin/ledger?limit=0",
                                         "/admin/ledger?limit=99999999999999999999", "/admin/ledger?after=1&after=2",
                                         "/admin/ledger?after=%ff", "/payouts#frag", "/transfers?" };
  r.target = pick(kTargets, rng);
  if (rng.between(0, 10) == 0) r.target = "/" + std::string(9000, 'a');   // over the 8 KiB URI limit: 414
  return "odd-target " + r.target.substr(0, 40);
}

std::string odd_version(RequestParts& r, Rng& rng) {
  static const char* const kVersions[] = {"HTTP/1.0", "HTTP/2.0", "HTTP/1.1x", "HTTP/1", "http/1.1", "", "HTTP/9.9",
                                          "HTTP/1.1 extra"};
  r.version = pick(kVersions, rng);
  return "odd-version " + r.version;
}

std::string odd_content_length(RequestParts& r, Rng& rng) {
  const auto size = r.body.size();
  const std::string kLengths[] = {"99999999999999999999", "-1", "abc", "+5", "0x10", " " + std::to_string(size),
                                  std::to_string(size ? size - 1 : 0), std::to_string(size + 1),
                                  std::to_string(size + 100), "0", std::to_string(1024 * 1024 + 1), "1e3", ""};
  const auto& length = pick(kLengths, rng);
  if (rng.between(0, 3) == 0)
    r.headers.emplace_back("Content-Length", length);   // two Content-Length lines
  else
    set_header(r, "Content-Length", length);
  return "odd-content-length " + length.substr(0, 24);
}

std::string idempotency_key_oddity(RequestParts& r, Rng& rng) {
  static const char* const kKeys[] = {"", "\"\"", " ", "\"a\", \"b\"", "a, b", "\"a\";x=1", "a;x", "\"unterminated",
                                      "\"bad\\escape\"", "\"caf\xc3\xa9\"", "tab\there", "\"\\\"\"", "\"\\\\\"",
                                      "\xff", "\"\x7f\"", "sp ace", "\"k\"   ", "  k"};
  std::string key = pick(kKeys, rng);
  if (rng.between(0, 5) == 0) key = std::string(static_cast<std::size_t>(rng.between(255, 257)), 'k');
  if (rng.between(0, 5) == 0) key = "\"" + std::string(static_cast<std::size_t>(rng.between(254, 256)), 'k') + "\"";
  set_header(r, "Idempotency-Key", key);
  if (rng.between(0, 6) == 0) r.headers.emplace_back("idempotency-key", "other");   // two lines, another case
  return "idempotency-key-oddity " + key.substr(0, 20);
}

std::string broken_body(RequestParts& r, Rng& rng) {
  static constexpr std::string_view kBodies[] = {
      "", "{", "}", "[]", "null", "\"\"", "{\"amount\":1,\"amount\":2}", "{\"amount\":1e400}", "{\"a\":\"\\ud800\"}",
      "{\"amount\":NaN}", "\xef\xbb\xbf{}", "{\"memo\":\"\xff\"}", "{\"memo\":\"\xc0\xaf\"}", "{} trailing",
      "{\"from_account\":1,\"to_account\":1,\"amount\":-0,\"currency\":\"usd\"}", "{\"amount\":9007199254740993}",
      "{\"amount\":1.5e3,\"from_account\":1e0,\"to_account\":2.0,\"currency\":\"USD\"}", "{\"metadata\":[]}",
      "{\"metadata\":{\"\":1}}", "{\"metadata\":{\"a\":{\"b\":{\"c\":1}}}}", "\x00{}"sv, "{\"a\":1}\x00"sv};
  switch (rng.between(0, 4)) {
    case 0: r.body = std::string(pick(kBodies, rng)); break;
    case 1: r.body.resize(position(r.body, rng)); break;                  // JSON cut short
    case 2: r.body.insert(position(r.body, rng), 1, any_byte(rng)); break;
    case 3: r.body = std::string(static_cast<std::size_t>(rng.between(70, 100)), '[') + r.body; break;   // deep
    default: r.body += std::string(static_cast<std::size_t>(rng.between(16 * 1024, 20 * 1024)), ' '); break;
  }
  set_header(r, "Content-Length", std::to_string(r.body.size()));
  return "broken-body";
}

std::string odd_content_type(RequestParts& r, Rng& rng) {
  static const char* const kTypes[] = {"text/plain", "application/json; charset=latin1", "APPLICATION/JSON",
                                       "application/jsonx", "application/problem+json", "", "application/ json",
                                       "application/json;;;", "multipart/form-data; boundary=x"};
  set_header(r, "Content-Type", pick(kTypes, rng));
  return "odd-content-type";
}

std::string chunked_body(RequestParts& r, Rng& rng) {
  auto i = header_index(r, "Content-Length");
  if (i != r.headers.size() && rng.between(0, 1) == 0) r.headers.erase(r.headers.begin() + i);   // else: both
  r.headers.emplace_back("Transfer-Encoding", rng.between(0, 3) == 0 ? "chunked, gzip" : "chunked");
  char size[32];
  std::snprintf(size, sizeof size, "%zx", r.body.size());
  static const char* const kEnds[] = {"\r\n0\r\n\r\n", "\r\n", "\r\n0\r\n", "\r\nzz\r\n\r\n"};
  r.body = std::string(size) + "\r\n" + r.body + pick(kEnds, rng);
  return "chunked-body";
}

std::string odd_authorization(RequestParts& r, Rng& rng) {
  static const char* const kValues[] = {"Bearer", "Bearer ", "bearer tok_x", "Basic YWxhZGRpbjpvcGVu", "Bearer tok_\xff",
                                        "Bearer tok_a tok_b", "Bearer \"tok\""};
  set_header(r, "Authorization", pick(kValues, rng));
  return "odd-authorization";
}

std::string lab_control_headers(RequestParts& r, Rng& rng) {
  // The server runs without --lab-controls: these must be ignored, never obeyed.
  static const char* const kHeaders[][2] = {{"Lab-Crash", "before-money"}, {"Lab-Crash", "after-money"},
                                            {"Lab-Fail", "busy"}, {"Lab-Delay-Ms", "999999"}};
  const auto& header = pick(kHeaders, rng);
  r.headers.emplace_back(header[0], header[1]);
  return std::string("lab-control-header ") + header[0];
}

// ---------------------------------------------------------------------------------------------
// Mutations of the bytes.
// ---------------------------------------------------------------------------------------------

std::string flip_bits(std::string& bytes, Rng& rng) {
  const auto flips = rng.between(1, 8);
  for (int i = 0; i < flips; ++i)
    if (!bytes.empty()) bytes[position(bytes, rng)] ^= static_cast<char>(1 << rng.between(0, 7));
  return "flip-bits x" + std::to_string(flips);
}

std::string insert_bytes(std::string& bytes, Rng& rng) {
  std::string inserted(static_cast<std::size_t>(rng.between(1, 16)), '\0');
  for (auto& c : inserted) c = any_byte(rng);
  bytes.insert(position(bytes, rng), inserted);
  return "insert-bytes x" + std::to_string(inserted.size());
}

std::string truncate(std::string& bytes, Rng& rng) {
  bytes.resize(position(bytes, rng));
  return "truncate";
}

std::string bare_line_feeds(std::string& bytes, Rng&) {
  for (std::size_t at = bytes.find("\r\n"); at != std::string::npos; at = bytes.find("\r\n", at)) bytes.erase(at, 1);
  return "bare-line-feeds";
}

using PartsMutation = std::string (*)(RequestParts&, Rng&);
using BytesMutation = std::string (*)(std::string&, Rng&);
constexpr PartsMutation kPartsMutations[] = {duplicate_header,   remove_header,      garble_header_name,
                                             garble_header_value, odd_method,        odd_target,
                                             odd_version,         odd_content_length, idempotency_key_oddity,
                                             broken_body,         odd_content_type,   chunked_body,
                                             odd_authorization,   lab_control_headers};
constexpr BytesMutation kBytesMutations[] = {flip_bits, insert_bytes, truncate, bare_line_feeds};

}  // namespace

std::string RequestParts::wire() const {
  std::string out = method + " " + target + (version.empty() ? "" : " " + version) + "\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  return out + "\r\n" + body;
}

Mutation mutate(RequestParts request, const grader::Address& to, Rng& rng) {
  RequestParts parts = framed(std::move(request), to);
  // Three in four change the parts (the request stays parseable enough to reach the lab's own code); the
  // rest change the bytes, which mostly tests the HTTP layer.
  if (rng.between(0, 3) != 0) {
    std::string name = pick(kPartsMutations, rng)(parts, rng);
    return {std::move(name), parts.wire()};
  }
  std::string bytes = parts.wire();
  std::string name = pick(kBytesMutations, rng)(bytes, rng);
  return {std::move(name), std::move(bytes)};
}

std::string escaped(const std::string& bytes, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\r') out += "\\r";
    else if (c == '\n') out += "\\n";
    else if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (bytes.size() > max_bytes) out += "... (" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

}  // namespace lab::fuzz
