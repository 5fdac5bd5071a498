// UTF-8 decoding, display width and the middle cut shared by every text we print or draw.
#include "base/utf8_text.h"

namespace nodescope {
namespace {

// The start of the code point holding byte `i` of `s`.
size_t CodePointStart(std::string_view s, size_t i) {
  while (i > 0 && i < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[i]))) --i;
  return i;
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i, uint32_t* code_point) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  bool valid = false;
  const size_t len =
      Utf8Scan(p, reinterpret_cast<const unsigned char*>(s.data()) + s.size(), &valid);
  if (!valid) return 0;
  uint32_t cp = p[0] & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[k] & 0x3Fu);
  *code_point = cp;
  return len;
}

size_t FirstInvalidUtf8(std::string_view s) {
  const auto* const begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const end = begin + s.size();
  const auto* p = begin;
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    bool valid = false;
    const size_t len = Utf8Scan(p, end, &valid);
    if (!valid) break;
    p += len;
  }
  return static_cast<size_t>(p - begin);
}

size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsUtf8Continuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return n;
}

size_t OffsetOfCodePoint(std::string_view s, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (IsUtf8Continuation(static_cast<unsigned char>(s[i]))) continue;
    if (seen++ == n) return i;
  }
  return s.size();
}

std::string ElideMiddle(std::string_view s, size_t head, size_t tail) {
  const size_t n = DisplayWidth(s);
  std::string out(s.substr(0, OffsetOfCodePoint(s, head)));
  out += kEllipsis;
  if (tail > 0) out += s.substr(tail > n ? s.size() : OffsetOfCodePoint(s, n - tail));
  return out;
}

std::string ShortenMiddle(std::string_view s, size_t width) {
  if (width == 0 || DisplayWidth(s) <= width) return std::string(s);
  const size_t keep = width - 1;
  const size_t head = (keep + 1) / 2;
  return ElideMiddle(s, head, keep - head);
}

std::string ShortenMiddleToBytes(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  if (max_bytes < kEllipsis.size()) return std::string(s.substr(0, CodePointStart(s, max_bytes)));
  const size_t keep = max_bytes - kEllipsis.size();
  const size_t head = CodePointStart(s, keep / 2);
  size_t tail = s.size() - (keep - keep / 2);
  while (tail < s.size() && IsUtf8Continuation(static_cast<unsigned char>(s[tail]))) ++tail;
  return std::string(s.substr(0, head)) + std::string(kEllipsis) + std::string(s.substr(tail));
}

}  // namespace nodescope
