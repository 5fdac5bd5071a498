// Capture-time range bookkeeping.
#include "attribution/capture_scopes.h"

namespace nodescope {

void CaptureScopeTable::OnTemplateNode(uint64_t template_node, uint64_t range_id) {
  if (range_id == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  template_ranges_[template_node] = range_id;
}

void CaptureScopeTable::OnTemplateCloned(uint64_t new_node, uint64_t original_node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = template_ranges_.find(original_node);
  if (it != template_ranges_.end()) template_ranges_[new_node] = it->second;
}

void CaptureScopeTable::OnExecNode(uint64_t exec_node_key, uint64_t template_node,
                                   uint64_t from_correlation) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = template_ranges_.find(template_node);
  uint64_t range = it == template_ranges_.end() ? 0 : it->second;
  // Unscoped nodes matter only once some scope exists (an update may give or take one away).
  if (range == 0 && !any_.load(std::memory_order_relaxed)) return;
  queue_.push_back(Event{exec_node_key, range, from_correlation});
  any_.store(true, std::memory_order_release);
}

void CaptureScopeTable::Drain() {
  if (!any_.load(std::memory_order_acquire)) return;
  std::vector<Event> events;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events.swap(queue_);
  }
  for (const Event& e : events) {
    Nodes& nodes = graphs_[static_cast<uint32_t>(e.exec_node_key >> 32)];
    auto ordinal = static_cast<uint32_t>(e.exec_node_key & 0xffffffffu);
    if (ordinal >= (1u << 24)) continue;  // not a real node ordinal
    if (ordinal >= nodes.size()) nodes.resize(ordinal + 1);
    std::vector<Entry>& entries = nodes[ordinal];
    if (entries.empty() && e.range_id == 0) continue;
    // Instantiate again under the same exec id, or an update: a later epoch.
    entries.push_back(Entry{e.from_correlation, e.range_id});
  }
  cached_nodes_ = nullptr;
}

uint64_t CaptureScopeTable::LookupSlow(uint64_t node_key, uint32_t correlation) {
  auto graph = static_cast<uint32_t>(node_key >> 32);
  if (cached_nodes_ == nullptr || cached_graph_ != graph) {
    auto it = graphs_.find(graph);
    if (it == graphs_.end()) return 0;
    cached_graph_ = graph;
    cached_nodes_ = &it->second;
  }
  auto ordinal = static_cast<uint32_t>(node_key & 0xffffffffu);
  if (ordinal >= cached_nodes_->size()) return 0;
  const std::vector<Entry>& entries = (*cached_nodes_)[ordinal];
  for (auto e = entries.rbegin(); e != entries.rend(); ++e) {
    if (correlation >= e->from_correlation) return e->range_id;
  }
  return 0;
}

}  // namespace nodescope
