// Text for the SVG and HTML plots: XML escaping, deterministic numbers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nodescope::analysis {

// Appends `text` escaped for XML character data and attribute values (& < > " '). Invalid UTF-8
// and characters XML 1.0 forbids become U+FFFD; other control characters become spaces, so any
// kernel name yields well-formed XML.
void AppendXmlEscaped(std::string_view text, std::string& out);
std::string XmlEscaped(std::string_view text);

// `v` with `decimals` decimals in the C locale, never "-0": Fixed(2.25, 1) == "2.3".
std::string Fixed(double v, int decimals);
// `v` with up to `digits` significant digits and no exponent for |v| in [1e-6, 1e15), trailing
// zeros trimmed: Significant(1234.5678, 4) == "1235", Significant(0.0125, 3) == "0.0125".
std::string Significant(double v, int digits);

}  // namespace nodescope::analysis
