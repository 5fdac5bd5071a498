// Finding and checking the library `nodescope run` injects before any program loads it: the
// launcher's backend library (backends/backend.h: libnodescope_cuda.so for CUDA), with
// libnodescope.so beside it. NODESCOPE_LIBRARY may name any file, and the vendor runtime would
// dlopen() it into the program.
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"
#include "base/status.h"

namespace nodescope::cli {

// OK if `path` is a regular file holding a 64-bit ELF shared object for this machine whose
// dynamic symbol table defines every name in `symbols`. Reads the file; runs none of it.
Status CheckTracerLibrary(const std::string& path, const std::vector<std::string>& symbols);

// The symbols the library `launcher` injects must define: the entry point the vendor runtime
// calls in it.
std::vector<std::string> TracerLibrarySymbols(const Launcher& launcher);

// The library to inject for `launcher`, checked: `env_library` (NODESCOPE_LIBRARY: that file, or
// launcher.library in that folder) if set, else launcher.library in `self_dir`/../lib or
// `self_dir` (the nodescope binary's folder). libnodescope.so, which it links, must be beside it.
StatusOr<std::string> FindTracerLibrary(const Launcher& launcher, const char* env_library,
                                        const std::string& self_dir);

}  // namespace nodescope::cli
