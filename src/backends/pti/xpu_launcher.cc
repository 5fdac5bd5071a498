// Launching a program under PTI: PTI has no variable naming tools to load (as CUDA's
// CUDA_INJECTION64_PATH or rocprofiler-sdk's ROCP_TOOL_LIBRARIES), so the backend library is
// preloaded; its constructor starts the process session when PTI is in the process
// (api/pti_injection.cc). Links no PTI: the probe looks for libpti_view.so.1 by name on the
// loader path, as a SYCL program finds it (a simulated PTI of that name is found the same way).
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace nodescope::pti {
namespace {

constexpr char kPtiLibrary[] = "libpti_view.so.1";

Status ProbePti() {
  void* handle = dlopen(kPtiLibrary, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(kPtiLibrary, RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return UnavailableError(std::string("no PTI found (") + kPtiLibrary +
                            " is not on the loader path: " + (why != nullptr ? why : "?") +
                            "); nodescope run --backend xpu needs oneAPI's PTI (source "
                            "/opt/intel/oneapi/setvars.sh)");
  }
  dlclose(handle);
  return OkStatus();
}

void AddXpuEnv(const std::string& library, std::vector<std::string>* env) {
  // Libraries already preloaded stay preloaded, after ours.
  const char* existing = std::getenv("LD_PRELOAD");
  std::string value = library;
  if (existing != nullptr && existing[0] != '\0') value += std::string(":") + existing;
  env->push_back("LD_PRELOAD=" + value);
}

// NODESCOPE_PTI_LIBRARY: the file name of the backend library (this folder).
[[maybe_unused]] const bool kRegistered =
    RegisterLauncher(Launcher{"xpu", "Intel oneAPI/Level Zero", NODESCOPE_PTI_LIBRARY,
                              "nodescope_pti_start", &ProbePti, &AddXpuEnv});

}  // namespace
}  // namespace nodescope::pti
