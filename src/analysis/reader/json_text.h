// Pieces of JSON text handling around simdjson: errors in words, the byte of errors that simdjson
// finds without saying where, and plain numbers parsed straight from their token.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace nodescope::analysis {

// "an array", "a number", ...
const char* TypeName(simdjson::ondemand::json_type type);

// Why simdjson stopped, in words for a person who has the file in front of them.
std::string Describe(simdjson::error_code error);

// Offset of the first control character inside a string, scanning from a point outside strings;
// n if none. A backslash escapes the next byte inside strings and out, as simdjson takes it.
size_t FirstControlInString(const char* s, size_t n);

// Where to end a window of the trace that starts at `s` (outside any string) and may take up to
// `n` bytes: just after a newline (never inside a valid string) or a `},` (between events of a
// minified trace), whichever is later; else after the last other structural character or
// whitespace. So no token is split, and the end is outside strings unless one of those bytes is
// inside a string (which the parser then says: an unclosed string). 0 if there is no such byte.
size_t WindowCut(const char* s, size_t n);

// The offset of the quote that opens the string still open at `n`, when `s` starts outside
// strings and the quotes before `n` are odd in number (a window cut inside a string); 0 if none.
size_t OpeningQuote(const char* s, size_t n);

// Where the last `tokens` tokens of `s[0, n)` start (n starts outside strings and no token
// runs on past it); 0 if there are fewer.
size_t LastTokensStart(const char* s, size_t n, int tokens);

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// `token` without the whitespace simdjson's raw tokens may end with.
inline std::string_view TrimJsonSpace(std::string_view token) {
  while (!token.empty() && IsJsonSpace(token.back())) token.remove_suffix(1);
  return token;
}

// Unescapes the string whose text starts at `src` (just past its opening quote; closed, valid
// UTF-8 and free of control characters, as simdjson's stage 1 found) into `dst`, as simdjson
// does, except for a \u escape of a lone surrogate ("\udcff", or "\ud800" not followed by a
// low surrogate's escape): legal JSON, which simdjson 3.0 refuses, it becomes U+FFFD, as
// JavaScript's TextEncoder (browsers, Perfetto) does when it converts the string to UTF-8.
// Returns one past the last byte written, or nullptr at an invalid escape. Writes no more bytes
// than it reads.
uint8_t* UnescapeJsonString(const uint8_t* src, uint8_t* dst);

// Whether `c` may start a JSON value (after whitespace).
inline bool CanStartValue(char c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

// Whether `c` may start a JSON token (after whitespace).
inline bool CanStartToken(char c) {
  return CanStartValue(c) || c == '}' || c == ']' || c == ',' || c == ':';
}

// Whether the raw key at `raw` (just past its opening quote) is `key`. Keys are compared as
// written, not unescaped: nobody escapes "graph id", and unescaping every key of every event
// would copy it. Reading past the key is safe: the closing quote and simdjson's padding follow.
inline bool KeyIs(const char* raw, std::string_view key) {
  return std::memcmp(raw, key.data(), key.size()) == 0 && raw[key.size()] == '"';
}

// Plain numbers, nearly all of a trace's, parsed from the token at `p` (which simdjson's padding
// follows). False for anything else (an exponent, more digits than fit, bad syntax): simdjson
// then parses it, and words the errors. The results are simdjson's.
// "0", "4242", "-17" (with allow_negative): at most 18 digits.
bool ParsePlainInt(const char* p, bool allow_negative, int64_t* out);
// "1239998.000", "-2.5", "7": digits that make at most 2^53, at most 22 after the point.
bool ParsePlainDouble(const char* p, double* out);

}  // namespace nodescope::analysis
