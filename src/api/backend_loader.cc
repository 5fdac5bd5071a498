// Loading backend libraries beside libnodescope.so (backend_loader.h).
#include "api/backend_loader.h"

#include <dlfcn.h>

#include <mutex>

#include "backends/plugin_abi.h"

// A ':'-separated list of file names, set by src/api/CMakeLists.txt.
#ifndef NODESCOPE_BACKEND_LIBRARIES
#error "NODESCOPE_BACKEND_LIBRARIES must name the backend libraries of this build"
#endif

namespace nodescope {
namespace {

std::mutex g_load_mu;

std::string FileName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// This code's own folder: that of libnodescope.so (or of a test program linking it statically).
std::string OwnDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&LoadBuiltBackendLibraries), &info) == 0 ||
      info.dli_fname == nullptr) {
    return ".";
  }
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

Status LoadBackendLibrary(const std::string& path) {
  std::string file = FileName(path);
  // RTLD_LOCAL: the library's SDK does not become visible to the program or other libraries.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return UnavailableError(file + " cannot be loaded: " + (why != nullptr ? why : "unknown"));
  }
  using Entry = const PluginV1* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(lib, "nodescope_plugin_v1"));
  const PluginV1* plugin = entry != nullptr ? entry() : nullptr;
  if (plugin == nullptr) {
    dlclose(lib);
    return InvalidArgumentError(file + " is not a nodescope backend library");
  }
  std::string mismatch = BuildMismatch(file, plugin->abi_version, plugin->build_id);
  if (!mismatch.empty()) {
    dlclose(lib);
    return FailedPreconditionError(mismatch);
  }
  // Attached libraries stay loaded: the registry holds their factories.
  if (!plugin->attach(nodescope_plugin_host_v1())) {
    return InternalError(file + " refused to attach to this libnodescope.so");
  }
  return OkStatus();
}

Status LoadBackendLibraries(const std::string& dir, const std::vector<std::string>& names) {
  std::lock_guard<std::mutex> lock(g_load_mu);
  std::string reasons;
  bool any = names.empty();
  for (const std::string& name : names) {
    Status s = LoadBackendLibrary(dir + "/" + name);
    if (s.ok()) {
      any = true;
    } else {
      reasons += (reasons.empty() ? "" : "; ") + s.message();
    }
  }
  if (any) return OkStatus();
  return UnavailableError("no backend library could be loaded: " + reasons);
}

Status LoadBuiltBackendLibraries() {
  std::vector<std::string> names;
  std::string list = NODESCOPE_BACKEND_LIBRARIES;
  for (size_t begin = 0; begin < list.size();) {
    size_t end = list.find(':', begin);
    if (end == std::string::npos) end = list.size();
    if (end > begin) names.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return LoadBackendLibraries(OwnDir(), names);
}

}  // namespace nodescope
