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
  if (graph != 0) graphs_[graph] = Graph{std::move(it->second), 0, true, false};
  streams_.erase(it);
  capturing_.fetch_sub(1, std::memory_order_release);
}

void CaptureTracker::KernelNodeAdded(uint64_t graph, uint64_t node, const uint64_t* deps, size_t n,
                                     uint64_t range) {
  std::lock_guard<std::mutex> lock(mu_);
  Graph& g = graphs_[graph];  // a graph not seen yet: built node by node from here
  const bool chained = g.ranges.empty() ? n == 0 : n == 1 && deps[0] == g.last_node;
  if (g.captured || !chained) g.broken = true;
  if (g.broken) return;
  g.ranges.push_back(range);
  g.last_node = node;
}

void CaptureTracker::GraphDestroyed(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  graphs_.erase(graph);
}

std::vector<uint64_t> CaptureTracker::RangesOf(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(graph);
  return it == graphs_.end() || it->second.broken ? std::vector<uint64_t>() : it->second.ranges;
}

}  // namespace nodescope::rocprofiler
