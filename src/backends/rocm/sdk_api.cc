// Resolving the SDK's functions in the running process.
#include "backends/rocm/sdk_api.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace nodescope::rocprofiler {
namespace {

constexpr char kSdkLibrary[] = "librocprofiler-sdk.so.1";

// Every function from `handle` (the SDK's library, however it was loaded), or the first missing.
StatusOr<SdkApi> ResolveFrom(void* handle, const char* hint) {
  SdkApi api;
  std::string missing;
  api.ForEachFunction([&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (fn == nullptr && missing.empty()) missing = name;
  });
  if (!missing.empty()) return SdkNotLoadedError("rocprofiler-sdk", missing, hint);
  return api;
}

}  // namespace

StatusOr<SdkApi> LoadSdkApi(bool load) {
  const char* hint = "the rocm backend runs as a tool the SDK loads (nodescope run --backend rocm)";
  StatusOr<SdkApi> api = ResolveSdkFunctions<SdkApi>("rocprofiler-sdk", hint);
  if (api.ok()) return api;
  // Loaded without RTLD_GLOBAL (a HIP runtime Python's ctypes loaded): found by its soname.
  if (void* handle = dlopen(kSdkLibrary, RTLD_LAZY | RTLD_NOLOAD)) return ResolveFrom(handle, hint);
  if (!load) return api.status();
  // Not loaded yet: an in-process session before the runtime loads. A tool that registers
  // itself loads the SDK first (rocprofiler_force_configure then makes the runtime hand it its
  // tables when it initializes).
  void* handle = dlopen(kSdkLibrary, RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::string message = "rocprofiler-sdk (";
    message += kSdkLibrary;
    message += ") cannot be loaded: ";
    message += why != nullptr ? why : "not found";
    message += "; put ROCm's lib folder on the loader path (LD_LIBRARY_PATH)";
    return UnavailableError(message);
  }
  return ResolveFrom(handle, hint);
}

}  // namespace nodescope::rocprofiler
