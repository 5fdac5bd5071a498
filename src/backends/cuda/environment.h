// What a CUPTI trace says about where it ran: CUPTI, runtime and driver versions, the devices'
// properties, the process and its threads' names.
#pragma once

#include "model/trace.h"

namespace nodescope::cupti {

// Fills trace->versions, devices, pid, process_name and thread_names (for every thread seen in
// trace->api). Calls nothing that can call back into the tracer.
void CollectEnvironment(Trace* trace);

}  // namespace nodescope::cupti
