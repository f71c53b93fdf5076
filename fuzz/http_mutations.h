// http_mutations.h: the ways fuzz/http_mutator.cc breaks a valid request on the wire. docs/reference/plumbing.md "Reliability".
//
//   RequestParts transfer{"POST", "/transfers", {{"Authorization", "Bearer tok_..."}, ...}, body};
//   Mutation m = mutate(transfer, rng);   // m.name: "duplicate-header Idempotency-Key"; m.bytes: what to send
//
// A mutation works on the parts (headers duplicated, removed or garbled; odd methods, targets, versions and
// Content-Lengths; Idempotency-Key oddities; broken, non-UTF-8 or oversized bodies; chunked framing) or on the
// serialized bytes (bits flipped, bytes inserted, the request cut short). One request, one mutation, so an
// anomaly names its cause. Thread safety: pure functions; the Rng is the caller's.
#pragma once

#include <string>

#include "grader/base/rng.h"
#include "grader/wire/wire.h"

namespace lab::fuzz {

struct RequestParts {
  std::string method;
  std::string target;                  // path and query
  grader::Headers headers;             // in order; mutate() adds Host, Content-Length and Connection
  std::string body;
  std::string version = "HTTP/1.1";
  std::string wire() const;   // the bytes as given, CRLF line ends
};

struct Mutation {
  std::string name;    // what was done, for the report: "odd-method PATCH", "flip-bits x3"
  std::string bytes;   // the raw request
};

Mutation mutate(RequestParts request, const grader::Address& to, grader::Rng& rng);

// The bytes for a report: printable ASCII as is, everything else as \xHH, at most max_bytes of the input.
std::string escaped(const std::string& bytes, std::size_t max_bytes = 300);

}  // namespace lab::fuzz
