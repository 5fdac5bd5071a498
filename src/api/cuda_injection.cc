// CUDA's injection entry point: the driver calls InitializeInjection() at cuInit when
// CUDA_INJECTION64_PATH names libnodescope.so. It must keep default visibility. It lives in api/,
// which owns every entry point, and needs no CUDA header; it is built only with the CUPTI backend.
#include "api/process_session.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  // Returning 1 tells the driver the injection succeeded; a failure to trace is reported by the
  // session itself and must never stop the program.
  (void)nodescope::StartProcessSession("cupti");
  return 1;
}
