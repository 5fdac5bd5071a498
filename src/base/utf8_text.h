// UTF-8 text, the one module for it: decoding, display width, and shortening in the middle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace nodescope {

// U+2026, what every shortened text shows where its middle was.
inline constexpr std::string_view kEllipsis = "\xE2\x80\xA6";

inline bool IsUtf8Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// How many bytes of the non-ASCII UTF-8 sequence starting at `p` (< `end`) to consume, and in
// `*valid` whether they form one well-formed character (Unicode 15 table 3-7: no overlong
// form, surrogate or code point above U+10FFFF). An ill-formed sequence consumes its maximal
// subpart, so that each one becomes exactly one U+FFFD, as the Unicode "best practice" for
// conversion asks. Inline: the JSON writer calls it for every non-ASCII byte it escapes.
inline size_t Utf8Scan(const unsigned char* p, const unsigned char* end, bool* valid) {
  const unsigned char c = p[0];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the next byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c == 0xE0) {
    need = 2, lo = 0xA0;  // overlong
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    need = 2;
  } else if (c == 0xED) {
    need = 2, hi = 0x9F;  // no UTF-16 surrogates
  } else if (c == 0xF0) {
    need = 3, lo = 0x90;  // overlong
  } else if (c >= 0xF1 && c <= 0xF3) {
    need = 3;
  } else if (c == 0xF4) {
    need = 3, hi = 0x8F;  // nothing above U+10FFFF
  } else {
    *valid = false;  // stray continuation byte, overlong lead (C0, C1) or F5..FF
    return 1;
  }
  size_t i = 1;
  for (; i <= need && p + i < end; ++i) {
    if (p[i] < lo || p[i] > hi) break;
    lo = 0x80, hi = 0xBF;
  }
  *valid = i == need + 1;
  return i;
}

// Length of the well-formed UTF-8 sequence at s[i] (a lead byte >= 0x80) and its code point in
// `*code_point`, or 0 when ill-formed (overlong, surrogate, above U+10FFFF, cut short).
size_t Utf8SequenceLength(std::string_view s, size_t i, uint32_t* code_point);

// Offset of the first byte of `s` that does not start a well-formed UTF-8 character (ASCII
// included), or s.size() when all of it is UTF-8.
size_t FirstInvalidUtf8(std::string_view s);

// The columns `s` takes on a terminal or in a picture, counted as its code points (bytes that
// are not continuation bytes): the names we show are not East Asian wide text.
size_t DisplayWidth(std::string_view s);

// Byte offset of code point `n` of `s` (s.size() when there are fewer).
size_t OffsetOfCodePoint(std::string_view s, size_t n);

// The first `head` code points of `s`, "…", and its last `tail` code points (all of `s` after
// the head's bytes when `tail` is its whole length). The one middle cut; the functions below
// choose head and tail.
std::string ElideMiddle(std::string_view s, size_t head, size_t tail);

// `s` cut to `width` code points by replacing its middle with "…", the head keeping the odd
// code point (kernel names differ at both ends). width 0, or `s` fits: unchanged.
std::string ShortenMiddle(std::string_view s, size_t width);

// `s` when it is at most `max_bytes` bytes, else its head and tail around "…", at most
// `max_bytes` bytes in all, cut at code point boundaries.
std::string ShortenMiddleToBytes(std::string_view s, size_t max_bytes);

}  // namespace nodescope
