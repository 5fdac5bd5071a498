// Resolving an SDK's functions in the running process.
#include "backends/sdk_functions.h"

#include <dlfcn.h>

namespace nodescope {

void* FindInProcess(const char* name) { return dlsym(RTLD_DEFAULT, name); }

Status SdkNotLoadedError(std::string_view sdk, std::string_view missing, std::string_view hint) {
  std::string message(sdk);
  message += " is not loaded in this process (";
  message += missing;
  message += " not found): ";
  message += hint;
  return UnavailableError(std::move(message));
}

}  // namespace nodescope
