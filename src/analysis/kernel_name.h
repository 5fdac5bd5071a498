// Kernel names made short enough for a legend, a row label or a table cell.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nodescope::analysis {

// A kernel name for a legend or a row label: without a leading "void " and the parameter list,
// then, while longer than `max_chars` code points, without what is nested in its template
// arguments ("k<4, F<…>>"), without template arguments ("<…>", but a lone identifier stays: it
// is the kernel's real name in cutlass::Kernel<cutlass_80_...>), without enclosing namespaces,
// and finally cut in the middle ("ab…yz").
std::string ShortKernelName(std::string_view name, size_t max_chars);

// `name` as it is when it fits in `max_chars` code points (0: no limit), else ShortKernelName().
std::string FitKernelName(std::string_view name, size_t max_chars);

}  // namespace nodescope::analysis
