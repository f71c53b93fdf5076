// book_files.h: the book (`make book`, docs/teach/the-playground.md "The book") as the playground serves it at
// /book/. The files are read from the book's folder at each request, so a `make book` while the playground
// runs shows at the next reload.
//
//   auto file = read_book_file(book_dir, "<group>/<name>.html");   // nullopt: answer 404
//
// A path comes from the network, so it is hostile until shown otherwise: only letters, digits and . _ - /,
// no empty, "." or ".." segment, no hidden file, and the file, its symlinks followed, must lie inside the
// folder. Anything else is "not there", the same answer as a missing file: a 404 names no path.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace playground {

struct BookFile {
  std::string body;
  std::string content_type;  // by the name's extension: text/html, text/css, text/plain for the rest
};

// `path` is what follows /book/ ("" and a folder's path ending in '/' mean its index.html).
std::optional<BookFile> read_book_file(const std::filesystem::path& book_dir, std::string_view path);

}  // namespace playground
