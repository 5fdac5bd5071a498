// What launchers share.
#include "backends/launcher_support.h"

#include <dlfcn.h>

#include <cstdlib>

namespace nodescope {

Status FindOnLoaderPath(const char* library, std::string_view what, std::string_view hint) {
  // RTLD_NOLOAD first: already mapped in this process, nothing to load.
  void* handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  if (handle != nullptr) return OkStatus();
  const char* why = dlerror();
  return UnavailableError("no " + std::string(what) + " found (" + library +
                          " is not on the loader path: " + (why != nullptr ? why : "?") + ")" +
                          std::string(hint));
}

void PrependToList(const char* variable, const std::string& value, std::vector<std::string>* env) {
  const char* existing = std::getenv(variable);
  std::string entry = std::string(variable) + "=" + value;
  if (existing != nullptr && existing[0] != '\0') entry += std::string(":") + existing;
  env->push_back(std::move(entry));
}

}  // namespace nodescope
