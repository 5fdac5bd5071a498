// The PTI functions the tracer calls, as pointers: resolved from the process the tool library is
// loaded into (a program tracing with PTI has libpti_view.so.1 mapped: the real one or the
// simulated one in tests), so libnodescope_xpu.so links no PTI and builds without it.
#pragma once

#include "backends/sdk_functions.h"
#include "backends/xpu/sdk/pti_sdk.h"
#include "base/status.h"

// X(member of PtiApi, PTI's function) for each function the tracer calls (sdk_functions.h).
#define NODESCOPE_PTI_FUNCTIONS(X)                       \
  X(version, ptiVersion)                                 \
  X(set_callbacks, ptiViewSetCallbacks)                  \
  X(enable, ptiViewEnable)                               \
  X(disable, ptiViewDisable)                             \
  X(flush, ptiFlushAllViews)                             \
  X(next_record, ptiViewGetNextRecord)                   \
  X(push_external, ptiViewPushExternalCorrelationId)     \
  X(pop_external, ptiViewPopExternalCorrelationId)       \
  X(set_timestamp_callback, ptiViewSetTimestampCallback) \
  X(api_id_name, ptiViewGetApiIdName)

namespace nodescope::pti {

struct PtiApi {
  NODESCOPE_SDK_FUNCTIONS(NODESCOPE_PTI_FUNCTIONS)
};

// Every function above from the running process (dlsym(RTLD_DEFAULT)); an error names the first
// one missing.
StatusOr<PtiApi> LoadPtiApi();

}  // namespace nodescope::pti
