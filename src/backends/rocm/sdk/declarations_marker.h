// Part of nodescope's own rocprofiler-sdk declarations (declarations.h, which includes it): the
// marker (ROCTx) core API's callback tracing: operation ids and the callback payload, written from
// the public headers rocprofiler-sdk/fwd.h, marker/api_id.h, marker/api_args.h and
// callback_tracing.h (ROCm/rocm-systems@1b1610fc; pinned in declarations_test.cc).
#pragma once

#if !defined(NODESCOPE_ROCPROFILER_OWN_DECLARATIONS)
#error "include backends/rocm/sdk/rocprofiler_sdk.h instead"
#endif

#include <stdint.h>

extern "C" {

// ---- rocprofiler-sdk-roctx/types.h ------------------------------------------------------------
typedef uint64_t roctx_range_id_t;

// ---- marker/api_id.h (the operations of ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API) ---------
typedef enum rocprofiler_marker_core_api_id_t {
  ROCPROFILER_MARKER_CORE_API_ID_NONE = -1,
  ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA = 0,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA = 1,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop = 2,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA = 3,
  ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop = 4,
  ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId = 5,
  ROCPROFILER_MARKER_CORE_API_ID_LAST = 6,
} rocprofiler_marker_core_api_id_t;

// ---- marker/api_args.h (the core members, and the largest one, which sets the union's size) ---
typedef struct rocprofiler_marker_api_no_args {
  char empty;
} rocprofiler_marker_api_no_args;

typedef union rocprofiler_marker_api_retval_t {
  int32_t int32_t_retval;  // roctxRangePushA, roctxRangePop: the nesting level
  int64_t int64_t_retval;
  roctx_range_id_t roctx_range_id_t_retval;  // roctxRangeStartA: the id roctxRangeStop takes
} rocprofiler_marker_api_retval_t;

typedef union rocprofiler_marker_api_args_t {
  struct {
    const char* message;
  } roctxMarkA;
  struct {
    const char* message;
  } roctxRangePushA;
  struct {
    rocprofiler_marker_api_no_args no_args;
  } roctxRangePop;
  struct {
    const char* message;
  } roctxRangeStartA;
  struct {
    roctx_range_id_t id;
  } roctxRangeStop;
  struct {
    const char* name;
    const struct hsa_agent_s* agent;
  } roctxNameHsaAgent;  // not used: here for the union's size (16)
} rocprofiler_marker_api_args_t;

// ---- callback_tracing.h -----------------------------------------------------------------------
typedef struct rocprofiler_callback_tracing_marker_api_data_t {
  uint64_t size;
  rocprofiler_marker_api_args_t args;
  rocprofiler_marker_api_retval_t retval;
} rocprofiler_callback_tracing_marker_api_data_t;

}  // extern "C"
