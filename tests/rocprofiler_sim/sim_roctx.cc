// The simulated ROCTx library (sim_hip.h): each call is MARKER_CORE_API callbacks on the calling
// thread, ENTER with the arguments, EXIT with the result too, one payload for both, as the real
// SDK's roctx library gives them.
#include <atomic>

#include "sim_hip.h"
#include "sim_internal.h"

namespace {

thread_local int t_depth = 0;  // this thread's push/pop nesting level
std::atomic<uint64_t> g_next_range{1};

rocprofiler_callback_tracing_marker_api_data_t Payload() {
  rocprofiler_callback_tracing_marker_api_data_t data{};
  data.size = sizeof(data);
  return data;
}

void Enter(rocprofiler_marker_core_api_id_t op, rocprofiler_callback_tracing_marker_api_data_t* d) {
  sim::EnsureInitialized();
  sim::EmitMarker(op, ROCPROFILER_CALLBACK_PHASE_ENTER, d);
}
void Exit(rocprofiler_marker_core_api_id_t op, rocprofiler_callback_tracing_marker_api_data_t* d) {
  sim::EmitMarker(op, ROCPROFILER_CALLBACK_PHASE_EXIT, d);
}

}  // namespace

extern "C" {

int simroctxRangePushA(const char* message) {
  auto d = Payload();
  d.args.roctxRangePushA.message = message;
  Enter(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, &d);
  d.retval.int32_t_retval = t_depth++;
  Exit(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA, &d);
  return d.retval.int32_t_retval;
}

int simroctxRangePop(void) {
  auto d = Payload();
  Enter(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, &d);
  d.retval.int32_t_retval = t_depth > 0 ? --t_depth : -1;
  Exit(ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop, &d);
  return d.retval.int32_t_retval;
}

uint64_t simroctxRangeStartA(const char* message) {
  auto d = Payload();
  d.args.roctxRangeStartA.message = message;
  Enter(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, &d);
  d.retval.roctx_range_id_t_retval = g_next_range.fetch_add(1);
  Exit(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA, &d);
  return d.retval.roctx_range_id_t_retval;
}

void simroctxRangeStop(uint64_t id) {
  auto d = Payload();
  d.args.roctxRangeStop.id = id;
  Enter(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, &d);
  Exit(ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop, &d);
}

void simroctxMarkA(const char* message) {
  auto d = Payload();
  d.args.roctxMarkA.message = message;
  Enter(ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, &d);
  Exit(ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA, &d);
}

}  // extern "C"
