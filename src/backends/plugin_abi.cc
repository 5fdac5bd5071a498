// The build check both sides of backends/plugin_abi.h make; no state.
#include "backends/plugin_abi.h"

#include <cstring>

#include "base/build_id.h"

namespace nodescope {

const char* const kBuildId = NODESCOPE_BUILD_ID;

std::string BuildMismatch(const std::string& what, uint32_t abi_version, const char* build_id) {
  if (abi_version == kPluginAbiVersion && build_id != nullptr &&
      std::strcmp(build_id, kBuildId) == 0) {
    return "";
  }
  return what + " comes from another nodescope build (build " +
         (build_id != nullptr ? build_id : "?") + ", plugin interface " +
         std::to_string(abi_version) + "; this is build " + kBuildId + ", plugin interface " +
         std::to_string(kPluginAbiVersion) + "): use libraries of one build together";
}

}  // namespace nodescope
