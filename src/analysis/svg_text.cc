// XML escaping, number formatting and kernel-name shortening for the plots.
#include "analysis/svg_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace nodescope::analysis {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the valid UTF-8 sequence starting at s[i] (a lead byte >= 0x80), or 0.
size_t ValidSequenceLength(std::string_view s, size_t i, uint32_t& code_point) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char lead = byte(0);
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    code_point = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    code_point = lead & 0x0Fu;
    if (lead == 0xE0) lo = 0xA0;  // overlong
    if (lead == 0xED) hi = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    code_point = lead & 0x07u;
    if (lead == 0xF0) lo = 0x90;  // overlong
    if (lead == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size() || byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 1; k < len; ++k) {
    if (!IsContinuation(byte(k))) return 0;
    code_point = (code_point << 6) | (byte(k) & 0x3Fu);
  }
  return len;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Where the parameter list of a demangled function name starts ("f<int>(float*)" -> 6), or npos
// when the name does not end in one. "Memcpy DtoD (Device -> Device)" has none: a space precedes.
size_t ParameterListStart(std::string_view s) {
  if (s.empty() || s.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') {
      ++depth;
    } else if (s[i] == '(' && --depth == 0) {
      return i > 0 && s[i - 1] != ' ' ? i : std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

// "a<b<c>, d>::f<e>" -> "a<…>::f<…>". An argument list that is one identifier stays: in
// "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>" it is the name.
std::string CollapseTemplateArguments(std::string_view s) {
  std::string out;
  int depth = 0;
  size_t open = 0;  // where the current top-level argument list starts in `s`
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '<') {
      if (depth++ == 0) open = i;
    } else if (c == '>' && depth > 0) {
      if (--depth == 0) {
        std::string_view args = s.substr(open + 1, i - open - 1);
        bool identifier =
            !args.empty() && args.find_first_not_of(
                                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789_") == std::string_view::npos;
        out += "<" + (identifier ? std::string(args) : std::string(kEllipsis)) + ">";
      }
    } else if (depth == 0) {
      out += c;
    }
  }
  return depth == 0 ? out : std::string(s);  // unbalanced: not a template, keep it
}

// The last "::"-separated component outside <> and (): "a::(anonymous namespace)::f<x::y>" ->
// "f<x::y>".
std::string_view LastComponent(std::string_view s) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if ((c == '>' || c == ')') && depth > 0) --depth;
    if (depth == 0 && c == ':' && s[i + 1] == ':') start = i + 2;
  }
  return start < s.size() ? s.substr(start) : s;
}

// Byte offset of code point `n` of `s` (s.size() when there are fewer).
size_t OffsetOfCodePoint(std::string_view s, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsContinuation(static_cast<unsigned char>(s[i]))) continue;
    if (seen++ == n) return i;
  }
  return s.size();
}

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
    size_t len = ValidSequenceLength(text, i, code_point);
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

size_t CodePoints(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += IsContinuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return n;
}

std::string ShortKernelName(std::string_view name, size_t max_chars) {
  std::string_view s = Trim(name);
  if (s.starts_with("void ")) s.remove_prefix(5);
  if (size_t params = ParameterListStart(s); params != std::string_view::npos) {
    s = s.substr(0, params);
  }
  std::string shorter(Trim(s));
  if (CodePoints(shorter) > max_chars) shorter = CollapseTemplateArguments(shorter);
  if (CodePoints(shorter) > max_chars) shorter = std::string(LastComponent(shorter));
  size_t n = CodePoints(shorter);
  if (n <= max_chars) return shorter;
  if (max_chars < 3) return shorter.substr(0, OffsetOfCodePoint(shorter, max_chars));
  // Keep more of the head (the kernel's name) than of the tail (its last template argument).
  size_t head = (max_chars - 1) * 2 / 3;
  size_t tail = max_chars - 1 - head;
  return shorter.substr(0, OffsetOfCodePoint(shorter, head)) + std::string(kEllipsis) +
         shorter.substr(OffsetOfCodePoint(shorter, n - tail));
}

}  // namespace nodescope::analysis
