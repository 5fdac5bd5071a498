// Trace summaries.
#include "model/trace.h"

namespace nodescope {

TraceSummary Summarize(const Trace& trace) {
  TraceSummary s;
  s.gpu_events = trace.gpu.held();
  trace.gpu.ForEach([&](const GpuActivity& a) {
    switch (a.kind) {
      case ActivityKind::kKernel:
        ++s.kernels;
        break;
      case ActivityKind::kMemcpy:
        ++s.memcpys;
        break;
      case ActivityKind::kMemset:
        ++s.memsets;
        break;
      case ActivityKind::kCount:
        break;
    }
    if (a.graph_id != 0) ++s.graph_events;
  });
  s.api_calls = trace.api.held();
  s.dropped = trace.drops.Total();
  s.buffers_refused = trace.drops.buffers_refused;
  return s;
}

}  // namespace nodescope
