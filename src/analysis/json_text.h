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

// Offset of the first byte that is not valid UTF-8; n if none.
size_t FirstInvalidUtf8(const unsigned char* s, size_t n);

// Offset of the first control character inside a string, scanning from a point outside strings;
// n if none.
size_t FirstControlInString(const char* s, size_t n);

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
