// request_framing.h: what the lab does to a request's head before routing. docs/reference/plumbing.md "Reliability".
//
// Two things, both run by the pre-routing handler (common/http_server.cc), before any body is read:
//
// 1. Header values as sent. cpp-httplib 0.11.4 percent-decodes every header value it stores
//    (detail::parse_header calls decode_url; "%41" and "%u0041" become "A"), so `Idempotency-Key: "order%41"`
//    and `"orderA"` would be one key, and a replay would answer a request that never ran. RFC 9110 section
//    5.5: field values are opaque. restore_raw_header_values() parses the head's raw bytes (kept by
//    common/connection_stream.h) by the library's own rules and puts the undecoded values back.
//
// 2. Framing the contract does not take is refused, so nothing unbounded is read:
//      Transfer-Encoding (a chunked body)           411 length-required
//      Content-Length not digits, or two different  400 malformed-request (request smuggling: RFC 9112 6.3)
//      Content-Encoding other than identity         415 unsupported-content-encoding (the library inflates
//                                                   gzip and deflate: 261 KB of gzip are 255 MB of memory)
//    and a request without Content-Length has no body (RFC 9112 section 6.3, rule 8), where the library
//    would read until the client closes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/problem.h"

namespace httplib { struct Request; }

namespace lab {

struct HeaderField {
  std::string name;
  std::string value;
  bool operator==(const HeaderField&) const = default;
};

// The header fields of a raw request head (request line, header lines, blank line), in order, split as
// cpp-httplib 0.11.4 splits them (lines not ending in CRLF and lines with an empty value are skipped,
// spaces and tabs around the value dropped), but with values not decoded.
std::vector<HeaderField> header_fields_of(std::string_view raw_head);

// Replaces the values httplib stored in req.headers by the raw ones of header_fields_of(raw_head).
void restore_raw_header_values(httplib::Request& req, std::string_view raw_head);

// The refusal for a request whose framing the contract does not take, or nullopt. A request without
// Content-Length gets "Content-Length: 0" (it has no body).
std::optional<Problem> check_framing(httplib::Request& req);

}  // namespace lab
