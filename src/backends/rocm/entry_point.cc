// rocprofiler-sdk's entry point: the SDK calls rocprofiler_configure() in every library named by
// ROCP_TOOL_LIBRARIES (what `nodescope run --backend rocm` sets) or loaded in the process, and in
// the one a tracer forces (rocprofiler_force_configure). Initialize attaches this library to
// libnodescope.so (its dependency) through the plugin interface and configures the tool's
// services, dormant (RocprofilerTracer::ConfigureTool); under `nodescope run` it then starts the
// whole-process session, which starts the tracer. Finalize stops the tracer, since the SDK
// delivers nothing after it.
#include <cstdlib>

#include "backends/attach_or_report.h"
#include "backends/rocm/rocprofiler_tracer.h"
#include "backends/rocm/sdk/rocprofiler_sdk.h"
#include "base/diagnostics.h"

namespace {

// `nodescope run` sets NODESCOPE_ROOT_PID; NODESCOPE_OUTPUT asks for the whole process's trace
// when the tool is named by hand. Without either, a library the SDK loads waits for an in-process
// session (nodescope_start()).
bool ProcessSessionRequested() {
  for (const char* var : {"NODESCOPE_ROOT_PID", "NODESCOPE_OUTPUT"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return true;
  }
  return false;
}

int Initialize(rocprofiler_client_finalize_t, void*) {
  using nodescope::rocprofiler::RocprofilerTracer;
  const nodescope::PluginHostV1* host = nodescope::AttachToHostOrReport();
  // Not attached: the SDK then finalizes nothing of ours; the program runs on untraced.
  if (host == nullptr) return 1;
  // Services can be configured only here.
  if (nodescope::Status configured = RocprofilerTracer::ConfigureTool(); !configured.ok()) {
    nodescope::LogError("rocm_tool_not_configured", "not tracing: %s",
                        configured.ToString().c_str());
    return 1;
  }
  if (RocprofilerTracer::ConfiguringForATracer() || !ProcessSessionRequested()) return 0;
  // Starts the tracer (RocprofilerTracer::Start), which starts the configured context.
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
