// The cuda backend's tracer: subscribes to CUPTI, hands it bounded buffers and decodes completed
// ones into neutral records (the skeleton feeds them to the attribution stage); graph callbacks
// feed that stage's lifecycle.
#pragma once

#include <cupti.h>

#include <memory>
#include <optional>
#include <vector>

#include "attribution/stage.h"
#include "backends/backend_tracer.h"
#include "backends/cuda/buffer_pool.h"
#include "backends/cuda/cupti_decoder.h"
#include "backends/cuda/graph_callbacks.h"
#include "backends/cuda/sampled_activity.h"
#include "backends/launch_sampler.h"

namespace nodescope::cupti {

// CUPTI's part of the tracer skeleton (backends/backend_tracer.h).
class CuptiTracer final : public BackendTracer {
 public:
  CuptiTracer();
  ~CuptiTracer() override;

  bool can_sample() const override { return true; }
  Status Flush() override;

 private:
  Status StartCollection(const TracerOptions& options) override;
  Status StopCollection() override;
  void AddCounters(Trace* trace, bool at_stop) override;
  void Describe(Trace* trace) override;
  void AddBodyCounters(Trace* trace) const;
  void AddDeviceGraphCounters(Trace* trace) const;

  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer,
                                       size_t size, size_t valid_size);
  static void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid, const void* data);
  Status Subscribe(const TracerOptions& options);
  void Unsubscribe();

  std::unique_ptr<BufferPool> pool_;
  std::optional<CuptiDecoder> decoder_;  // used in batches only (DecodeBatch)
  std::unique_ptr<AttributionStage> stage_;
  // Sampling (TracerOptions::sample_every > 1): which launches, and the activity kinds switched
  // on around them; both outlive graph_callbacks_, which uses them.
  std::unique_ptr<LaunchSampler> sampler_;
  std::unique_ptr<SampledActivity> sampled_;
  std::unique_ptr<CorrelationSet> kept_;  // picked launches: only their records are kept
  // Sampling with exec DAGs: which execs prove their conditional bodies' launch.
  std::unique_ptr<ExecIdBits> lead_proofs_;
  bool device_graph_requested_ = false;  // cuptiActivityEnableDeviceGraph(1) succeeded
  std::unique_ptr<GraphCallbacks> graph_callbacks_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_;
};

}  // namespace nodescope::cupti
