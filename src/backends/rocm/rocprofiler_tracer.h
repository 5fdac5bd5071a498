// The rocm backend's tracer (AMD GPUs through rocprofiler-sdk): a context with buffer tracing of
// kernel dispatches, memory copies and HIP runtime API calls; callback tracing of the HIP graph
// lifecycle and launches (driving the reconstructing attribution stage) and of code objects (kernel
// names); the external correlation request service (the per-thread recipe's tag on each dispatch);
// user ranges pushed as external correlation ids; ROCTx ranges through the marker core API
// (rocprofiler_roctx.h).
//
// The SDK takes services only inside the tool's initialize, so the tool configures them there
// once per process (ConfigureTool, rocprofiler_tool.cc) and leaves the tracing context stopped:
// dormant. A tracer starts and stops that context (allowed any time), its callbacks reaching
// whichever tracer is collecting. How initialize is reached:
//   `nodescope run` (or NODESCOPE_OUTPUT set): ROCP_TOOL_LIBRARIES names this library; initialize
//     configures, then starts the whole-process session (entry_point.cc);
//   in-process, ROCP_TOOL_LIBRARIES set by hand: initialize configures only; nodescope_start()
//     later starts the dormant context;
//   in-process, before the runtime's first call: the tracer's Start() registers the tool with
//     rocprofiler_force_configure(), which initializes it there and then.
// A session asked for after the SDK initialized without this tool fails, saying how to fix it.
#pragma once

#include <atomic>
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

  // The tool's finalize: the SDK delivers nothing after it, so the active tracer stops there,
  // and no tracer starts after it.
  static void FinalizeActive();

  // ---- The tool (rocprofiler_tool.cc) ----
  // The tool's initialize: creates the contexts, the buffer and the services, their callbacks
  // reaching the collecting tracer (none: ignored); starts the code-object context (kernel
  // names are kept for tracers to come) and leaves the tracing one stopped. Once per process.
  static Status ConfigureTool();
  // Whether initialize runs for a tracer's own rocprofiler_force_configure() (it must then only
  // configure, not start a process session).
  static bool ConfiguringForATracer();

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
  static void OnRoctxActive(rocprofiler_callback_tracing_record_t record,
                            rocprofiler_user_data_t* user_data, void*);
  // The tracer whose callbacks the SDK's reach: the active one while it collects, else null.
  static RocprofilerTracer* Collecting();
  // StartCollection: the tool configured, registering it first when the SDK has not initialized
  // (rocprofiler_force_configure); an error a user can act on when it cannot be.
  Status EnsureTool(const TracerOptions& options);
  // The kernel names the code-object context kept, into this tracer's decoder and capture.
  void TakeKnownSymbols();
  void AddDevices();
  // Capture-time ranges of `graph` for the exec now at `exec` (instantiated or updated from it).
  void ScopeExec(uint64_t exec, uint64_t graph);

  SdkApi sdk_;
  std::unique_ptr<ReconstructingStage> stage_;
  CaptureTracker capture_;     // capture-time ranges (rocprofiler_capture.h)
  RoctxStartStopTable roctx_;  // roctx start/stop ranges in flight (rocprofiler_roctx.h)
  std::optional<RocprofilerDecoder> decoder_;
  rocprofiler_context_id_t context_{0};  // the tool's tracing context and buffer
  rocprofiler_buffer_id_t buffer_{0};
  std::atomic<bool> collecting_{false};  // the decoder and stage exist: callbacks may use them
  bool direct_dispatch_off_ = false;     // AMD_DIRECT_DISPATCH=0 at the start (issue 29)
};

}  // namespace nodescope::rocprofiler
