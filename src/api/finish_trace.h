// The last step before a trace is written: user ranges collected, device spans built.
#pragma once

#include <cstdint>

#include "model/trace.h"
#include "ranges/range_recorder.h"

namespace nodescope {

// Copies the user ranges that overlap [since_ns, trace.end_ns] into the trace, with the range
// counters counted since `baseline` (taken when the session started), and projects them onto the
// device timeline (attribution/annotations.h).
void FinishTrace(Trace& trace, uint64_t since_ns,
                 const RangeRecorder::CounterValues& baseline = {});

}  // namespace nodescope
