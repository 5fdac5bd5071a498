// What the analysis refuses in an event it reads: one check, so that `nodescope check` never
// calls a trace clean that `nodes` and `plot` cannot read.
#pragma once

#include <cstdint>

#include "analysis/reader/trace_event.h"
#include "base/status.h"

namespace nodescope::analysis {

// Process slots of a merged trace (ProcessSlot, reader/trace_event.h): `nodescope merge` writes
// at most this many.
inline constexpr uint32_t kMaxProcessSlots = 512;

// A graph node's kernel, copy or fill as per-node series take it: "ph" "X", "cat" "kernel",
// "gpu_memcpy" or "gpu_memset", both graph keys, and a node id that is not 0.
bool IsKeyedGpuEvent(const TraceEvent& e);

// DATA_LOSS "SOURCE: byte N: ..." when the event is malformed for the analysis: a numeric "pid"
// naming no process slot of a merged trace; a keyed GPU event (IsKeyedGpuEvent) without "ts" or
// "dur", with a negative "dur", or with a time beyond 1e17 us (over 3000 years: not a time, and
// sums of such numbers overflow). OK otherwise.
Status CheckEvent(const TraceEvent& e);

}  // namespace nodescope::analysis
