// The top of a kineto-schema trace: device properties, library versions and nodescope's own
// object (dropped records, range counters, attribution), up to "baseTimeNanoseconds".
#pragma once

#include <cstdint>

#include "export/json_output.h"
#include "model/trace.h"

namespace nodescope {

// Writes from the opening `{` to the line after "baseTimeNanoseconds"; "traceEvents" follows.
void WriteTraceHeader(const Trace& trace, uint64_t base_ns, JsonOutput& out);

}  // namespace nodescope
