// web_assets.h: the page's files (playground/web/), compiled into the playground binary so that it serves
// every asset itself: no CDN, no network, no files to find at run time. docs/teach/the-playground.md "The playground".
//
//   if (const WebAsset* a = find_web_asset("/playground.js")) res.set_content(std::string(a->body), a->content_type);
//
// web_assets.cc is generated at build time by embed_web_assets.cmake from every file of playground/web/.
#pragma once

#include <string_view>

namespace playground {

struct WebAsset {
  std::string_view path;          // "/index.html"
  std::string_view content_type;  // by the file's extension
  std::string_view body;
};

const WebAsset* find_web_asset(std::string_view path);  // nullptr: no such file

}  // namespace playground
