// The CUPTI backend: subscribes, hands CUPTI bounded buffers, decodes completed ones into neutral
// records and passes them to the attribution stage; graph callbacks feed that stage's lifecycle.
#pragma once

#include <cupti.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "attribution/stage.h"
#include "backends/backend.h"
#include "backends/cupti/buffer_pool.h"
#include "backends/cupti/cupti_decoder.h"
#include "backends/cupti/graph_callbacks.h"
#include "backends/cupti/sampled_activity.h"
#include "backends/launch_sampler.h"

namespace nodescope::cupti {

class CuptiTracer final : public Tracer {
 public:
  CuptiTracer();
  ~CuptiTracer() override;

  std::string_view name() const override { return "cupti"; }
  Status Start(const TracerOptions& options) override;
  Status Stop() override;
  Trace& trace() override { return trace_; }
  bool can_sample() const override { return true; }
  Status Flush() override;
  Status SnapshotWindow(Trace* out, bool release) override;
  uint64_t HeldRecords() override;

 private:
  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer,
                                       size_t size, size_t valid_size);
  static void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid, const void* data);
  Status Subscribe(const TracerOptions& options);
  void Unsubscribe();

  Trace trace_;
  std::unique_ptr<BufferPool> pool_;
  // Serialises buffer completions (CUPTI's thread vs. a flushing thread): decoding and the
  // attribution stage run under it, one buffer at a time. Never held across a CUPTI call: CUPTI
  // may hold its own lock while it asks for a buffer (kineto's deadlock).
  std::mutex decode_mu_;
  std::atomic<uint64_t> vendor_dropped_{0};  // added to trace_.drops at Stop()
  std::optional<CuptiDecoder> decoder_;
  std::unique_ptr<AttributionStage> stage_;
  // Sampling (TracerOptions::sample_every > 1): which launches, and the activity kinds switched
  // on around them; both outlive graph_callbacks_, which uses them.
  std::unique_ptr<LaunchSampler> sampler_;
  std::unique_ptr<SampledActivity> sampled_;
  std::unique_ptr<CorrelationSet> kept_;  // picked launches: only their records are kept
  std::unique_ptr<GraphCallbacks> graph_callbacks_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_;
  bool running_ = false;
  WindowPolicy ring_;  // trimmed after each buffer (backends/ring_window.h)
};

}  // namespace nodescope::cupti
