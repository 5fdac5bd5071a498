// The one header the Intel backend (and the simulated PTI in tests/pti_sim/) includes for PTI:
// the real <pti/pti_view.h> when CMake found it, else nodescope's own declarations of the subset
// it uses (declarations.h). Link `nodescope_pti_sdk`, which defines NODESCOPE_PTI_REAL_SDK to 1
// or 0 (src/backends/pti/CMakeLists.txt).
#pragma once

#if !defined(NODESCOPE_PTI_REAL_SDK)
#error "link nodescope_pti_sdk: it says whether the real PTI was found"
#endif

#if NODESCOPE_PTI_REAL_SDK
#include <pti/pti.h>
#include <pti/pti_version.h>
#include <pti/pti_view.h>
#else
#include "backends/pti/sdk/declarations.h"
#endif
