// rocprofiler-sdk's entry point: the SDK calls rocprofiler_configure() in every library named by
// ROCP_TOOL_LIBRARIES (what `nodescope run --backend rocm` sets). Initialize attaches this
// library to libnodescope.so (its dependency) and starts the process session through the plugin
// interface, which starts the tracer; finalize stops the tracer, since the SDK delivers nothing
// after it.
#include "backends/attach_or_report.h"
#include "backends/rocm/rocprofiler_tracer.h"
#include "backends/rocm/sdk/rocprofiler_sdk.h"

namespace {

int Initialize(rocprofiler_client_finalize_t, void*) {
  const nodescope::PluginHostV1* host = nodescope::AttachToHostOrReport();
  // Not attached: the SDK then finalizes nothing of ours; the program runs on untraced.
  if (host == nullptr) return 1;
  // Starts the tracer (RocprofilerTracer::Start), which configures the SDK: allowed only here.
  return host->start_process_session(NODESCOPE_BACKEND_NAME) ? 0 : 1;
}

void Finalize(void*) { nodescope::rocprofiler::RocprofilerTracer::FinalizeActive(); }

rocprofiler_tool_configure_result_t g_result{sizeof(rocprofiler_tool_configure_result_t),
                                             &Initialize, &Finalize, nullptr};

}  // namespace

extern "C" __attribute__((visibility("default"))) rocprofiler_tool_configure_result_t*
rocprofiler_configure(uint32_t, const char*, uint32_t, rocprofiler_client_id_t* client_id) {
  if (client_id != nullptr) client_id->name = "nodescope";
  return &g_result;
}
