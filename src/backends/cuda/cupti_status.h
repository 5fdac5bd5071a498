// CUPTI results as Status, with the messages a user can act on.
#pragma once

#include <cupti.h>

#include "base/status.h"

namespace nodescope::cupti {

// OK for CUPTI_SUCCESS; else an error naming `what` (the CUPTI call) and CUPTI's own text.
Status CheckCupti(CUptiResult r, const char* what);

}  // namespace nodescope::cupti
