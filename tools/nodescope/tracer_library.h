// Checking the library `nodescope run` injects before any program loads it: NODESCOPE_LIBRARY
// may name any file, and the vendor runtime would dlopen() it into the program.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace nodescope::cli {

// OK if `path` is a regular file holding a 64-bit ELF shared object for this machine whose
// dynamic symbol table defines every name in `symbols`. Reads the file; runs none of it.
Status CheckTracerLibrary(const std::string& path, const std::vector<std::string>& symbols);

// The symbols a libnodescope.so of this build defines: its C API, and with the CUPTI backend
// the CUDA injection entry point.
std::vector<std::string> TracerLibrarySymbols();

}  // namespace nodescope::cli
