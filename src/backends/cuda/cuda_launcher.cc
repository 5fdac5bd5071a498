// Launching a program under CUDA injection, and checking first that a driver and a GPU exist.
// Only dlopen()s the driver (cuda_driver.h), so the CLI does not link CUDA.

#include <unistd.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/cuda_driver.h"

namespace nodescope::cupti {
namespace {

Status ProbeCuda() {
  const CudaDriver& cu = Driver();
  if (!cu.ok()) {
    return UnavailableError(std::string("no CUDA driver found (") + cu.load_error +
                            "); nodescope run needs an NVIDIA GPU and its driver");
  }
  CUresult r = cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char* text = nullptr;
    cu.cuGetErrorString(r, &text);
    return UnavailableError("the CUDA driver failed to initialise (error " +
                            std::to_string(static_cast<int>(r)) + ": " + (text ? text : "unknown") +
                            "); is an NVIDIA GPU present?");
  }
  int n = 0;
  if (cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    return UnavailableError("the CUDA driver reports no CUDA-capable device");
  }
  return OkStatus();
}

// NVTX (ranges from unmodified programs, libtorch, NCCL, XLA, ...) is served by
// libnodescope_nvtx.so beside `library`: it forwards to libnodescope.so, which holds the range
// recorder, but links no vendor library whose own NVTX entry points NVTX could find instead of
// ours (nvtx_shim.cc). Where it is missing (a library built without it), libnodescope.so itself,
// which answers extensions too (never `library`: it links libcupti, which has NVTX entry points).
std::string NvtxLibraryFor(const std::string& library) {
  size_t slash = library.rfind('/');
  std::string dir = slash == std::string::npos ? std::string() : library.substr(0, slash + 1);
  std::string shim = dir + "libnodescope_nvtx.so";
  return access(shim.c_str(), R_OK) == 0 ? shim : dir + "libnodescope.so";
}

void AddCudaEnv(const std::string& library, std::vector<std::string>* env) {
  // The driver calls InitializeInjection() in `library` (entry_point.cc) at cuInit.
  env->push_back("CUDA_INJECTION64_PATH=" + library);
  env->push_back("NVTX_INJECTION64_PATH=" + NvtxLibraryFor(library));
}

[[maybe_unused]] const bool kRegistered =
    RegisterLauncher(Launcher{NODESCOPE_BACKEND_NAME, "CUDA", NODESCOPE_BACKEND_LIBRARY,
                              "InitializeInjection", &ProbeCuda, &AddCudaEnv, /*can_sample=*/true});

}  // namespace
}  // namespace nodescope::cupti
