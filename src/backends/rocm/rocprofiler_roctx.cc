// ROCTx ranges into the range recorder (rocprofiler_roctx.h).
#include "backends/rocm/rocprofiler_roctx.h"

#include "ranges/range_recorder.h"

namespace nodescope::rocprofiler {

bool RoctxStartStopTable::Insert(uint64_t roctx_id, uint64_t range) {
  const uint64_t slot = roctx_id % kSlots;
  uint64_t empty = 0;
  if (!keys_[slot].compare_exchange_strong(empty, roctx_id + 1, std::memory_order_acq_rel)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  ranges_[slot].store(range, std::memory_order_release);
  return true;
}

uint64_t RoctxStartStopTable::Take(uint64_t roctx_id) {
  const uint64_t slot = roctx_id % kSlots;
  if (keys_[slot].load(std::memory_order_acquire) != roctx_id + 1) return 0;
  const uint64_t range = ranges_[slot].exchange(0, std::memory_order_acq_rel);
  uint64_t key = roctx_id + 1;
  keys_[slot].compare_exchange_strong(key, 0, std::memory_order_acq_rel);
  return range;
}

namespace {
uint32_t RoctxDomain() {
  static const uint32_t domain = RangeRecorder::Get().RegisterDomain("roctx");
  return domain;
}
const char* Message(const char* m) { return m != nullptr ? m : ""; }
}  // namespace

void OnRoctx(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void* data) {
  if (record.kind != ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API) return;
  auto* table = static_cast<RoctxStartStopTable*>(data);
  const auto* d =
      static_cast<const rocprofiler_callback_tracing_marker_api_data_t*>(record.payload);
  const bool enter = record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
  RangeRecorder& r = RangeRecorder::Get();
  switch (record.operation) {
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA:
      if (enter) r.Push(Message(d->args.roctxRangePushA.message), RoctxDomain());
      break;
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop:
      if (enter) r.Pop();
      break;
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA:
      if (!enter) {
        const uint64_t id = r.Start(Message(d->args.roctxRangeStartA.message), RoctxDomain());
        if (id != 0 && !table->Insert(d->retval.roctx_range_id_t_retval, id)) r.End(id);
      }
      break;
    case ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop:
      if (enter) {
        if (const uint64_t id = table->Take(d->args.roctxRangeStop.id); id != 0) r.End(id);
      }
      break;
    default:
      break;
  }
}

}  // namespace nodescope::rocprofiler
