// xml_escape.cc: see xml_escape.h.
#include "grader/base/xml_escape.h"

namespace grader {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 allows only tab, LF and CR below 0x20. Bytes >= 0x80 pass: the text is UTF-8, except
        // in bodies the grader sent on purpose as invalid UTF-8, which are replaced.
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "?";
        else
          out += static_cast<char>(c);
    }
  }
  // Replace invalid UTF-8 sequences, so the document stays well-formed.
  std::string valid;
  for (std::size_t i = 0; i < out.size();) {
    unsigned char c = out[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= out.size();
    for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(out[i + k]) >> 6) == 0x2;
    if (ok)
      valid.append(out, i, len), i += len;
    else
      valid += "?", ++i;
  }
  return valid;
}

}  // namespace grader
