// The rocprofiler-sdk functions the tool calls, as pointers: resolved from the process that
// loaded the tool (the SDK library, real or simulated, is already in it: it is what loads tools),
// so the tool library links no SDK and builds without one; tests inject fakes.
#pragma once

#include "backends/rocm/sdk/rocprofiler_sdk.h"
#include "backends/sdk_functions.h"
#include "base/status.h"

// X(member of SdkApi, the SDK's function) for each function the tool calls (sdk_functions.h).
#define NODESCOPE_ROCPROFILER_FUNCTIONS(X)                                      \
  X(create_context, rocprofiler_create_context)                                 \
  X(start_context, rocprofiler_start_context)                                   \
  X(stop_context, rocprofiler_stop_context)                                     \
  X(create_buffer, rocprofiler_create_buffer)                                   \
  X(flush_buffer, rocprofiler_flush_buffer)                                     \
  X(configure_buffer_tracing, rocprofiler_configure_buffer_tracing_service)     \
  X(configure_callback_tracing, rocprofiler_configure_callback_tracing_service) \
  X(configure_external_correlation_request,                                     \
    rocprofiler_configure_external_correlation_id_request_service)              \
  X(push_external_correlation_id, rocprofiler_push_external_correlation_id)     \
  X(pop_external_correlation_id, rocprofiler_pop_external_correlation_id)       \
  X(get_timestamp, rocprofiler_get_timestamp)                                   \
  X(get_thread_id, rocprofiler_get_thread_id)                                   \
  X(get_version, rocprofiler_get_version)                                       \
  X(query_available_agents, rocprofiler_query_available_agents)                 \
  X(force_configure, rocprofiler_force_configure)                               \
  X(is_initialized, rocprofiler_is_initialized)

namespace nodescope::rocprofiler {

struct SdkApi {
  NODESCOPE_SDK_FUNCTIONS(NODESCOPE_ROCPROFILER_FUNCTIONS)
};

// Every function above from the running process (dlsym(RTLD_DEFAULT)), or from the SDK's
// library found by its name (librocprofiler-sdk.so.1) where it was loaded without RTLD_GLOBAL; an
// error names the first one missing. `load`: an SDK not loaded yet is loaded (RTLD_GLOBAL).
StatusOr<SdkApi> LoadSdkApi(bool load = false);

}  // namespace nodescope::rocprofiler
