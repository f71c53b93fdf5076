// doc_ref_test.cc: how the grader names a chapter and links into the book (grader/base/doc_ref.cc). The anchors
// must be the ones pandoc's gfm_auto_identifiers and GitHub make, or the HTML report's links land at the
// top of the page; tests/docs/check_doc_references.py computes them the same way for every reference.
#include <catch2/catch.hpp>

#include "grader/base/doc_ref.h"

using namespace grader;

TEST_CASE("a heading's anchor: lower case, punctuation dropped, spaces as dashes") {
  CHECK(heading_anchor("Stage 2: a key table with a UNIQUE constraint") == "stage-2-a-key-table-with-a-unique-constraint");
  CHECK(heading_anchor("Stage 4: in_progress, then completed") == "stage-4-in_progress-then-completed");
  CHECK(heading_anchor("Errors: problem+json") == "errors-problemjson");
  CHECK(heading_anchor("The `Idempotency-Key` header") == "the-idempotency-key-header");
  CHECK(heading_anchor("2a: SELECT, then INSERT") == "2a-select-then-insert");
}

TEST_CASE("a reference is written as file and heading, and links into the book") {
  const DocRef ref{"docs/reference/http-contract.md", "Status codes and their order"};
  CHECK(reference_text(ref) == "docs/reference/http-contract.md \"Status codes and their order\"");
  CHECK(book_href(ref) == "/book/reference/http-contract.html#status-codes-and-their-order");
}

TEST_CASE("each stage's chapter comes from the list of stage servers") {
  for (int stage = 1; stage <= 6; ++stage) {
    const DocRef chapter = stage_chapter(stage);
    CHECK(chapter.file.rfind("docs/learn/stage-" + std::to_string(stage) + "-", 0) == 0);
    CHECK(chapter.heading.rfind("Stage " + std::to_string(stage) + ": ", 0) == 0);
  }
  CHECK(stage_chapter(4).heading == "Stage 4: in_progress, then completed");
  CHECK_THROWS(stage_chapter(7));
}
