// Untrusted text (trace bytes, file paths) made safe to print on a terminal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/utf8_text.h"

namespace nodescope {

// `s` as a terminal may show it: nothing in it can move the cursor, change colours, retitle the
// window or reorder what follows. Escaped as visible ASCII: \n, \t, \r; other C0 controls, DEL
// and bytes that are not UTF-8 as \xNN; C1 controls and the bidirectional controls (U+061C,
// U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators
// (U+2028, U+2029) as \uNNNN. Everything else passes through. Use it on every string from a
// trace or a path at the point of printing.
std::string TerminalText(std::string_view s);

}  // namespace nodescope
