// XML escaping and number formatting for the plots.
#include "analysis/plot/svg_text.h"

#include "base/terminal_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace nodescope::analysis {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

void AppendXmlEscaped(std::string_view text, std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
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
          out += "&#39;";
          break;
        default:
          out += (c < 0x20 || c == 0x7F) ? ' ' : static_cast<char>(c);
      }
      ++i;
      continue;
    }
    uint32_t code_point = 0;
    size_t len = Utf8SequenceLength(text, i, &code_point);
    if (len == 0 || code_point == 0xFFFE || code_point == 0xFFFF) {
      out += kReplacement;
      i += len == 0 ? 1 : len;
    } else if (code_point < 0xA0) {  // C1 controls
      out += ' ';
      i += len;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
}

std::string XmlEscaped(std::string_view text) {
  std::string out;
  AppendXmlEscaped(text, out);
  return out;
}

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) v = 0;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string Significant(double v, int digits) {
  if (!std::isfinite(v) || v == 0) return "0";
  double magnitude = std::fabs(v);
  if (magnitude < 1e-6 || magnitude >= 1e15) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    return buf;
  }
  int decimals = digits - 1 - static_cast<int>(std::floor(std::log10(magnitude)));
  std::string s = Fixed(v, decimals < 0 ? 0 : decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace nodescope::analysis
