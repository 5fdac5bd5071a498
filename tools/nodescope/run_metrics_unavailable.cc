// RunMetrics in a build without the trace reader (simdjson): --metrics is refused before the
// program starts.
#include "run_metrics.h"

namespace nodescope::cli {

RunMetrics::~RunMetrics() = default;

Status RunMetrics::Start(const MetricsOptions&, std::vector<std::string>*) {
  return FailedPreconditionError(
      "--metrics: this build cannot serve metrics (it was built without the trace reader, "
      "simdjson)");
}

void RunMetrics::Finish(const ChildResult&, const std::string&) {}

}  // namespace nodescope::cli
