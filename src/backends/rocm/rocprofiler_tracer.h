// The rocm backend's tracer (AMD GPUs through rocprofiler-sdk): a context with buffer tracing of
// kernel dispatches, memory copies and HIP runtime API calls; callback tracing of the HIP graph
// lifecycle and launches (driving the reconstructing attribution stage) and of code objects (kernel
// names); the external correlation request service (the per-thread recipe's tag on each dispatch);
// user ranges pushed as external correlation ids; ROCTx ranges through the marker core API
// (rocprofiler_roctx.h). Start() must run inside the tool's initialize (the SDK allows
// configuration nowhere else): the process session started by entry_point.cc does that.
#pragma once

#include <memory>
#include <optional>

#include "attribution/stage.h"
#include "backends/backend_tracer.h"
#include "backends/rocm/rocprofiler_capture.h"
#include "backends/rocm/rocprofiler_decoder.h"
#include "backends/rocm/rocprofiler_roctx.h"
#include "backends/rocm/sdk_api.h"

namespace nodescope::rocprofiler {

// rocprofiler-sdk's part of the tracer skeleton (backends/backend_tracer.h).
class RocprofilerTracer final : public BackendTracer {
 public:
  RocprofilerTracer();
  ~RocprofilerTracer() override;

  Status Flush() override;

  // The tool's finalize: the SDK delivers nothing after it, so the active tracer stops there.
  static void FinalizeActive();

 private:
  Status StartCollection(const TracerOptions& options) override;
  Status StopCollection() override;
  void AddCounters(Trace* trace, bool at_stop) override;

  static void OnBuffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
                       rocprofiler_record_header_t** headers, size_t count, void* data,
                       uint64_t drop_count);
  static void OnHipApi(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*,
                       void* data);
  static void OnCodeObject(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*,
                           void* data);
  static int OnRequest(rocprofiler_thread_id_t, rocprofiler_context_id_t,
                       rocprofiler_external_correlation_id_request_kind_t kind,
                       rocprofiler_tracing_operation_t, uint64_t internal,
                       rocprofiler_user_data_t* external, void* data);
  Status Configure(const TracerOptions& options);
  void AddDevices();
  // Capture-time ranges of `graph` for the exec now at `exec` (instantiated or updated from it).
  void ScopeExec(uint64_t exec, uint64_t graph);

  SdkApi sdk_;
  std::unique_ptr<ReconstructingStage> stage_;
  CaptureTracker capture_;     // capture-time ranges (rocprofiler_capture.h)
  RoctxStartStopTable roctx_;  // roctx start/stop ranges in flight (rocprofiler_roctx.h)
  std::optional<RocprofilerDecoder> decoder_;
  rocprofiler_context_id_t context_{0};
  rocprofiler_buffer_id_t buffer_{0};
};

}  // namespace nodescope::rocprofiler
