// CUDA's injection entry point: the driver calls InitializeInjection() at cuInit when
// CUDA_INJECTION64_PATH names libnodescope_cupti.so. It lives in api/, which owns every entry
// point, needs no CUDA header, and is built into the CUPTI backend library only: it reaches the
// session in libnodescope.so (this library's dependency) through the plugin interface
// (backends/plugin_abi.h), never by calling its code directly (api/run_report.h, which holds no
// state, is linked in).
#include <unistd.h>

#include <cstdio>

#include "api/run_report.h"
#include "backends/plugin_client.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  // Returning 1 tells the driver the injection succeeded; a failure to trace is reported here
  // or by the session itself and must never stop the program.
  nodescope::StatusOr<const nodescope::PluginHostV1*> host =
      nodescope::AttachToHost(nodescope_plugin_host_v1());
  if (!host.ok()) {
    // Said to `nodescope run` too (the session, which would, is out of reach).
    nodescope::report::Line line;
    line.kind = nodescope::report::Line::Kind::kError;
    line.pid = static_cast<uint64_t>(getpid());
    line.message = host.status().ToString();
    nodescope::report::WriteLine(nodescope::report::ReportFdFromEnv(), line);
    std::fprintf(stderr, "nodescope: not tracing pid %d: %s\n", static_cast<int>(getpid()),
                 line.message.c_str());
    return 1;
  }
  (void)(*host)->start_process_session("cupti");
  return 1;
}
