// Strict reading of numbers and flags from text and from environment variables: the whole value,
// decimal digits only (no sign, space or prefix), range-checked; errors name the variable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace nodescope {

// `text` as a decimal number in [min, max]: digits only, nothing before or after.
StatusOr<uint64_t> ParseDecimal(std::string_view text, uint64_t min, uint64_t max);

// `text`, the value of the option `name` (a variable, or a key of an options string): empty
// leaves *out as it is; otherwise as ParseDecimal, an error naming the option and the value.
Status ReadDecimalValue(std::string_view name, std::string_view text, uint64_t min, uint64_t max,
                        uint64_t* out);
// A yes/no value: 1/true/yes or 0/false/no; empty leaves *out as it is.
Status ReadFlagValue(std::string_view name, std::string_view text, bool* out);

// Reads the variable `var`: unset or empty leaves *out as it is; otherwise the value must pass
// ParseDecimal, and an error reads "NODESCOPE_MAX_EVENTS=' 5' is not a whole number from 1 to N".
Status ReadEnvDecimal(const char* var, uint64_t min, uint64_t max, uint64_t* out);

// Reads a yes/no variable: 1/true/yes or 0/false/no; unset or empty leaves *out as it is.
Status ReadEnvFlag(const char* var, bool* out);

// `value` quoted for a message: at most 64 bytes, control and non-ASCII bytes as \xNN.
std::string QuoteValue(std::string_view value);

}  // namespace nodescope
