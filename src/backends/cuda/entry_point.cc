// CUDA's injection entry point: the driver calls InitializeInjection() at cuInit when
// CUDA_INJECTION64_PATH names libnodescope_cuda.so. It needs no CUDA header and reaches the
// session in libnodescope.so (this library's dependency) through the plugin interface
// (backends/plugin_abi.h), never by calling its code directly.
#include "backends/attach_or_report.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  // Returning 1 tells the driver the injection succeeded; a failure to trace is reported here
  // or by the session itself and must never stop the program.
  const nodescope::PluginHostV1* host = nodescope::AttachToHostOrReport();
  if (host == nullptr) return 1;
  (void)host->start_process_session(NODESCOPE_BACKEND_NAME);
  return 1;
}
