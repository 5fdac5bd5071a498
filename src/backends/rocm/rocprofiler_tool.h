// The rocm backend's tool state: what rocprofiler-sdk configured for it when it initialized the
// tool, once per process, and the one tracer its callbacks reach (rocprofiler_tracer.h).
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstddef>

#include "backends/backend_tracer.h"
#include "backends/rocm/sdk_api.h"

namespace nodescope::rocprofiler {

class RocprofilerTracer;

struct ToolState {
  SdkApi sdk;
  rocprofiler_context_id_t tracing{0};  // every service but code objects; dormant when idle
  rocprofiler_context_id_t symbols{0};  // code objects (kernel names): always started
  rocprofiler_buffer_id_t buffer{0};
  size_t buffer_bytes = 0;
  std::atomic<bool> configured{false};
  std::atomic<bool> finalized{false};  // the SDK ran the tool's finalize: no tracer starts again
};

// Never destroyed: SDK threads may call back while the process exits.
ToolState& Tool();
ActiveTracer<RocprofilerTracer>& ActiveRocprofilerTracer();
// The process the active tracer started in (a forked child inherits the SDK's exit hook, not
// its threads).
pid_t& ActiveTracerPid();

}  // namespace nodescope::rocprofiler
