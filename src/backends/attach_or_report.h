// What a vendor's entry point in a backend library (each backend's entry_point.cc) does
// first: attach the library to libnodescope.so, its dependency, through the plugin interface.
// Linked into those backend libraries only; holds no state.
#pragma once

#include "backends/plugin_abi.h"

namespace nodescope {

// The host of this build (AttachToHost(nodescope_plugin_host_v1())), or null after saying why on
// the report pipe to `nodescope run` (the session, which would, is out of reach) and on stderr
// ("nodescope: not tracing pid N: ..."). A failure to trace must never stop the program: the
// caller returns what lets it run on untraced.
const PluginHostV1* AttachToHostOrReport();

}  // namespace nodescope
