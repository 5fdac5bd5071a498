// The xpu backend's tracer (Intel GPUs through oneAPI's Profiling Tools Interfaces, PTI): buffers
// through ptiViewSetCallbacks (at most TracerOptions::max_buffers in flight, refusals counted), the
// kernel, memory copy (+ P2P), fill, runtime API and external correlation views, timestamps in
// the trace clock through ptiViewSetTimestampCallback, user ranges pushed as CUSTOM_1 external
// correlation ids (as PyTorch's profiler does on XPU), graph kernels keyed through
// SubmissionMatchingStage (attribution/stage.h). PTI keeps one set of callbacks per process:
// another PTI user in the process (PyTorch's profiler) takes our buffers over; buffers we did not
// hand out are never read or freed, ours a flush does not bring back are counted and warned about
// (docs/pti-notes.md, "Two tools in one process").
#pragma once

#include <atomic>
#include <memory>
#include <optional>

#include "attribution/stage.h"
#include "backends/backend_tracer.h"
#include "backends/xpu/pti_api.h"
#include "backends/xpu/pti_decoder.h"

namespace nodescope::pti {

// PTI's part of the tracer skeleton (backends/backend_tracer.h).
class PtiTracer final : public BackendTracer {
 public:
  PtiTracer();
  ~PtiTracer() override;

  Status Flush() override;

 private:
  Status StartCollection(const TracerOptions& options) override;
  Status StopCollection() override;
  void AddCounters(Trace* trace, bool at_stop) override;
  void BeforeWindowCopy() override;

  static void OnRequest(unsigned char** buffer, size_t* size);
  static void OnComplete(unsigned char* buffer, size_t size, size_t used);
  void Decode(unsigned char* buffer, size_t used);

  PtiApi api_;
  size_t buffer_bytes_ = 0;
  std::unique_ptr<SubmissionMatchingStage> stage_;  // graph kernels' keys (attribution/)
  std::optional<PtiDecoder> decoder_;               // used in batches only (DecodeBatch)
  std::atomic<size_t> in_flight_{0};
  std::atomic<uint64_t> walk_errors_{0};
  std::atomic<uint64_t> flushed_before_{0};  // every record made before it was delivered
  uint64_t not_returned_ = 0;                // our buffers a flush did not bring back
};

}  // namespace nodescope::pti
