// doc_ref.cc: see doc_ref.h.
#include "grader/base/doc_ref.h"

#include <cctype>
#include <stdexcept>

#include "grader/base/stage_binaries.h"

namespace grader {

std::string reference_text(const DocRef& ref) { return ref.file + " \"" + ref.heading + "\""; }

std::string heading_anchor(std::string_view heading) {
  std::string anchor;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_') {
      anchor += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      anchor += '-';
    } else if (u >= 0x80) {
      anchor += c;  // a letter of another script: GitHub and pandoc keep it
    }
  }
  return anchor;
}

std::string book_href(const DocRef& ref, std::string_view base) {
  // docs/<group>/<name>.md -> /book/<group>/<name>.html
  std::string page = ref.file;
  if (page.rfind("docs/", 0) == 0) page.erase(0, 5);
  if (page.size() > 3 && page.compare(page.size() - 3, 3, ".md") == 0) page.replace(page.size() - 3, 3, ".html");
  return std::string(base) + page + "#" + heading_anchor(ref.heading);
}

DocRef stage_chapter(int stage) {
  for (const StageServer& row : stage_servers()) {
    if (row.stage == stage && !row.must_fail) return {row.chapter, "Stage " + std::to_string(stage) + ": " + row.title};
  }
  throw std::logic_error("no stage " + std::to_string(stage) + " in stages/stage_servers.json");
}

}  // namespace grader
