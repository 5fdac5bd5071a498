// CUPTI results as Status.
#include "backends/cuda/cupti_status.h"

#include <string>

namespace nodescope::cupti {
namespace {

std::string CuptiErrorText(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr) s = "unknown CUPTI error";
  return s;
}

}  // namespace

Status CheckCupti(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return OkStatus();
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return AlreadyExistsError(
        std::string(what) +
        ": another CUPTI client is already attached to this process (Nsight Systems, "
        "Nsight Compute, torch.profiler or another tracer); CUDA 13 allows only one. Run "
        "without the other profiler.");
  }
  if (r == CUPTI_ERROR_NOT_INITIALIZED) {
    return UnavailableError(std::string(what) + ": " + CuptiErrorText(r));
  }
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) {
    return PermissionDeniedError(std::string(what) + ": " + CuptiErrorText(r));
  }
  return InternalError(std::string(what) + ": " + CuptiErrorText(r));
}

}  // namespace nodescope::cupti
