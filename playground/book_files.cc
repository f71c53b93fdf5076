// book_files.cc: see book_files.h.
#include "playground/book_files.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace playground {
namespace {

constexpr std::size_t kLongestPath = 200;  // the book's longest is under 60

bool safe_segments(std::string_view path) {
  if (path.size() > kLongestPath) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment.front() == '.') return false;  // "", ".", "..", a hidden file
    for (char c : segment) {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                           c == '_' || c == '-';
      if (!allowed) return false;
    }
    start = end + 1;
  }
  return true;
}

std::string content_type(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  return "text/plain; charset=utf-8";  // the repository files a chapter links to (files/...): shown, never run
}

}  // namespace

std::optional<BookFile> read_book_file(const std::filesystem::path& book_dir, std::string_view path) {
  std::string wanted(path);
  if (wanted.empty() || wanted.back() == '/') wanted += "index.html";
  if (!safe_segments(wanted)) return std::nullopt;
  std::error_code error;
  const auto root = std::filesystem::canonical(book_dir, error);
  if (error) return std::nullopt;
  const auto file = std::filesystem::canonical(root / wanted, error);
  if (error || !std::filesystem::is_regular_file(file, error)) return std::nullopt;
  // Inside the folder, also after the symlinks: the file's path begins with the folder's, segment by segment.
  const auto [root_end, file_it] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (root_end != root.end()) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  if (!in) return std::nullopt;
  return BookFile{body.str(), content_type(file)};
}

}  // namespace playground
