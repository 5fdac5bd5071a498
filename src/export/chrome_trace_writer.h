// Writes a Trace as Chrome-trace JSON in the schema PyTorch's profiler (kineto) writes.
#pragma once

#include <string>

#include "base/atomic_file.h"
#include "base/status.h"
#include "export/json_output.h"
#include "model/trace.h"

namespace nodescope {

// The name a GPU record is written under: a kernel's demangled name, "Memcpy HtoD (Pageable ->
// Device)", "Memset (Device)". What the trace reader reads back as the record's name.
std::string GpuRecordName(const Trace& trace, const GpuActivity& a);

// Writes the whole document and flushes `out`; returns the first output error.
// Timestamps are written relative to "baseTimeNanoseconds" (trace.start_ns, or the earliest
// record when that is 0), in microseconds with three decimals, as kineto does.
Status WriteChromeTrace(const Trace& trace, JsonOutput& out);

// Writes through an AtomicFile (base/atomic_file.h): a reader never sees half a file, and a
// device or FIFO is written in place.
Status WriteChromeTraceFile(const Trace& trace, const std::string& path);
// The same, for a writer that looked at `path` earlier (`before`, when a traced run started):
// if another writer took the path meanwhile, this trace is named by pid (AtomicFile). Returns
// where the trace is.
StatusOr<std::string> WriteChromeTraceFileAs(const Trace& trace, const std::string& path,
                                             const FileIdentity* before);

}  // namespace nodescope
