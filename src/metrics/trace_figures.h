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

// Which records count: all (from = to = 0), or those that ended in (from_ns, to_ns] on the trace
// clock (a replay by its last record's end); to_ns = UINT64_MAX: every one after from_ns.
struct Interval {
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
  bool all() const { return from_ns == 0 && to_ns == 0; }
};

// Reads the trace at `path` (a file, or /proc/self/fd/N). `pid` names the process. Graph names
// come from every node in the trace, whatever the interval.
StatusOr<ProcessFigures> FiguresFromTrace(const std::string& path, uint64_t pid,
                                          Interval interval = {});
// The same from the trace's text held in memory.
StatusOr<ProcessFigures> FiguresFromText(const std::string& text, uint64_t pid,
                                         Interval interval = {});

// Adds `delta` (an interval's figures) into `total` (figures so far): histograms of the same
// labels summed; counters (replays, drops, withheld) taken as the larger of the two, except
// replays kept, summed.
void AddFigures(ProcessFigures* total, const ProcessFigures& delta);

}  // namespace nodescope::metrics
