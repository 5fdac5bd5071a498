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
  std::string message = "no ";  // appended: g++ 12 misreads "no " + temporary (GCC bug 105329)
  message.append(what).append(" found (").append(library);
  message.append(" is not on the loader path: ").append(why != nullptr ? why : "?").append(")");
  message.append(hint);
  return UnavailableError(message);
}

void PrependToList(const char* variable, const std::string& value, std::vector<std::string>* env) {
  const char* existing = std::getenv(variable);
  std::string entry = std::string(variable) + "=" + value;
  if (existing != nullptr && existing[0] != '\0') entry += std::string(":") + existing;
  env->push_back(std::move(entry));
}

}  // namespace nodescope
