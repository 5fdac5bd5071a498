// The metrics feed: how a process traced under `nodescope run --metrics` hands its figures to
// `run`, which serves them (src/metrics). A pipe `run` creates, private to it and the program (as
// the report pipe, model/run_report.h): the process run started finds the write end in
// NODESCOPE_METRICS_FD and, every NODESCOPE_METRICS_INTERVAL_MS (default 1000), writes its
// window so far as a trace (the same JSON as the trace file) in one frame:
//
//   nodescope-metrics<SP>pid=N<SP>bytes=N<LF><bytes of trace JSON>
//
// `run` reads the figures from it with the analysis library (metrics/trace_figures.h), and at the
// end from the trace file itself. The program can write to the pipe too: `run` parses strictly
// and bounds a frame (kMaxFrameBytes).
#pragma once

#include <cstddef>

namespace nodescope::metrics_feed {

inline constexpr char kFdVariable[] = "NODESCOPE_METRICS_FD";
inline constexpr char kIntervalVariable[] = "NODESCOPE_METRICS_INTERVAL_MS";
inline constexpr char kFrameTag[] = "nodescope-metrics";
inline constexpr size_t kMaxFrameBytes = size_t{1} << 30;
inline constexpr unsigned kDefaultIntervalMs = 1000;

}  // namespace nodescope::metrics_feed
