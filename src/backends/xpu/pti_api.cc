// Resolving PTI's functions in the running process.
#include "backends/xpu/pti_api.h"

namespace nodescope::pti {

StatusOr<PtiApi> LoadPtiApi() {
  return ResolveSdkFunctions<PtiApi>("PTI (libpti_view.so.1)",
                                     "the pti backend traces programs that use oneAPI's PTI "
                                     "(nodescope run --backend xpu)");
}

}  // namespace nodescope::pti
