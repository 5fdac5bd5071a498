// Inside the simulated rocprofiler-sdk: what its HIP runtime (sim_hip.cc) asks of its SDK half
// (sim_sdk.cc, sim_buffers.cc): the callbacks and records of one HIP call, of one dispatch or copy
// written on the calling thread, of streams and code objects. Not used by tools or programs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/rocm/sdk/rocprofiler_sdk.h"

namespace sim {

constexpr int kMaxContexts = 8;

uint64_t BootNs();    // CLOCK_BOOTTIME ns, the SDK's clock
uint64_t ThreadId();  // gettid(), the SDK's thread id

// Finds and initializes the tools (a forced one, rocprofiler_configure in the process and in
// loaded libraries, ROCP_TOOL_LIBRARIES) once; the first runtime call does it, as HIP's loading
// does, or rocprofiler_force_configure.
void EnsureInitialized();

// One HIP runtime call as the SDK sees it, on the calling thread: a new internal correlation id,
// the external ids (request callback or pushed), ENTER callbacks on construction; EXIT callbacks
// and the buffered record on destruction, then its id's retirement (every packet taking it was
// written on this thread during the call). While it lives it is this thread's latest correlation
// id, which packets written on this thread take.
class ApiCall {
 public:
  ApiCall(rocprofiler_hip_runtime_api_id_t operation, const rocprofiler_hip_api_args_t& args);
  ~ApiCall();
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  int Return(int result) {
    data_.retval.hipError_t_retval = result;
    return result;
  }

 private:
  friend struct CurrentCall;
  rocprofiler_hip_runtime_api_id_t operation_;
  uint64_t thread_id_;
  uint64_t internal_;
  uint64_t start_ns_;
  uint64_t async_end_ns_ = 0;  // latest end of a dispatch or copy under this id
  ApiCall* outer_;
  rocprofiler_callback_tracing_hip_api_data_t data_{};
  rocprofiler_user_data_t external_[kMaxContexts]{};
  rocprofiler_user_data_t user_data_[kMaxContexts]{};
};

// The correlation a packet or copy written now on this thread takes (the latest HIP call on this
// thread, or a fresh id when there is none), with the request callback for `kind` called here.
struct Correlation {
  uint64_t thread_id;
  uint64_t internal;
  rocprofiler_user_data_t external[kMaxContexts];
  ApiCall* call;  // the call whose id it is (retired when it returns), or null for a fresh id
};
Correlation CorrelateAsync(rocprofiler_external_correlation_id_request_kind_t kind,
                           rocprofiler_tracing_operation_t operation);

void EmitKernelDispatch(const Correlation& correlation,
                        const rocprofiler_kernel_dispatch_info_t& info, uint64_t start_ns,
                        uint64_t end_ns);
void EmitMemoryCopy(const Correlation& correlation, rocprofiler_memory_copy_operation_t direction,
                    uint64_t dst_agent, uint64_t src_agent, uint64_t bytes, const void* dst,
                    const void* src, uint64_t start_ns, uint64_t end_ns);

// HIP_STREAM callbacks on the calling thread (CREATE/DESTROY: phase NONE; SET: ENTER and EXIT,
// with one user_data slot per context kept by the caller between the two), internal id 0 as the
// SDK's stream wrappers give.
void EmitStream(rocprofiler_hip_stream_operation_t operation, rocprofiler_callback_phase_t phase,
                uint64_t stream_id, const void* stream,
                rocprofiler_user_data_t* user_data = nullptr);

// CODE_OBJECT callbacks on the calling thread.
void EmitCodeObject(const rocprofiler_callback_tracing_code_object_load_data_t& load,
                    rocprofiler_callback_phase_t phase);
void EmitKernelSymbol(
    const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t& symbol,
    rocprofiler_callback_phase_t phase);

void EmitHostKernelSymbol(
    const rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t& symbol,
    rocprofiler_callback_phase_t phase);

// MARKER_CORE_API callbacks on the calling thread (sim_roctx.cc).
void EmitMarker(rocprofiler_marker_core_api_id_t operation, rocprofiler_callback_phase_t phase,
                rocprofiler_callback_tracing_marker_api_data_t* data);

// sim_sdk.cc, for sim_registration.cc: the window in which services may be configured, the
// finalized flag (MarkFinalized returns whether it was already set), and stopping every context.
void SetConfiguring(bool configuring);
bool MarkFinalized();
bool Finalized();
void StopContexts();

// Called by the SDK half at exit, before the tools' finalize: code objects unloaded.
void UnloadCodeObjects();

// A CORRELATION_ID_RETIREMENT record for `internal` at `timestamp`, to the contexts asking.
void Retire(uint64_t internal, uint64_t timestamp);

// Buffers (sim_buffers.cc): append one record to a buffer; deliver and stop at exit.
void AppendRecord(uint64_t buffer_id, rocprofiler_buffer_tracing_kind_t kind, const void* record,
                  size_t bytes);
void StopBufferDelivery();

}  // namespace sim
