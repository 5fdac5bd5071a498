// Launching a program under CUDA injection, and checking first that a driver and a GPU exist.
// Only dlopen()s the driver (cuda_driver.h), so the CLI does not link CUDA.

#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cupti/cuda_driver.h"

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
                            std::to_string(static_cast<int>(r)) + ": " +
                            (text ? text : "unknown") + "); is an NVIDIA GPU present?");
  }
  int n = 0;
  if (cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    return UnavailableError("the CUDA driver reports no CUDA-capable device");
  }
  return OkStatus();
}

void AddCudaEnv(const std::string& library, std::vector<std::string>* env) {
  env->push_back("CUDA_INJECTION64_PATH=" + library);
  // The same library serves NVTX: ranges from unmodified programs (and libtorch, NCCL, ...).
  env->push_back("NVTX_INJECTION64_PATH=" + library);
}

[[maybe_unused]] const bool kRegistered =
    RegisterLauncher(Launcher{"cuda", &ProbeCuda, &AddCudaEnv});

}  // namespace
}  // namespace nodescope::cupti
