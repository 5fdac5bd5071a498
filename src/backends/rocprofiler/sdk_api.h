// The rocprofiler-sdk functions the tool calls, as pointers: resolved from the process that
// loaded the tool (the SDK library, real or simulated, is already in it: it is what loads tools),
// so the tool library links no SDK and builds without one; tests inject fakes.
#pragma once

#include "backends/rocprofiler/sdk/rocprofiler_sdk.h"
#include "base/status.h"

namespace nodescope::rocprofiler {

struct SdkApi {
  decltype(&rocprofiler_create_context) create_context = nullptr;
  decltype(&rocprofiler_start_context) start_context = nullptr;
  decltype(&rocprofiler_stop_context) stop_context = nullptr;
  decltype(&rocprofiler_create_buffer) create_buffer = nullptr;
  decltype(&rocprofiler_flush_buffer) flush_buffer = nullptr;
  decltype(&rocprofiler_configure_buffer_tracing_service) configure_buffer_tracing = nullptr;
  decltype(&rocprofiler_configure_callback_tracing_service) configure_callback_tracing = nullptr;
  decltype(&rocprofiler_configure_external_correlation_id_request_service)
      configure_external_correlation_request = nullptr;
  decltype(&rocprofiler_push_external_correlation_id) push_external_correlation_id = nullptr;
  decltype(&rocprofiler_pop_external_correlation_id) pop_external_correlation_id = nullptr;
  decltype(&rocprofiler_get_timestamp) get_timestamp = nullptr;
  decltype(&rocprofiler_get_thread_id) get_thread_id = nullptr;
  decltype(&rocprofiler_get_version) get_version = nullptr;
  decltype(&rocprofiler_query_available_agents) query_available_agents = nullptr;
};

// Every function above from the running process (dlsym(RTLD_DEFAULT)); an error names the first
// one missing.
StatusOr<SdkApi> LoadSdkApi();

}  // namespace nodescope::rocprofiler
