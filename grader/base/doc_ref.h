// doc_ref.h: a reference into the lab's text: a chapter's file and one of its headings. LAB.md (the
// chapters); docs/teach/grader-checks-itself.md "The references are checked".
//
//   DocRef ref{"docs/reference/http-contract.md", "The Idempotency-Key header"};
//   reference_text(ref)  // docs/reference/http-contract.md "The Idempotency-Key header"  (reports, --list)
//   book_href(ref)       // /book/reference/http-contract.html#the-idempotency-key-header  (the book's page)
//
// Every reference the grader prints is checked against the chapters' headings in make test
// (tests/docs/check_doc_references.py reads `grader --list`), so a renamed heading fails there, not in a
// learner's hands.
#pragma once

#include <string>
#include <string_view>

namespace grader {

struct DocRef {
  std::string file;     // the chapter, from the project root: "docs/learn/stage-2-unique-key.md"
  std::string heading;  // one of its headings, word for word: "Status codes"
};

// As the text and the code write references: the file, then the heading in double quotes.
std::string reference_text(const DocRef& ref);

// The heading's anchor as GitHub and `make book` (pandoc's gfm_auto_identifiers) make it: lower case,
// punctuation but '-' and '_' dropped, spaces as '-'. Headings repeated in one chapter get -1, -2, ...:
// a reference names the first.
std::string heading_anchor(std::string_view heading);

// Where the book shows the heading: under `base`, the book's root. `make book` renders docs/ into
// build/book/; the playground serves it at /book/, an HTML report written on this machine links to the folder.
std::string book_href(const DocRef& ref, std::string_view base = "/book/");

// A stage's chapter and its first heading, "Stage N: <title>", from the list of stage servers.
DocRef stage_chapter(int stage);

}  // namespace grader
