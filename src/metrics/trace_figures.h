// A traced process's figures (registry.h) from its trace, read by the analysis library exactly as
// `nodescope nodes` reads it: the same records, the same stable graph names, so the counts served
// equal those `nodes` prints for that trace.
#pragma once

#include <string>

#include "base/status.h"
#include "metrics/registry.h"

namespace nodescope::metrics {

// Kernel labels are shortened to this many characters (analysis/stats/kernel_name.h).
inline constexpr size_t kKernelLabelChars = 60;

// Reads the trace at `path` (a file, or /proc/self/fd/N). `pid` names the process.
StatusOr<ProcessFigures> FiguresFromTrace(const std::string& path, uint64_t pid);
// The same from the trace's text held in memory.
StatusOr<ProcessFigures> FiguresFromText(const std::string& text, uint64_t pid);

}  // namespace nodescope::metrics
