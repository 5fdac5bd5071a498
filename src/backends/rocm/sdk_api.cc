// Resolving the SDK's functions in the running process.
#include "backends/rocm/sdk_api.h"

namespace nodescope::rocprofiler {

StatusOr<SdkApi> LoadSdkApi() {
  return ResolveSdkFunctions<SdkApi>("rocprofiler-sdk",
                                     "the rocm backend runs as a tool the SDK loads "
                                     "(nodescope run --backend rocm)");
}

}  // namespace nodescope::rocprofiler
