// Escaping untrusted text for a terminal.
#include "base/terminal_text.h"

#include <cstdio>

namespace nodescope {
namespace {

// Code points that reorder or break the text around them when a terminal shows them.
bool IsLayoutControl(uint32_t cp) {
  return cp < 0xA0 ||                       // C1 controls
         cp == 0x061C ||                    // arabic letter mark
         cp == 0x200E || cp == 0x200F ||    // left-to-right / right-to-left mark
         (cp >= 0x2028 && cp <= 0x202E) ||  // separators, embeddings, overrides
         (cp >= 0x2066 && cp <= 0x2069);    // isolates
}

void AppendHex(const char* format, unsigned value, std::string& out) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), format, value);
  out += buf;
}

}  // namespace

std::string TerminalText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c < 0x20 || c == 0x7F) {
        AppendHex("\\x%02X", c, out);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t len = Utf8SequenceLength(s, i, &cp);
    if (len == 0) {
      AppendHex("\\x%02X", c, out);
      ++i;
    } else if (IsLayoutControl(cp)) {
      AppendHex("\\u%04X", cp, out);
      i += len;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace nodescope
