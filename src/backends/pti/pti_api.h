// The PTI functions the tracer calls, as pointers: resolved from the process the tool library is
// loaded into (a program tracing with PTI has libpti_view.so.1 mapped: the real one or the
// simulated one in tests), so libnodescope_pti.so links no PTI and builds without it.
#pragma once

#include "backends/pti/sdk/pti_sdk.h"
#include "base/status.h"

namespace nodescope::pti {

struct PtiApi {
  decltype(&ptiVersion) version = nullptr;
  decltype(&ptiViewSetCallbacks) set_callbacks = nullptr;
  decltype(&ptiViewEnable) enable = nullptr;
  decltype(&ptiViewDisable) disable = nullptr;
  decltype(&ptiFlushAllViews) flush = nullptr;
  decltype(&ptiViewGetNextRecord) next_record = nullptr;
  decltype(&ptiViewPushExternalCorrelationId) push_external = nullptr;
  decltype(&ptiViewPopExternalCorrelationId) pop_external = nullptr;
  decltype(&ptiViewSetTimestampCallback) set_timestamp_callback = nullptr;
  decltype(&ptiViewGetApiIdName) api_id_name = nullptr;
};

// Every function above from the running process (dlsym(RTLD_DEFAULT)); an error names the first
// one missing.
StatusOr<PtiApi> LoadPtiApi();

}  // namespace nodescope::pti
