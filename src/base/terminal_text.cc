// Escaping untrusted text for a terminal; the UTF-8 decoder behind it and the XML escaping.
#include "base/terminal_text.h"

#include <cstdio>

namespace nodescope {
namespace {

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

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

size_t Utf8SequenceLength(std::string_view s, size_t i, uint32_t* code_point) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = byte(0);
  size_t len = 0;
  uint32_t cp = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    cp = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    cp = lead & 0x0Fu;
    if (lead == 0xE0) lo = 0xA0;  // overlong
    if (lead == 0xED) hi = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    cp = lead & 0x07u;
    if (lead == 0xF0) lo = 0x90;  // overlong
    if (lead == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size() || byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 1; k < len; ++k) {
    if (!IsContinuation(byte(k))) return 0;
    cp = (cp << 6) | (byte(k) & 0x3Fu);
  }
  *code_point = cp;
  return len;
}

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
