// The one header the AMD backend (and the simulated SDK in tests/rocprofiler_sim/) includes for
// rocprofiler-sdk: the real SDK's headers when CMake found it, else nodescope's own declarations
// of the subset it uses (declarations.h). Link `nodescope_rocm_sdk`, which defines
// NODESCOPE_ROCM_REAL_SDK to 1 or 0 (src/backends/rocm/CMakeLists.txt).
#pragma once

#if !defined(NODESCOPE_ROCM_REAL_SDK)
#error "link nodescope_rocm_sdk: it says whether the real rocprofiler-sdk was found"
#endif

#if NODESCOPE_ROCM_REAL_SDK
#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/external_correlation.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/marker.h>
#include <rocprofiler-sdk/registration.h>
#include <rocprofiler-sdk/rocprofiler.h>
#else
#include "backends/rocm/sdk/declarations.h"
#endif
