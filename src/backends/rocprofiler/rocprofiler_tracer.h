// The rocprofiler-sdk backend: a context with buffer tracing of kernel dispatches, memory copies
// and HIP runtime API calls; callback tracing of the HIP graph lifecycle and launches (driving
// the reconstructing attribution stage) and of code objects (kernel names); the external
// correlation request service (the per-thread recipe's tag on each dispatch); user ranges pushed
// as external correlation ids; ROCTx ranges through the marker core API (rocprofiler_roctx.h).
// Start() must run inside the tool's initialize (the SDK allows configuration nowhere else): the
// process session started by rocprofiler_tool.cc does that.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "attribution/stage.h"
#include "backends/backend.h"
#include "backends/rocprofiler/rocprofiler_capture.h"
#include "backends/rocprofiler/rocprofiler_decoder.h"
#include "backends/rocprofiler/rocprofiler_roctx.h"
#include "backends/rocprofiler/sdk_api.h"

namespace nodescope::rocprofiler {

class RocprofilerTracer final : public Tracer {
 public:
  RocprofilerTracer() = default;
  ~RocprofilerTracer() override;

  std::string_view name() const override { return "rocprofiler"; }
  Status Start(const TracerOptions& options) override;
  Status Stop() override;
  Trace& trace() override { return trace_; }
  Status Flush() override;
  Status SnapshotWindow(Trace* out, bool release) override;
  uint64_t HeldRecords() override;

  // The tool's finalize: the SDK delivers nothing after it, so the active tracer stops there.
  static void FinalizeActive();

 private:
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

  Trace trace_;
  SdkApi sdk_;
  std::unique_ptr<ReconstructingStage> stage_;
  CaptureTracker capture_;     // capture-time ranges (rocprofiler_capture.h)
  RoctxStartStopTable roctx_;  // roctx start/stop ranges in flight (rocprofiler_roctx.h)
  std::optional<RocprofilerDecoder> decoder_;
  std::mutex decode_mu_;  // one batch at a time: the SDK's thread or a flush
  std::atomic<uint64_t> vendor_dropped_{0};
  rocprofiler_context_id_t context_{0};
  rocprofiler_buffer_id_t buffer_{0};
  std::mutex stop_mu_;
  bool running_ = false;
  WindowPolicy ring_;            // trimmed after each batch (backends/ring_window.h)
  uint64_t stream_records_ = 0;  // NODESCOPE_STREAM (a part holds back undecided records)
};

}  // namespace nodescope::rocprofiler
