// rocprofiler-sdk's entry point: the SDK calls rocprofiler_configure() in every library named by
// ROCP_TOOL_LIBRARIES (what `nodescope run --backend rocm` sets). Its signature needs the SDK's
// types, so it lives in the backend folder (docs/ARCHITECTURE.md, "Adding a backend", item 4):
// initialize attaches this library to libnodescope.so (its dependency) and starts the process
// session through the plugin interface, which starts the tracer; finalize stops the tracer,
// since the SDK delivers nothing after it.
#include <unistd.h>

#include <cstdio>

#include "backends/plugin_client.h"
#include "backends/rocprofiler/rocprofiler_tracer.h"
#include "backends/rocprofiler/sdk/rocprofiler_sdk.h"

namespace {

int Initialize(rocprofiler_client_finalize_t, void*) {
  nodescope::StatusOr<const nodescope::PluginHostV1*> host =
      nodescope::AttachToHost(nodescope_plugin_host_v1());
  if (!host.ok()) {
    std::fprintf(stderr, "nodescope: not tracing pid %d: %s\n", static_cast<int>(getpid()),
                 host.status().ToString().c_str());
    return 1;  // the SDK then finalizes nothing of ours; the program runs on untraced
  }
  // Starts the tracer (RocprofilerTracer::Start), which configures the SDK: allowed only here.
  return (*host)->start_process_session("rocprofiler") ? 0 : 1;
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
