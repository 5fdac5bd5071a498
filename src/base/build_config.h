// Build flags that fail closed: `#if NODESCOPE_BUILDFLAG(HAVE_ZLIB)`. A misspelt or unknown flag
// does not expand to a function-like macro, so the #if is a compile error, not a silent 0; the
// values come from CMake (src/base/build_flags.h.in). Bare `#if NAME` is caught by -Wundef.
//   HAS_CUPTI      the CUPTI backend is built (CUDA toolkit found)
//   HAVE_ZLIB      gzip-compressed traces can be read
//   HAVE_SIMDJSON  the trace reader and the trace validity checks are built
#pragma once

#include "base/build_flags.h"

#define NODESCOPE_BUILDFLAG_CAT_INDIRECT(a, b) a##b
#define NODESCOPE_BUILDFLAG_CAT(a, b) NODESCOPE_BUILDFLAG_CAT_INDIRECT(a, b)
#define NODESCOPE_BUILDFLAG(flag) (NODESCOPE_BUILDFLAG_CAT(NODESCOPE_BUILDFLAG_DEFINE_, flag)())
