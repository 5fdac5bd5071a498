// Capture-time ranges reconstructed from HIP API callbacks.
#include "backends/rocm/rocprofiler_capture.h"

#include <iterator>

namespace nodescope::rocprofiler {

void CaptureTracker::BeginCapture(uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (streams_.emplace(stream, std::make_shared<Capture>()).second) {
    capturing_.fetch_add(1, std::memory_order_release);
  }
}

void CaptureTracker::KernelLaunchedSlow(uint64_t stream, uint64_t range, uint64_t function) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  it->second->ranges.push_back(range);
  it->second->functions.push_back(function);
}

void CaptureTracker::EventRecordedSlow(uint64_t event, uint64_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it != streams_.end()) {
    events_[event] = it->second;
  } else {
    events_.erase(event);  // recorded again outside any capture
  }
}

void CaptureTracker::StreamWaited(uint64_t stream, uint64_t event) {
  if (capturing_.load(std::memory_order_acquire) == 0) [[likely]]
    return;
  std::lock_guard<std::mutex> lock(mu_);
  auto e = events_.find(event);
  if (e == events_.end()) return;
  auto [it, joined] = streams_.emplace(stream, e->second);
  if (joined) {
    capturing_.fetch_add(1, std::memory_order_release);
    e->second->forked = true;
  } else if (it->second != e->second) {
    it->second->forked = e->second->forked = true;  // two captures mixed: HIP refuses it
  }
}

void CaptureTracker::EndCapture(uint64_t stream, uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  const std::shared_ptr<Capture> capture = it->second;
  // Every stream forked into it leaves the capture with it.
  for (auto s = streams_.begin(); s != streams_.end();) {
    if (s->second == capture) {
      s = streams_.erase(s);
      capturing_.fetch_sub(1, std::memory_order_release);
    } else {
      ++s;
    }
  }
  for (auto e = events_.begin(); e != events_.end();) {
    e = e->second == capture ? events_.erase(e) : std::next(e);
  }
  if (graph == 0) return;
  if (!capture->forked) {
    graphs_[graph] = Graph{std::move(capture->ranges), 0, true, false, {}, 0};
    return;
  }
  // By kernel: a name whose launches all had one range keeps it; others get none.
  constexpr uint64_t kTwoRanges = ~uint64_t{0};
  std::unordered_map<std::string, uint64_t> by_name;
  std::vector<const std::string*> names(capture->ranges.size(), nullptr);
  for (size_t i = 0; i < capture->ranges.size(); ++i) {
    auto h = host_kernels_.find(capture->functions[i]);
    if (h == host_kernels_.end()) continue;
    names[i] = &h->second;
    auto [n, fresh] = by_name.emplace(h->second, capture->ranges[i]);
    if (!fresh && n->second != capture->ranges[i]) n->second = kTwoRanges;
  }
  Graph g;
  g.captured = true;
  g.broken = true;  // no ranges by ordinal
  g.launches = static_cast<uint32_t>(capture->ranges.size());
  uint64_t unscoped = 0;
  for (size_t i = 0; i < capture->ranges.size(); ++i) {
    if (capture->ranges[i] != 0 && (names[i] == nullptr || by_name[*names[i]] == kTwoRanges))
      ++unscoped;
  }
  for (auto& [name, range] : by_name) {
    if (range != kTwoRanges && range != 0) g.by_kernel.emplace_back(name, range);
  }
  unscoped_.fetch_add(unscoped, std::memory_order_relaxed);
  graphs_[graph] = std::move(g);
}

void CaptureTracker::KernelNodeAdded(uint64_t graph, uint64_t node, const uint64_t* deps, size_t n,
                                     uint64_t range) {
  std::lock_guard<std::mutex> lock(mu_);
  Graph& g = graphs_[graph];  // a graph not seen yet: built node by node from here
  const bool chained = g.ranges.empty() ? n == 0 : n == 1 && deps[0] == g.last_node;
  if (g.captured || !chained) {
    g.broken = true;
    g.by_kernel.clear();
    g.launches = 0;
  }
  if (g.broken) return;
  g.ranges.push_back(range);
  g.last_node = node;
}

void CaptureTracker::GraphDestroyed(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  graphs_.erase(graph);
}

void CaptureTracker::HostKernel(uint64_t function, const char* name) {
  std::lock_guard<std::mutex> lock(mu_);
  host_kernels_[function] = name != nullptr ? name : "";
}

std::vector<uint64_t> CaptureTracker::RangesOf(uint64_t graph) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(graph);
  return it == graphs_.end() || it->second.broken ? std::vector<uint64_t>() : it->second.ranges;
}

std::vector<std::pair<std::string, uint64_t>> CaptureTracker::KernelRangesOf(uint64_t graph,
                                                                             uint32_t* launches) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(graph);
  *launches = it == graphs_.end() ? 0 : it->second.launches;
  return it == graphs_.end() ? std::vector<std::pair<std::string, uint64_t>>()
                             : it->second.by_kernel;
}

}  // namespace nodescope::rocprofiler
