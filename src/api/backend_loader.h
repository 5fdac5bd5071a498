// Backend libraries (libnodescope_<vendor>.so) loaded into this process and attached to this
// library's registry, for in-process users who link libnodescope.so alone (backends/plugin_abi.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace nodescope {

// Loads the backend library at `path` and attaches it: OK, or why not, naming the file (it
// cannot be loaded, e.g. its SDK is missing on this machine; it is not a nodescope backend
// library; it comes from another build, which is then unloaded).
Status LoadBackendLibrary(const std::string& path);

// Loads each of `names` from `dir`; OK if one attached or `names` is empty, else every reason.
Status LoadBackendLibraries(const std::string& dir, const std::vector<std::string>& names);

// The backend libraries built with this library (NODESCOPE_BACKEND_LIBRARIES), from the folder
// this code was loaded from.
Status LoadBuiltBackendLibraries();

}  // namespace nodescope
