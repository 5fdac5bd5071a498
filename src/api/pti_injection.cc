// The Intel backend's entry point. PTI loads no tools of its own, so `nodescope run --backend
// xpu` preloads libnodescope_pti.so (LD_PRELOAD); its constructor runs after the program's own
// libraries are initialised (a preloaded library depends on none of them, so they come first),
// and starts the process session when PTI (libpti_view.so.1) is in the process: before the
// program's first GPU call. A process without PTI (a shell the program starts, which inherits
// LD_PRELOAD) is left alone. Like cuda_injection.cc it needs no PTI header and reaches the session
// in libnodescope.so through the plugin interface.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

#include "api/run_report.h"
#include "backends/plugin_client.h"

extern "C" __attribute__((visibility("default"))) int nodescope_pti_start(void) {
  nodescope::StatusOr<const nodescope::PluginHostV1*> host =
      nodescope::AttachToHost(nodescope_plugin_host_v1());
  if (!host.ok()) {
    nodescope::report::Line line;
    line.kind = nodescope::report::Line::Kind::kError;
    line.pid = static_cast<uint64_t>(getpid());
    line.message = host.status().ToString();
    nodescope::report::WriteLine(nodescope::report::ReportFdFromEnv(), line);
    std::fprintf(stderr, "nodescope: not tracing pid %d: %s\n", static_cast<int>(getpid()),
                 line.message.c_str());
    return 0;
  }
  return (*host)->start_process_session("pti") ? 1 : 0;
}

namespace {

__attribute__((constructor)) void StartWhenPtiIsHere() {
  if (dlsym(RTLD_DEFAULT, "ptiViewSetCallbacks") == nullptr) return;  // no PTI: not ours
  (void)nodescope_pti_start();
}

}  // namespace
