// dlopen()-based access to the CUDA driver.
#include "backends/cuda/cuda_driver.h"

#include <dlfcn.h>

namespace nodescope::cupti {
namespace {

template <typename Fn>
bool Bind(void* lib, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, name));
  return *out != nullptr;
}

CudaDriver Load() {
  CudaDriver d;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    d.load_error = err != nullptr && *err != '\0' ? err : "libcuda.so.1 not found";
    return d;
  }
  bool ok = Bind(lib, "cuInit", &d.cuInit) && Bind(lib, "cuGetErrorString", &d.cuGetErrorString) &&
            Bind(lib, "cuDriverGetVersion", &d.cuDriverGetVersion) &&
            Bind(lib, "cuDeviceGetCount", &d.cuDeviceGetCount) &&
            Bind(lib, "cuDeviceGet", &d.cuDeviceGet) &&
            Bind(lib, "cuDeviceGetName", &d.cuDeviceGetName) &&
            Bind(lib, "cuDeviceTotalMem_v2", &d.cuDeviceTotalMem) &&
            Bind(lib, "cuDeviceGetAttribute", &d.cuDeviceGetAttribute) &&
            Bind(lib, "cuCtxGetCurrent", &d.cuCtxGetCurrent) &&
            Bind(lib, "cuCtxSynchronize", &d.cuCtxSynchronize);
  if (!ok) d.load_error = "libcuda.so.1 lacks an expected entry point (driver too old?)";
  // Optional: edges with their data came with CUDA 12.3 (cuGraphGetEdges_v2).
  if (!(Bind(lib, "cuGraphGetNodes", &d.cuGraphGetNodes) &&
        Bind(lib, "cuGraphGetEdges_v2", &d.cuGraphGetEdges) &&
        Bind(lib, "cuGraphNodeGetType", &d.cuGraphNodeGetType) &&
        Bind(lib, "cuGraphChildGraphNodeGetGraph", &d.cuGraphChildGraphNodeGetGraph))) {
    d.cuGraphGetNodes = nullptr;
  }
  return d;
}

}  // namespace

const CudaDriver& Driver() {
  static const CudaDriver driver = Load();
  return driver;
}

}  // namespace nodescope::cupti
