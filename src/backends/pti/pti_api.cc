// Resolving PTI's functions in the running process.
#include "backends/pti/pti_api.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace nodescope::pti {

StatusOr<PtiApi> LoadPtiApi() {
  PtiApi api;
  std::string missing;
  auto get = [&missing](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(RTLD_DEFAULT, name));
    if (fn == nullptr && missing.empty()) missing = name;
  };
  get(api.version, "ptiVersion");
  get(api.set_callbacks, "ptiViewSetCallbacks");
  get(api.enable, "ptiViewEnable");
  get(api.disable, "ptiViewDisable");
  get(api.flush, "ptiFlushAllViews");
  get(api.next_record, "ptiViewGetNextRecord");
  get(api.push_external, "ptiViewPushExternalCorrelationId");
  get(api.pop_external, "ptiViewPopExternalCorrelationId");
  get(api.set_timestamp_callback, "ptiViewSetTimestampCallback");
  get(api.api_id_name, "ptiViewGetApiIdName");
  if (!missing.empty()) {
    return UnavailableError("PTI (libpti_view.so.1) is not loaded in this process (" + missing +
                            " not found): the pti backend traces programs that use oneAPI's "
                            "PTI (nodescope run --backend xpu)");
  }
  return api;
}

}  // namespace nodescope::pti
