// libnodescope_nvtx.so: the library `nodescope run` names in NVTX_INJECTION64_PATH.
//
// NVTX looks its entry points up with dlsym() on this library's handle, and that search also
// covers the library's dependencies: a library that links a vendor SDK would expose the SDK's
// own InitializeInjectionNvtx* functions to NVTX (libcupti exports one; NCCL and JAX crashed on
// it). So this library depends on libc alone and exports exactly NVTX's two entry points. Each
// forwards to libnodescope.so (the one beside this file, which CUDA_INJECTION64_PATH also names,
// so the process holds one copy and one range recorder), loaded on first use.
//
// No nvtx3 header is needed: the entry points take and pass on opaque pointers.
//
// Messages: this library says something only when it cannot reach libnodescope.so (missing, or
// not nodescope's), so it cannot forward them to that library's diagnostics channel. It compiles
// in its own copy of the channel instead (base/diagnostics.cc, written on libc alone for this;
// added to this target in backends/CMakeLists.txt), whose stderr sink is the one every nodescope
// library prints with. A program's log handler (nodescope_set_log_handler) is installed in
// libnodescope.so and does not see them: when they happen, that library is not loaded here.
#include <dlfcn.h>
#include <pthread.h>

#include <cstring>

#include "base/diagnostics.h"

namespace {

using InitCore = int (*)(void*);
using InitExtension = int (*)(void*);

struct Target {
  InitCore core = nullptr;
  InitExtension extension = nullptr;
};

extern "C" int InitializeInjectionNvtx2(void* get_export_table);

Target g_target;
pthread_once_t g_once = PTHREAD_ONCE_INIT;

// Opens libnodescope.so beside this library (no libstdc++ here: libc is the only dependency).
void LoadOnce() {
  char path[4096] = "libnodescope.so";
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&InitializeInjectionNvtx2), &self) != 0 &&
      self.dli_fname != nullptr) {
    const char* slash = std::strrchr(self.dli_fname, '/');
    size_t dir = slash != nullptr ? static_cast<size_t>(slash - self.dli_fname) + 1 : 0;
    if (dir + sizeof("libnodescope.so") <= sizeof(path)) {
      std::memcpy(path, self.dli_fname, dir);
      std::memcpy(path + dir, "libnodescope.so", sizeof("libnodescope.so"));
    }
  }
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    nodescope::LogError("nvtx_library_missing", "NVTX ranges are not recorded: cannot load %s (%s)",
                        path, why != nullptr ? why : "unknown error");
    return;
  }
  auto core = reinterpret_cast<InitCore>(dlsym(lib, "nodescope_nvtx_initialize"));
  auto extension =
      reinterpret_cast<InitExtension>(dlsym(lib, "nodescope_nvtx_extension_initialize"));
  if (core == nullptr || extension == nullptr) {
    nodescope::LogError("nvtx_library_foreign",
                        "NVTX ranges are not recorded: %s is not nodescope's", path);
    return;
  }
  g_target.core = core;
  g_target.extension = extension;
}

// Loaded once, never unloaded (NVTX keeps our handlers).
const Target& Load() {
  pthread_once(&g_once, &LoadOnce);
  return g_target;
}

}  // namespace

// Returning 0 leaves this library's NVTX calls as no-ops (nvtxDetail/nvtxInit.h).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    void* get_export_table) {
  const Target& t = Load();
  return t.core != nullptr ? t.core(get_export_table) : 0;
}

// Returning 1 with no slot filled makes the extension's functions no-ops without failing it
// (nvtx_extension.cc says why 0 would be worse).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(
    void* module) {
  const Target& t = Load();
  return t.extension != nullptr ? t.extension(module) : 1;
}
