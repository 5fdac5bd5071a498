// Capture-time ranges: the user range open when a node was added to a graph follows the node
// into every exec instantiated from it, and into every replay. Exec node keys are the vendor's
// (graph exec id << 32 | ordinal); each mapping starts at a correlation id, so an exec update
// gives the new graph's ranges to work launched after it and leaves work in flight alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace nodescope {

class CaptureScopeTable {
 public:
  // ---- Application threads (graph building and instantiation; rare). ----
  // A node was added to a template graph while `range_id` was the innermost open range.
  void OnTemplateNode(uint64_t template_node, uint64_t range_id);
  // A template node was copied into another template (cudaGraphClone).
  void OnTemplateCloned(uint64_t new_node, uint64_t original_node);
  // An exec node now runs `template_node` (instantiate, or exec update), for work launched with
  // a correlation id >= `from_correlation`.
  void OnExecNode(uint64_t exec_node_key, uint64_t template_node, uint64_t from_correlation);

  // ---- The decoding thread. ----
  void Drain();  // once per vendor buffer, before Lookup()
  // The capture-time range of the node `node_key` for work launched at `correlation`; 0 if none.
  uint64_t Lookup(uint64_t node_key, uint32_t correlation) {
    if (!any_.load(std::memory_order_relaxed)) [[likely]]
      return 0;
    return LookupSlow(node_key, correlation);
  }

 private:
  struct Event {
    uint64_t exec_node_key;
    uint64_t range_id;
    uint64_t from_correlation;
  };
  struct Entry {
    uint64_t from_correlation;
    uint64_t range_id;
  };
  using Nodes = std::vector<std::vector<Entry>>;  // by ordinal
  uint64_t LookupSlow(uint64_t node_key, uint32_t correlation);

  std::mutex mu_;  // application side
  std::unordered_map<uint64_t, uint64_t> template_ranges_;
  std::vector<Event> queue_;
  std::atomic<bool> any_{false};

  std::unordered_map<uint32_t, Nodes> graphs_;  // decoder side: exec id -> nodes
  uint32_t cached_graph_ = 0;
  Nodes* cached_nodes_ = nullptr;
};

}  // namespace nodescope
