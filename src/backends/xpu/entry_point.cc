// The Intel backend's entry point. PTI loads no tools of its own, so `nodescope run --backend
// xpu` preloads libnodescope_xpu.so (LD_PRELOAD); its constructor runs after the program's own
// libraries are initialised (a preloaded library depends on none of them, so they come first),
// and starts the process session when PTI (libpti_view.so.1) is in the process: before the
// program's first GPU call. A process without PTI (a shell the program starts, which inherits
// LD_PRELOAD) is left alone. It needs no PTI header and reaches the session in libnodescope.so
// through the plugin interface.
#include <dlfcn.h>

#include "backends/attach_or_report.h"

extern "C" __attribute__((visibility("default"))) int nodescope_xpu_start(void) {
  const nodescope::PluginHostV1* host = nodescope::AttachToHostOrReport();
  if (host == nullptr) return 0;
  return host->start_process_session(NODESCOPE_BACKEND_NAME) ? 1 : 0;
}

namespace {

__attribute__((constructor)) void StartWhenPtiIsHere() {
  if (dlsym(RTLD_DEFAULT, "ptiViewSetCallbacks") == nullptr) return;  // no PTI: not ours
  (void)nodescope_xpu_start();
}

}  // namespace
