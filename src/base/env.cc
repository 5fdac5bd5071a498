// Strict number and flag parsing for environment variables and option strings.
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

Status ReadDecimalValue(std::string_view name, std::string_view text, uint64_t min, uint64_t max,
                        uint64_t* out) {
  if (text.empty()) return OkStatus();
  StatusOr<uint64_t> v = ParseDecimal(text, min, max);
  if (!v.ok()) {
    std::string message(name);  // appended: g++ 12 misreads literal + temporary (GCC 105329)
    message += "=";
    message += QuoteValue(text);
    message += " is ";
    message += v.status().message();
    return InvalidArgumentError(message);
  }
  *out = *v;
  return OkStatus();
}

Status ReadFlagValue(std::string_view name, std::string_view v, bool* out) {
  if (v.empty()) return OkStatus();
  if (v == "1" || v == "true" || v == "yes") {
    *out = true;
  } else if (v == "0" || v == "false" || v == "no") {
    *out = false;
  } else {
    std::string message(name);
    message += "=";
    message += QuoteValue(v);
    message += " is not one of 1/true/yes/0/false/no";
    return InvalidArgumentError(message);
  }
  return OkStatus();
}

namespace {
std::string_view Env(const char* var) {
  const char* text = std::getenv(var);
  return text != nullptr ? std::string_view(text) : std::string_view();
}
}  // namespace

Status ReadEnvDecimal(const char* var, uint64_t min, uint64_t max, uint64_t* out) {
  return ReadDecimalValue(var, Env(var), min, max, out);
}

Status ReadEnvFlag(const char* var, bool* out) { return ReadFlagValue(var, Env(var), out); }

}  // namespace nodescope
