// Conditional bodies in sampled mode: which windowed launch a correlation-0 record belongs to.
#include "backends/cuda/conditional_bodies.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace nodescope::cupti {

void ExecIdBits::Set(uint32_t exec_id, bool on) {
  if (exec_id >= kExecIds) return;
  const uint64_t bit = uint64_t{1} << (exec_id % 64);
  if (on) {
    bits_[exec_id / 64].fetch_or(bit, std::memory_order_release);
  } else {
    bits_[exec_id / 64].fetch_and(~bit, std::memory_order_release);
  }
}

bool ExecIdBits::Has(uint32_t exec_id) const {
  if (exec_id >= kExecIds) return false;
  return (bits_[exec_id / 64].load(std::memory_order_acquire) >> (exec_id % 64)) & 1u;
}

bool ProvesBodyOwner(const GraphDag& dag) {
  std::unordered_map<uint64_t, const DagNode*> by_id;
  for (const DagNode& n : dag.nodes) by_id.emplace(n.node_id, &n);
  std::unordered_map<uint64_t, std::vector<uint64_t>> preds;  // full edges only
  for (const DagEdge& e : dag.edges) {
    if (e.type == DagEdgeType::kFull) preds[e.to].push_back(e.from);
  }
  const auto records = [](DagNodeType t) {
    return t == DagNodeType::kKernel || t == DagNodeType::kMemcpy || t == DagNodeType::kMemset;
  };
  size_t conditionals = 0;
  for (const DagNode& n : dag.nodes) {
    if (n.type != DagNodeType::kConditional) continue;
    ++conditionals;
    if (n.parent_id != 0) return false;  // inside a child graph or another body: not followed
    std::vector<uint64_t> todo = {n.node_id};
    std::vector<uint64_t> seen;
    bool lead = false;
    while (!todo.empty() && !lead) {
      const uint64_t id = todo.back();
      todo.pop_back();
      auto p = preds.find(id);
      if (p == preds.end()) continue;
      for (uint64_t from : p->second) {
        if (std::find(seen.begin(), seen.end(), from) != seen.end()) continue;
        seen.push_back(from);
        auto node = by_id.find(from);
        if (node != by_id.end() && node->second->parent_id == 0 && records(node->second->type)) {
          lead = true;
          break;
        }
        todo.push_back(from);
      }
    }
    if (!lead) return false;
  }
  return conditionals > 0;
}

ConditionalBodies::ConditionalBodies(const ExecIdBits* proofs)
    : proofs_(proofs),
      launches_(new Launch[kLaunches]()),
      watermarks_(new uint64_t[kWatermarks]()),
      pending_(new Pending[kPending]()) {}

bool ConditionalBodies::NoteLaunchEntry(uint32_t graph_id, uint32_t correlation, uint64_t start,
                                        bool kept) {
  // A launch's records mostly come together: the slot touched last first, then newest first.
  size_t slot = kLaunches;
  if (launches_[touched_].correlation == correlation) {
    slot = touched_;
  } else {
    for (size_t n = 1; n <= kLaunches; ++n) {
      const size_t i = (next_ + kLaunches - n) % kLaunches;
      if (launches_[i].correlation == 0) break;  // the ring was never filled past here
      if (launches_[i].correlation == correlation) {
        slot = i;
        break;
      }
    }
  }
  if (slot != kLaunches) {
    touched_ = slot;
    Launch& l = launches_[slot];
    if (start >= l.first_start) return false;
    l.first_start = start;
    return true;
  }
  Launch& l = launches_[next_];
  if (l.correlation != 0) {  // forgotten: a body after its first start can no longer be placed
    uint64_t& mark = Watermark(l.graph_id);
    mark = std::max(mark, l.first_start);
  }
  l = Launch{graph_id, correlation, start, kept};
  touched_ = next_;
  next_ = (next_ + 1) % kLaunches;
  return true;
}

BodyVerdict ConditionalBodies::Offer(GpuActivity* body_record) {
  const GpuActivity& body = *body_record;
  if (!proofs_->Has(body.graph_id)) {
    ++counts_.withheld_unproven;
    return BodyVerdict::kWithheld;
  }
  const uint64_t t = body.start_ns;
  const Launch* owner = nullptr;
  bool later = false;
  for (size_t i = 0; i < kLaunches; ++i) {
    const Launch& l = launches_[i];
    if (l.correlation == 0 || l.graph_id != body.graph_id) continue;
    if (l.first_start <= t) {
      if (owner == nullptr || l.first_start >= owner->first_start) owner = &l;
    } else {
      later = true;
    }
  }
  // A forgotten launch that started after the owner found (or with none found) might be its
  // owner: only the latest forgotten start is known, so any such mark withholds.
  const uint64_t mark = Watermark(body.graph_id);
  if (mark != 0 && (owner == nullptr || mark > owner->first_start)) {
    ++counts_.withheld_forgotten;
    return BodyVerdict::kWithheld;
  }
  if (owner != nullptr && later) {
    Count(owner->kept);
    body_record->correlation_id = owner->correlation;
    return owner->kept ? BodyVerdict::kKeep : BodyVerdict::kDiscard;
  }
  if (pending_count_ == kPending) {
    ++counts_.withheld_pending_full;
    return BodyVerdict::kWithheld;
  }
  Pending& p = pending_[pending_count_++];
  p.body = body;
  p.owner_correlation = owner != nullptr ? owner->correlation : 0;
  p.owner_start = owner != nullptr ? owner->first_start : 0;
  p.owner_kept = owner != nullptr && owner->kept;
  return BodyVerdict::kPending;
}

}  // namespace nodescope::cupti
