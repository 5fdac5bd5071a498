// `nodescope merge`: the traces of one job's processes (one per rank) as one kineto-schema trace,
// one process per input on one time axis, streamed (each input is read a window at a time and
// its events written as they come, never held).
//
// Each input becomes a process slot n (inputs ordered by rank; those without a rank after them,
// in argument order): its pids are written (n << 22) | pid (analysis/reader/trace_event.h
// ProcessSlot), string pids "rank R: text", flow ids id * inputs + n (ids of two ranks never
// meet), and every event's "ts" moved onto the merged trace's baseTimeNanoseconds. Graph keys are
// left as they are: a key of a merged trace is (process slot, graph id, graph node id), which
// `check` and `nodes` read that way. The rest of each event is copied byte for byte.
//
// Time: nodescope stamps every record in CLOCK_REALTIME nanoseconds (base/clock.h; CUPTI is told
// to use that clock through its timestamp callback), so processes on one host share a clock and
// their traces need only their baseTimeNanoseconds. Each trace also records CLOCK_REALTIME and
// CLOCK_BOOTTIME read together at its start (api/job_info.h): on one host, where boottime is
// common to all processes, a difference of more than 1 ms between two processes' realtime -
// boottime means the realtime clock was stepped between their starts, and the later process's
// times are moved back onto the first one's. Traces of different hosts are aligned by
// CLOCK_REALTIME as is: as good as the hosts' clock synchronisation (NTP, PTP), which merge
// cannot measure; it says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "export/json_output.h"

namespace nodescope::analysis {

struct MergedInput {
  std::string path;
  uint32_t slot = 0;
  int64_t rank = -1;  // from the trace's header; -1: none
  int64_t world_size = -1;
  std::string host;
  uint64_t base_time_ns = 0;
  int64_t clock_step_ns = 0;  // correction for a realtime step on its host (see above)
  int64_t shift_ns = 0;       // added to its times, relative to the merged trace's base
  uint64_t events = 0;
  uint64_t dropped = 0;  // its "dropped_records" total
};

struct MergeResult {
  std::vector<MergedInput> inputs;  // by slot
  uint64_t base_time_ns = 0;
  uint64_t events = 0;
  std::vector<std::string> notes;  // what a user should know (clocks of several hosts, ...)
};

// Merges `paths` into `out` (which is flushed). Errors: the reader's ("PATH: byte N: ..."), a
// pid too large to renumber, a flow id too large to renumber exactly, the output's.
StatusOr<MergeResult> MergeTraces(const std::vector<std::string>& paths, JsonOutput& out);

}  // namespace nodescope::analysis
