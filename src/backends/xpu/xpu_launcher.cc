// Launching a program under PTI: PTI has no variable naming tools to load (as CUDA's
// CUDA_INJECTION64_PATH or rocprofiler-sdk's ROCP_TOOL_LIBRARIES), so the backend library is
// preloaded; its constructor starts the process session when PTI is in the process
// (entry_point.cc). Links no PTI: the probe looks for libpti_view.so.1 by name on the loader
// path, as a SYCL program finds it.
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/launcher_support.h"

namespace nodescope::pti {
namespace {

Status ProbePti() {
  return FindOnLoaderPath("libpti_view.so.1", "PTI",
                          "; nodescope run --backend xpu needs oneAPI's PTI (source "
                          "/opt/intel/oneapi/setvars.sh)");
}

// Libraries already preloaded stay preloaded, after ours.
void AddXpuEnv(const std::string& library, std::vector<std::string>* env) {
  PrependToList("LD_PRELOAD", library, env);
}

[[maybe_unused]] const bool kRegistered = RegisterLauncher(
    Launcher{NODESCOPE_BACKEND_NAME, "Intel oneAPI/Level Zero", NODESCOPE_BACKEND_LIBRARY,
             "nodescope_xpu_start", &ProbePti, &AddXpuEnv});

}  // namespace
}  // namespace nodescope::pti
