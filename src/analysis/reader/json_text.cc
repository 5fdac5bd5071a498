// Error words and offsets for simdjson's errors; plain numbers parsed without its generic path.
#include "analysis/reader/json_text.h"

namespace nodescope::analysis {
namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

bool IsDigit(char c) { return static_cast<unsigned char>(c) - unsigned{'0'} < 10u; }
bool EndsNumber(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Reads the digits at `p` into `*value` (wrapping past 19 of them); returns how many there were.
size_t ReadDigits(const char*& p, uint64_t* value) {
  const char* start = p;
  uint64_t v = *value;
  while (IsDigit(*p)) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  *value = v;
  return static_cast<size_t>(p - start);
}

// The value of the four hex digits at `p`, or -1.
int32_t Hex4(const uint8_t* p) {
  int32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const uint8_t c = p[i];
    int32_t d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
      d = (c | 0x20) - 'a' + 10;
    } else {
      return -1;
    }
    v = v * 16 + d;
  }
  return v;
}

uint8_t* AppendUtf8(uint32_t cp, uint8_t* dst) {
  if (cp < 0x80) {
    *dst++ = static_cast<uint8_t>(cp);
  } else if (cp < 0x800) {
    *dst++ = static_cast<uint8_t>(0xC0 | (cp >> 6));
    *dst++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *dst++ = static_cast<uint8_t>(0xE0 | (cp >> 12));
    *dst++ = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    *dst++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  } else {
    *dst++ = static_cast<uint8_t>(0xF0 | (cp >> 18));
    *dst++ = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
    *dst++ = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    *dst++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  }
  return dst;
}

}  // namespace

uint8_t* UnescapeJsonString(const uint8_t* src, uint8_t* dst) {
  constexpr uint32_t kReplacement = 0xFFFD;
  for (;;) {
    const uint8_t c = *src;
    if (c == '"') return dst;
    if (c != '\\') {
      *dst++ = c;
      ++src;
      continue;
    }
    const uint8_t e = src[1];
    src += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        *dst++ = e;
        continue;
      case 'b':
        *dst++ = '\b';
        continue;
      case 'f':
        *dst++ = '\f';
        continue;
      case 'n':
        *dst++ = '\n';
        continue;
      case 'r':
        *dst++ = '\r';
        continue;
      case 't':
        *dst++ = '\t';
        continue;
      case 'u':
        break;
      default:
        return nullptr;
    }
    // Stage 1 found the string closed, so the closing quote stops Hex4 before the end.
    const int32_t unit = Hex4(src);
    if (unit < 0) return nullptr;
    src += 4;
    uint32_t cp = static_cast<uint32_t>(unit);
    if (cp >= 0xD800 && cp < 0xDC00) {  // a high surrogate: a pair only with a low one next
      const int32_t low = src[0] == '\\' && src[1] == 'u' ? Hex4(src + 2) : -1;
      if (low >= 0xDC00 && low < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
        src += 6;
      } else {
        cp = kReplacement;  // what follows is read on its own
      }
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      cp = kReplacement;
    }
    dst = AppendUtf8(cp, dst);
  }
}

const char* TypeName(od::json_type type) {
  switch (type) {
    case od::json_type::array:
      return "an array";
    case od::json_type::object:
      return "an object";
    case od::json_type::number:
      return "a number";
    case od::json_type::string:
      return "a string";
    case od::json_type::boolean:
      return "a boolean";
    case od::json_type::null:
      return "null";
  }
  return "a JSON value";
}

std::string Describe(error_code error) {
  switch (error) {
    case simdjson::EMPTY:
      return "no JSON value in the file (only whitespace)";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "the JSON ends before its arrays and objects are closed (truncated file?)";
    case simdjson::UNCLOSED_STRING:
      return "a string is never closed (truncated file?)";
    case simdjson::TAPE_ERROR:
      return "not valid JSON here";
    case simdjson::UTF8_ERROR:
      return "invalid UTF-8";
    case simdjson::DEPTH_ERROR:
      return "arrays and objects nested too deeply";
    case simdjson::STRING_ERROR:
      return "invalid string (bad escape or control character)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "not valid JSON here (bad true/false/null)";
    case simdjson::NUMBER_ERROR:
      return "invalid number";
    case simdjson::CAPACITY:
      return "larger than simdjson can read (4 GiB)";
    case simdjson::MEMALLOC:
      return "out of memory";
    case simdjson::UNESCAPED_CHARS:
      return "a control character (a raw tab or newline?) inside a string";
    default:
      return std::string("not valid JSON (") + simdjson::error_message(error) + ")";
  }
}

