// The checks every analysis applies to each event it reads (event_checks.h).
#include "analysis/stats/event_checks.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace nodescope::analysis {
namespace {

Status ErrorAt(const TraceEvent& e, const std::string& what) {
  return DataLossError(std::string(e.source) + ": byte " + std::to_string(e.offset) + ": " + what);
}

}  // namespace

bool IsKeyedGpuEvent(const TraceEvent& e) {
  return e.ph == "X" && (e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset") &&
         e.graph_id.has_value() && e.graph_node_id.has_value() && *e.graph_node_id != 0;
}

Status CheckEvent(const TraceEvent& e) {
  if (ProcessSlot(e.pid) >= kMaxProcessSlots) [[unlikely]] {
    return ErrorAt(e, "\"pid\" " + std::to_string(e.pid.number) +
                          " names no process of a merged trace (pids of merged traces are "
                          "below 512 << 22)");
  }
  if (!IsKeyedGpuEvent(e)) return OkStatus();
  // Per-node figures need when each node ran and for how long: no default stands in for them.
  const char* missing = !e.ts_us ? "\"ts\"" : !e.dur_us ? "\"dur\"" : nullptr;
  if (missing != nullptr) {
    return ErrorAt(e, "a " + std::string(e.cat) + " event with graph keys has no " + missing);
  }
  if (*e.dur_us < 0) {
    return ErrorAt(e, "\"dur\" is negative (" + std::to_string(*e.dur_us) + ")");
  }
  constexpr double kMaxUs = 1e17;
  for (const auto& [key, value] : {std::pair{"ts", *e.ts_us}, std::pair{"dur", *e.dur_us}}) {
    if (std::fabs(value) > kMaxUs) {
      char text[64];
      std::snprintf(text, sizeof(text), "%g", value);
      return ErrorAt(e, std::string("\"") + key + "\" is " + text +
                            " us, too large for a time (at most 1e17 us)");
    }
  }
  return OkStatus();
}

}  // namespace nodescope::analysis
