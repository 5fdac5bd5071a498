// Launching a program under rocprofiler-sdk: the SDK loads the tools ROCP_TOOL_LIBRARIES names.
// Links no SDK: the probe looks for the SDK's library by name on the loader path, as the HIP
// runtime finds it.
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/launcher_support.h"

namespace nodescope::rocprofiler {
namespace {

Status ProbeRocprofiler() {
  return FindOnLoaderPath("librocprofiler-sdk.so.1", "rocprofiler-sdk",
                          "; nodescope run --backend rocm needs ROCm 6.2 or later");
}

void AddRocmEnv(const std::string& library, std::vector<std::string>* env) {
  PrependToList("ROCP_TOOL_LIBRARIES", library, env);
}

[[maybe_unused]] const bool kRegistered =
    RegisterLauncher(Launcher{NODESCOPE_BACKEND_NAME, "ROCm", NODESCOPE_BACKEND_LIBRARY,
                              "rocprofiler_configure", &ProbeRocprofiler, &AddRocmEnv});

}  // namespace
}  // namespace nodescope::rocprofiler
