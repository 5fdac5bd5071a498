// ROCTx ranges on AMD: rocprofiler-sdk's marker core API callback tracing, routed into nodescope's
// range recorder in domain "roctx", as NVTX ranges are on CUDA (nvtx_injection.cc). The recorder's
// listener then pushes each range as an external correlation id (rocprofiler_tracer.cc), so the
// work launched inside it gets a gpu_user_annotation span like any user range.
//
//   roctxRangePushA  ENTER: Push(message)      roctxRangePop   ENTER: Pop()
//   roctxRangeStartA EXIT:  Start(message), remembered under the id the call returns (the SDK
//                           gives it only in the EXIT payload's retval)
//   roctxRangeStop   ENTER: End() of the range remembered under args.id
// roctxMarkA (an instant) is not recorded: the recorder holds ranges only.
#pragma once

#include <atomic>
#include <cstdint>

#include "backends/rocm/sdk/rocprofiler_sdk.h"

namespace nodescope::rocprofiler {

// The operations to configure for ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API.
inline constexpr rocprofiler_tracing_operation_t kRoctxOperations[] = {
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop};

// Start/stop ranges in flight: roctx id -> recorder id, lock-free and allocation-free. A start
// whose slot is taken by another range still open is ended at once and counted in dropped()
// (the trace's "roctx_start_stop_dropped" counter, written when non-zero).
class RoctxStartStopTable {
 public:
  static constexpr uint64_t kSlots = 4096;
  // Remembers `range` (a recorder id, non-zero) under `roctx_id`; false when the slot is taken.
  bool Insert(uint64_t roctx_id, uint64_t range);
  // The recorder id remembered under `roctx_id` (forgotten now), or 0.
  uint64_t Take(uint64_t roctx_id);
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // roctx ids are never ~0 in practice; key+1 is stored so that 0 means an empty slot.
  std::atomic<uint64_t> keys_[kSlots]{};
  std::atomic<uint64_t> ranges_[kSlots]{};
  std::atomic<uint64_t> dropped_{0};
};

// The callback for ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API; `data` is a
// RoctxStartStopTable that outlives the context.
void OnRoctx(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void* data);

}  // namespace nodescope::rocprofiler
