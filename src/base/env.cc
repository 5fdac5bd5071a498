// Strict number and flag parsing for environment variables.
#include "base/env.h"

#include <cstdio>
#include <cstdlib>

namespace nodescope {

StatusOr<uint64_t> ParseDecimal(std::string_view text, uint64_t min, uint64_t max) {
  std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  if (text.empty()) return InvalidArgumentError("empty; expected " + range);
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return InvalidArgumentError("not " + range);
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return InvalidArgumentError("not " + range);
    value = value * 10 + digit;
  }
  if (value < min || value > max) return InvalidArgumentError("not " + range);
  return value;
}

std::string QuoteValue(std::string_view value) {
  constexpr size_t kShown = 64;
  std::string out = "'";
  for (size_t i = 0; i < value.size() && i < kShown; ++i) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += value.size() > kShown ? "'..." : "'";
  return out;
}

Status ReadEnvDecimal(const char* var, uint64_t min, uint64_t max, uint64_t* out) {
  const char* text = std::getenv(var);
  if (text == nullptr || *text == '\0') return OkStatus();
  StatusOr<uint64_t> v = ParseDecimal(text, min, max);
  if (!v.ok()) {
    return InvalidArgumentError(std::string(var) + "=" + QuoteValue(text) + " is " +
                                v.status().message());
  }
  *out = *v;
  return OkStatus();
}

Status ReadEnvFlag(const char* var, bool* out) {
  const char* text = std::getenv(var);
  if (text == nullptr || *text == '\0') return OkStatus();
  std::string_view v = text;
  if (v == "1" || v == "true" || v == "yes") {
    *out = true;
  } else if (v == "0" || v == "false" || v == "no") {
    *out = false;
  } else {
    return InvalidArgumentError(std::string(var) + "=" + QuoteValue(v) +
                                " is not one of 1/true/yes/0/false/no");
  }
  return OkStatus();
}

}  // namespace nodescope
