// Kernel names made short enough for a legend, a row label or a table cell.
#include "analysis/kernel_name.h"

#include "analysis/svg_text.h"

namespace nodescope::analysis {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

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

// What is nested in template arguments collapsed, top-level arguments kept (they tell instances
// apart): "k<4, F<float>, G(int)::L>" -> "k<4, F<…>, G(…)::L>".
std::string CollapseNestedTemplateArguments(std::string_view s) {
  std::string out;
  int angle = 0, paren = 0;  // depths; a '(' outside template arguments does not count
  auto inside = [&] { return angle >= 2 || (angle >= 1 && paren >= 1); };
  for (const char c : s) {
    const bool was_inside = inside();
    if (c == '<') ++angle;
    if (c == '(' && angle > 0) ++paren;
    if (c == '>' && angle > 0) --angle;
    if (c == ')' && paren > 0) --paren;
    if (!was_inside) out += c;
    if (!was_inside && inside()) out += kEllipsis;
    if (was_inside && !inside()) out += c;
  }
  return angle == 0 ? out : std::string(s);  // unbalanced: not a template, keep it
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

// The start of the code point holding byte `i` of `s`.
size_t CodePointStart(std::string_view s, size_t i) {
  while (i > 0 && i < s.size() && IsContinuation(static_cast<unsigned char>(s[i]))) --i;
  return i;
}

}  // namespace

std::string CappedName(std::string_view name, size_t max_bytes) {
  if (name.size() <= max_bytes) return std::string(name);
  if (max_bytes < kEllipsis.size())
    return std::string(name.substr(0, CodePointStart(name, max_bytes)));
  const size_t keep = max_bytes - kEllipsis.size();
  const size_t head = CodePointStart(name, keep / 2);
  size_t tail = name.size() - (keep - keep / 2);
  while (tail < name.size() && IsContinuation(static_cast<unsigned char>(name[tail]))) ++tail;
  return std::string(name.substr(0, head)) + std::string(kEllipsis) +
         std::string(name.substr(tail));
}

std::string ShortKernelName(std::string_view name, size_t max_chars) {
  constexpr size_t kLookedAt = size_t{64} << 10;
  const std::string capped = name.size() > kLookedAt ? CappedName(name, kLookedAt) : std::string();
  std::string_view s = Trim(capped.empty() ? name : std::string_view(capped));
  if (s.starts_with("void ")) s.remove_prefix(5);
  if (size_t params = ParameterListStart(s); params != std::string_view::npos) {
    s = s.substr(0, params);
  }
  std::string shorter(Trim(s));
  if (CodePoints(shorter) > max_chars) shorter = CollapseNestedTemplateArguments(shorter);
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

std::string FitKernelName(std::string_view name, size_t max_chars) {
  if (max_chars == 0 || CodePoints(name) <= max_chars) return std::string(name);
  return ShortKernelName(name, max_chars);
}

}  // namespace nodescope::analysis
