// The simulated PTI's buffer handling (sim_buffers.cc) as its entry points (sim_view.cc) use it.
#pragma once

#include "backends/xpu/sdk/pti_sdk.h"

namespace ptisim {

// ptiViewSetCallbacks: asks for a first buffer at once; a null one or one smaller than the
// largest record is handed back unused and refused (PTI_ERROR_BAD_ARGUMENT, defaults kept).
pti_result SetBufferCallbacks(pti_fptr_buffer_requested requested,
                              pti_fptr_buffer_completed completed);
bool CallbacksSet();
pti_result FlushBuffers();  // ptiFlushAllViews: every buffer delivered, then returns

}  // namespace ptisim
