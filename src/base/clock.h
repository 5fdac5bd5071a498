// The one clock of a trace: CPU and GPU events are stamped in CLOCK_REALTIME nanoseconds.
#pragma once

#include <cstdint>
#include <ctime>

namespace nodescope {

// CUPTI is told to use this clock too (cuptiActivityRegisterTimestampCallback), so API calls,
// user ranges and device activity share one time base, as kineto's traces do.
inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace nodescope
