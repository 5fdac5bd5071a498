// Kernel names made short enough for a legend, a row label or a table cell.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nodescope::analysis {

// The most of a name shown whole (a picture's tooltip, a table with no width limit): a trace can
// hold a name of any length, and a 100 MB name must not make a 100 MB picture.
constexpr size_t kMaxNameBytes = 1024;

// `name` when it is at most `max_bytes` bytes, else its head and tail around "…", at most
// `max_bytes` bytes in all, cut at code point boundaries.
std::string CappedName(std::string_view name, size_t max_bytes = kMaxNameBytes);

// A kernel name for a legend or a row label: without a leading "void " and the parameter list,
// then, while longer than `max_chars` code points, without what is nested in its template
// arguments ("k<4, F<…>>"), without template arguments ("<…>", but a lone identifier stays: it
// is the kernel's real name in cutlass::Kernel<cutlass_80_...>), without enclosing namespaces,
// and finally cut in the middle ("ab…yz"). Of a name above 64 KiB, only its first and last 32 KiB
// are looked at.
std::string ShortKernelName(std::string_view name, size_t max_chars);

// `name` as it is when it fits in `max_chars` code points (0: no limit), else ShortKernelName().
std::string FitKernelName(std::string_view name, size_t max_chars);

}  // namespace nodescope::analysis
