// What each emitted (graph id, node ordinal) key was first seen to be: a kernel name, or a copy or
// fill kind. Indexed by ordinal within a graph, with a one-graph cache: replays hit it.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace nodescope {

// Identity of a GPU activity for verification: kernels by interned name, copies by direction and
// memory kinds, fills by memory kind. Tagged in the top two bits so kinds never compare equal.
inline uint32_t IdentityOf(const GpuActivity& a) {
  switch (a.kind) {
    case ActivityKind::kKernel:
      return a.kernel.name & 0x3fffffffu;
    case ActivityKind::kMemcpy:
      return (1u << 30) | (static_cast<uint32_t>(a.copy.direction) << 16) |
             (static_cast<uint32_t>(a.copy.src_kind) << 8) | static_cast<uint32_t>(a.copy.dst_kind);
    case ActivityKind::kMemset:
      return (2u << 30) | static_cast<uint32_t>(a.fill.memory_kind);
    case ActivityKind::kCount:
      break;
  }
  return 3u << 30;
}

class IdentityTable {
 public:
  static constexpr uint32_t kUnknown = 0xffffffffu;

  // Returns true if `identity` matches what `(graph_id, ordinal)` was learned to be (learning it
  // on first sight); false if the key already names something else.
  bool CheckOrLearn(uint32_t graph_id, uint32_t ordinal, uint32_t identity) {
    std::vector<uint32_t>& nodes = NodesOf(graph_id);
    if (ordinal >= nodes.size()) {
      if (ordinal >= kMaxOrdinal) return false;
      nodes.resize(static_cast<size_t>(ordinal) + 1, kUnknown);
    }
    uint32_t& known = nodes[ordinal];
    if (known == kUnknown) {
      known = identity;
      return true;
    }
    return known == identity;
  }
  // Forgets a graph id (its exec was re-created under the same id).
  void Forget(uint32_t graph_id) {
    graphs_.erase(graph_id);
    cached_ = nullptr;
  }

 private:
  static constexpr uint32_t kMaxOrdinal = 1u << 24;  // a larger ordinal is not a real graph
  std::vector<uint32_t>& NodesOf(uint32_t graph_id) {
    if (cached_ != nullptr && cached_id_ == graph_id) [[likely]]
      return *cached_;
    cached_ = &graphs_[graph_id];  // unordered_map nodes are stable
    cached_id_ = graph_id;
    return *cached_;
  }
  std::unordered_map<uint32_t, std::vector<uint32_t>> graphs_;
  std::vector<uint32_t>* cached_ = nullptr;
  uint32_t cached_id_ = 0;
};

}  // namespace nodescope
