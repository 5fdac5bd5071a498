// Collecting ranges and building device spans once tracing has stopped.
#include "api/finish_trace.h"

#include "attribution/annotations.h"
#include "ranges/range_recorder.h"

namespace nodescope {

void FinishTrace(Trace& trace, uint64_t since_ns, const RangeRecorder::CounterValues& baseline) {
  RangeRecorder::Get().Collect(trace, since_ns, trace.end_ns, baseline);
  BuildDeviceSpans(trace);
}

}  // namespace nodescope
