// What launchers (RegisterLauncher, backend.h) share: finding a vendor's library by name, as the
// vendor runtime will, and naming ours in a list variable the runtime reads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace nodescope {

// OK when `library` (a file name: "libpti_view.so.1") loads from the loader path, as the vendor's
// runtime will find it in the traced program (a simulated SDK of that name is found the same
// way); else UNAVAILABLE: "no <what> found (<library> is not on the loader path: <why>)<hint>".
// A library found stays loaded: its constructors have run, and unloading one with live static
// state leaks it (LeakSanitizer saw the simulated rocprofiler-sdk's 24 960 bytes at exit).
Status FindOnLoaderPath(const char* library, std::string_view what, std::string_view hint);

// Adds `variable`=`value` to `env`, followed by `:` and the value this process has, if any: tools
// or libraries already named there keep running beside ours.
void PrependToList(const char* variable, const std::string& value, std::vector<std::string>* env);

}  // namespace nodescope
