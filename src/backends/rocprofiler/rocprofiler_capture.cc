// Capture-time ranges reconstructed from HIP API callbacks.
#include "backends/rocprofiler/rocprofiler_capture.h"

namespace nodescope::rocprofiler {

void CaptureTracker::BeginCapture(uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (streams_.emplace(stream, std::vector<uint64_t>()).second) {
    capturing_.fetch_add(1, std::memory_order_release);
  }
}

void CaptureTracker::KernelLaunchedSlow(uint64_t stream, uint64_t range) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it != streams_.end()) it->second.push_back(range);
}

void CaptureTracker::EndCapture(uint64_t stream, uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  if (graph != 0) graphs_[graph] = std::move(it->second);
  streams_.erase(it);
  capturing_.fetch_sub(1, std::memory_order_release);
}

void CaptureTracker::GraphDestroyed(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  graphs_.erase(graph);
}

std::vector<uint64_t> CaptureTracker::RangesOf(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(graph);
  return it == graphs_.end() ? std::vector<uint64_t>() : it->second;
}

}  // namespace nodescope::rocprofiler
