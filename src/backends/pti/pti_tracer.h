// The PTI backend (Intel GPUs through oneAPI's Profiling Tools Interfaces): buffers through
// ptiViewSetCallbacks (at most TracerOptions::max_buffers in flight, refusals counted), the
// kernel, memory copy (+ P2P), fill, runtime API and external correlation views, timestamps in
// the trace clock through ptiViewSetTimestampCallback, user ranges pushed as CUSTOM_1 external
// correlation ids (as PyTorch's profiler does on XPU), graph kernels keyed through
// SubmissionMatchingStage (attribution/stage.h). PTI keeps one set of callbacks per process:
// another PTI user in the process (PyTorch's profiler) takes our buffers over; buffers we did not
// hand out are never read or freed, ours a flush does not bring back are counted and warned about
// (docs/pti-notes.md, "Two tools in one process").
#pragma once

#include <atomic>
#include <mutex>
#include <optional>

#include "attribution/stage.h"
#include "backends/backend.h"
#include "backends/pti/pti_api.h"
#include "backends/pti/pti_decoder.h"

namespace nodescope::pti {

class PtiTracer final : public Tracer {
 public:
  PtiTracer() = default;
  ~PtiTracer() override;

  std::string_view name() const override { return "pti"; }
  Status Start(const TracerOptions& options) override;
  Status Stop() override;
  Trace& trace() override { return trace_; }
  Status Flush() override;
  Status SnapshotWindow(Trace* out, bool release) override;
  uint64_t HeldRecords() override;

 private:
  static void OnRequest(unsigned char** buffer, size_t* size);
  static void OnComplete(unsigned char* buffer, size_t size, size_t used);
  void DecodeBuffer(unsigned char* buffer, size_t used);

  Trace trace_;
  PtiApi api_;
  TracerOptions options_;
  std::unique_ptr<SubmissionMatchingStage> stage_;  // graph kernels' keys (attribution/)
  std::optional<PtiDecoder> decoder_;
  std::mutex decode_mu_;  // one buffer at a time: PTI's delivery thread or a flush
  std::atomic<size_t> in_flight_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> walk_errors_{0};
  std::atomic<uint64_t> flushed_before_{0};  // every record made before it was delivered
  std::mutex stop_mu_;
  bool running_ = false;
};

}  // namespace nodescope::pti
