// The CUPTI backend: activity buffers, resource callbacks, bounded buffer pool, drop accounting.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "attribution/capture_scopes.h"
#include "attribution/native_attributor.h"
#include "backends/backend.h"
#include "backends/cupti/buffer_pool.h"
#include "backends/cupti/cupti_decoder.h"

namespace nodescope::cupti {

// Counts of the graph lifecycle seen through CUPTI's resource callbacks. Atomics: callbacks run
// on the application's threads.
struct GraphCallbackCounts {
  std::atomic<uint64_t> graphs_created{0};
  std::atomic<uint64_t> graphs_cloned{0};
  std::atomic<uint64_t> nodes_cloned{0};
  std::atomic<uint64_t> execs_created{0};
  std::atomic<uint64_t> execs_destroyed{0};
  std::atomic<uint64_t> nodes_updated{0};
  std::atomic<uint64_t> node_params_set{0};
};

class CuptiTracer final : public Tracer {
 public:
  CuptiTracer();
  ~CuptiTracer() override;

  std::string_view name() const override { return "cupti"; }
  Status Start(const TracerOptions& options) override;
  Status Stop() override;
  Trace& trace() override { return trace_; }

 private:
  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer,
                                       size_t size, size_t valid_size);
  static void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid, const void* data);
  void OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  void OnGraphNode(CUpti_CallbackId cbid, const CUpti_GraphData& graph);
  // Instantiate / update / set-params calls that returned success: exec lifecycle for attribution.
  void OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  Status EnableGraphApiCallbacks();
  void CollectEnvironment();

  Trace trace_;
  std::unique_ptr<BufferPool> pool_;
  // Serialises buffer completions (CUPTI's thread vs. a flushing thread). Never held across a
  // CUPTI call: CUPTI may hold its own lock while it asks for a buffer (kineto's deadlock).
  std::mutex decode_mu_;
  std::atomic<uint64_t> vendor_dropped_{0};  // added to trace_.drops at Stop()
  std::optional<CuptiDecoder> decoder_;
  std::unique_ptr<NativeIdAttributor> attributor_;  // null when graph attribution is off
  CaptureScopeTable scopes_;
  // Per (domain, cbid): 0 = not ours, 1 = creates an exec, 2 = changes an exec in place.
  std::vector<uint8_t> runtime_api_kind_;
  std::vector<uint8_t> driver_api_kind_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_;
  GraphCallbackCounts graph_counts_;
  bool running_ = false;
};

}  // namespace nodescope::cupti
