// Resolving the SDK's functions in the running process.
#include "backends/rocprofiler/sdk_api.h"

#include <dlfcn.h>

#include <string>

namespace nodescope::rocprofiler {

StatusOr<SdkApi> LoadSdkApi() {
  SdkApi api;
  std::string missing;
  auto get = [&missing](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(RTLD_DEFAULT, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  get(api.create_context, "rocprofiler_create_context");
  get(api.start_context, "rocprofiler_start_context");
  get(api.stop_context, "rocprofiler_stop_context");
  get(api.create_buffer, "rocprofiler_create_buffer");
  get(api.flush_buffer, "rocprofiler_flush_buffer");
  get(api.configure_buffer_tracing, "rocprofiler_configure_buffer_tracing_service");
  get(api.configure_callback_tracing, "rocprofiler_configure_callback_tracing_service");
  get(api.configure_external_correlation_request,
      "rocprofiler_configure_external_correlation_id_request_service");
  get(api.push_external_correlation_id, "rocprofiler_push_external_correlation_id");
  get(api.pop_external_correlation_id, "rocprofiler_pop_external_correlation_id");
  get(api.get_timestamp, "rocprofiler_get_timestamp");
  get(api.get_thread_id, "rocprofiler_get_thread_id");
  get(api.get_version, "rocprofiler_get_version");
  get(api.query_available_agents, "rocprofiler_query_available_agents");
  if (!missing.empty()) {
    return UnavailableError("rocprofiler-sdk is not loaded in this process (" + missing +
                            " not found): the rocm backend runs as a tool the SDK loads "
                            "(nodescope run --backend rocm)");
  }
  return api;
}

}  // namespace nodescope::rocprofiler
