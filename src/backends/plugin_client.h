// The backend-library side of backends/plugin_abi.h, linked into every libnodescope_<vendor>.so
// (never into libnodescope.so or the CLI). It stands in for what the library must not hold a
// copy of:
//   - RegisterTracer() keeps the library's registrations until the host attaches it, then hands
//     them to the host's registry;
//   - RangeRecorder::Get() and RangeRecorder's out-of-line members forward to the host's one
//     recorder (a copy here would record into logs no session ever collects);
//   - the diagnostics channel (base/diagnostics.h) is forwarded to the host's on attach, so a
//     program's sink receives the library's messages and the session counts its warnings; until
//     then (or if attaching fails) the library's own copy prints them on stderr.
// Everything else a backend links (model, attribution, base) holds no state but the channel's own
// copy, used only before attaching.
#pragma once

#include "backends/plugin_abi.h"
#include "base/status.h"

namespace nodescope {

// For a vendor's injection entry point, which the vendor runtime calls with libnodescope.so
// loaded as this library's dependency: checks that host is of this build, then attaches this
// library to it. The error names both builds.
StatusOr<const PluginHostV1*> AttachToHost(const PluginHostV1* host);

}  // namespace nodescope