size_t FirstControlInString(const char* s, size_t n) {
  bool in_string = false;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[i];
    if (c == '\\') {  // escapes the next byte, outside strings too (`\"` opens none)
      ++i;
    } else if (c == '"') {
      in_string = !in_string;
    } else if (in_string && static_cast<unsigned char>(c) < 0x20) {
      return i;
    }
  }
  return n;
}

size_t WindowCut(const char* s, size_t n) {
  size_t other = 0;  // after the last other structural character or whitespace
  // A newline or `},` is looked for in the last half only: any cut that leaves an event whole in
  // the window moves the reading on, and a trace with neither is not scanned twice.
  for (size_t i = n; i-- > 0;) {
    const char c = s[i];
    if (c == '\n' || (c == ',' && i > 0 && s[i - 1] == '}')) return i + 1;
    if (other == 0 && (c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' ||
                       c == ' ' || c == '\t' || c == '\r')) {
      other = i + 1;
    }
    if (other != 0 && i < n / 2) break;
  }
  return other;
}

namespace {
bool IsStructural(char c) {
  return c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']';
}
}  // namespace

size_t LastTokensStart(const char* s, size_t n, int tokens) {
  for (; tokens > 0; --tokens) {
    while (n > 0 && IsJsonSpace(s[n - 1])) --n;
    if (n == 0) return 0;
    const char c = s[n - 1];
    if (IsStructural(c)) {
      --n;
    } else if (c == '"') {
      n = OpeningQuote(s, n - 1);
    } else {
      while (n > 0 && !IsStructural(s[n - 1]) && !IsJsonSpace(s[n - 1]) && s[n - 1] != '"') --n;
    }
  }
  return n;
}

size_t OpeningQuote(const char* s, size_t n) {
  while (n > 0) {
    const void* found = memrchr(s, '"', n);
    if (found == nullptr) return 0;
    const size_t quote = static_cast<size_t>(static_cast<const char*>(found) - s);
    size_t backslashes = 0;
    while (backslashes < quote && s[quote - 1 - backslashes] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote;
    n = quote - backslashes;
  }
  return 0;
}

// At most 18 digits: no overflow.
bool ParsePlainInt(const char* p, bool allow_negative, int64_t* out) {
  const bool negative = allow_negative && *p == '-';
  p += negative;
  const char* first = p;
  uint64_t v = 0;
  const size_t digits = ReadDigits(p, &v);
  if (digits == 0 || digits > 18 || (*first == '0' && digits > 1) || !EndsNumber(*p)) return false;
  *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

// A decimal whose digits make at most 2^53 is exact in a double, and so is a power of ten up to
// 1e22: their quotient, one division, rounds correctly. simdjson's fast path does the same.
bool ParsePlainDouble(const char* p, double* out) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const bool negative = *p == '-';
  p += negative;
  const char* first = p;
  uint64_t v = 0;
  const size_t int_digits = ReadDigits(p, &v);
  if (int_digits == 0 || (*first == '0' && int_digits > 1)) return false;
  size_t frac_digits = 0;
  if (*p == '.') {
    ++p;
    frac_digits = ReadDigits(p, &v);
    if (frac_digits == 0) return false;
  }
  if (int_digits + frac_digits > 19 || frac_digits > 22 || v > (uint64_t{1} << 53) - 1 ||
      !EndsNumber(*p)) {
    return false;
  }
  const double d = static_cast<double>(v) / kPowersOfTen[frac_digits];
  *out = negative ? -d : d;
  return true;
}

}  // namespace nodescope::analysis
