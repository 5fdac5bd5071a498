// Launching a program under rocprofiler-sdk: the SDK loads the tools ROCP_TOOL_LIBRARIES names.
// Links no SDK: the probe looks for the SDK's library by name on the loader path, as the HIP
// runtime finds it (a simulated SDK of that name is found the same way).
#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace nodescope::rocprofiler {
namespace {

constexpr char kSdkLibrary[] = "librocprofiler-sdk.so.1";

Status ProbeRocprofiler() {
  // RTLD_NOLOAD first: already mapped in this process, nothing to load.
  void* handle = dlopen(kSdkLibrary, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(kSdkLibrary, RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return UnavailableError(std::string("no rocprofiler-sdk found (") + kSdkLibrary +
                            " is not on the loader path: " + (why != nullptr ? why : "?") +
                            "); nodescope run --backend rocm needs ROCm 6.2 or later");
  }
  // Kept loaded (as the xpu probe does): its constructors have run, and unloading a library with
  // live static state leaks it (LeakSanitizer saw the simulated SDK's 24 960 bytes at exit).
  return OkStatus();
}

void AddRocmEnv(const std::string& library, std::vector<std::string>* env) {
  // Tools already named keep running beside ours.
  const char* existing = std::getenv("ROCP_TOOL_LIBRARIES");
  std::string value = library;
  if (existing != nullptr && existing[0] != '\0') value += std::string(":") + existing;
  env->push_back("ROCP_TOOL_LIBRARIES=" + value);
}

// NODESCOPE_ROCPROFILER_LIBRARY: the file name of the backend library (this folder).
[[maybe_unused]] const bool kRegistered =
    RegisterLauncher(Launcher{"rocm", "ROCm", NODESCOPE_ROCPROFILER_LIBRARY,
                              "rocprofiler_configure", &ProbeRocprofiler, &AddRocmEnv});

}  // namespace
}  // namespace nodescope::rocprofiler
