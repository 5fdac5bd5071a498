// A process's figures (registry.h) as text, for the metrics pipe of `nodescope run --metrics`
// (api/metrics_feed.h, frames of kind "figures"): the traced process aggregates
// (record_figures.h) and hands `run` the result, not its records. One item a line:
//
//   rank<TAB>R          seen<TAB>N          kept<TAB>N          dropped<TAB>N
//   withheld<TAB>REASON<TAB>N
//   node<TAB>GRAPH<TAB>ORDINAL<TAB>KERNEL<TAB>DEVICE<TAB>SUM<TAB>B0,B1,...,B19
//   graph<TAB>GRAPH<TAB>DEVICE<TAB>SUM<TAB>B0,...
//
// Text fields escape '\\', TAB and LF as \\, \t, \n; sums are written to round-trip; bucket
// counts are per bucket (not cumulative), one per DurationBuckets() bound plus +Inf. Decoding is
// strict (the program can write to the pipe too): anything else is an error.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "metrics/registry.h"

namespace nodescope::metrics {

std::string EncodeFigures(const ProcessFigures& figures);
// `pid` names the process (the frame's header says it).
StatusOr<ProcessFigures> DecodeFigures(std::string_view text, uint64_t pid);

}  // namespace nodescope::metrics
