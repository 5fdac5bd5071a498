// The one header the Intel backend (and the simulated PTI in tests/pti_sim/) includes for PTI:
// the real <pti/pti_view.h> when CMake found it, else nodescope's own declarations of the subset
// it uses (declarations.h). Link `nodescope_xpu_sdk`, which defines NODESCOPE_XPU_REAL_SDK to 1
// or 0 (src/backends/xpu/CMakeLists.txt).
#pragma once

#if !defined(NODESCOPE_XPU_REAL_SDK)
#error "link nodescope_xpu_sdk: it says whether the real PTI was found"
#endif

#if NODESCOPE_XPU_REAL_SDK
#include <pti/pti.h>
#include <pti/pti_version.h>
#include <pti/pti_view.h>
#else
#include "backends/xpu/sdk/declarations.h"
#endif
