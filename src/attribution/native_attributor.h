// Attribution for backends whose records carry native graph ids (CUPTI): the graph id is the
// vendor's exec id for the exec's whole life, whatever updates happen to it; the node id is the
// vendor's for the first thing each node runs, and a new one of the same graph id for anything
// else it is later changed to run (node_keys.h). A record names its own exec, node and kernel, so
// work launched before an update keeps what it ran with. What cannot be proven is withheld and
// counted: a node id that does not pack its graph id, a graph id too large for exact keys, an
// exec id the vendor re-used.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "attribution/node_keys.h"
#include "attribution/withheld.h"
#include "model/records.h"
#include "model/trace.h"

namespace nodescope {

class NativeIdAttributor {
 public:
  explicit NativeIdAttributor(KeySpace space = {}) : space_(space), keys_(space.top_ordinal) {}

  // ---- Lifecycle, from the application's threads (rare: instantiate, update, set-params). ----
  // `correlation` is the vendor correlation id of the API call that did it.
  // Instantiation: only needed to catch a vendor re-using an exec id (CUPTI has not been seen to:
  // 300 instantiate/destroy rounds gave 300 ids); work of the second exec is then withheld.
  void OnExecCreated(uint32_t native_exec_id, uint64_t correlation);
  // In-place change (update, set-params, enable/disable): counted only. Keys do not depend on
  // it: each record carries what it ran.
  void OnExecChanged(uint32_t native_exec_id, uint64_t correlation);
  // An update or set-params call on the exec that began at `since_ns`: CUPTI reports no change
  // of a conditional node's body nodes, and was seen (CUDA 13.0, an H100) to name a body kernel
  // swapped by cudaGraphExecUpdate by its old function. Body records (GpuActivity::
  // conditional_body) of the exec that start at or after `since_ns` are withheld from then on;
  // earlier ones ran before the change (launches already made keep what they had).
  void OnExecWorkChanged(uint32_t native_exec_id, uint64_t since_ns);

  // ---- Records, from the one decoding thread. ----
  // Applies lifecycle events queued since the last call. Call once per vendor buffer, before
  // Attribute() on its records.
  void Drain();
  // Rewrites a.graph_node_id to the engine's key (a.graph_id stays the exec's), or clears both
  // and counts why. Records with graph_id 0 are left alone.
  void Attribute(GpuActivity& a) {
    if (a.graph_id == 0) return;
    AttributeGraphRecord(a);
  }

  const WithheldCounts& withheld() const { return withheld_; }
  // Node ids issued because a node was changed to run something else.
  uint64_t new_node_ids_issued() const { return keys_.new_ordinals_issued(); }
  // The node ids issued for `graph_id`'s nodes changed in place, each with the node id of the
  // node it runs at (GraphDag::renamed), sorted. Decoding thread (or under its lock).
  void RenamedNodes(uint64_t graph_id, std::vector<std::pair<uint64_t, uint64_t>>* out) const;
  // Execs whose id is at or past KeySpace::graph_id_limit (their records are withheld).
  uint64_t graph_ids_past_limit() const { return past_limit_.size(); }
  // In-place changes reported through OnExecChanged.
  uint64_t exec_changes() const { return exec_changes_.load(std::memory_order_relaxed); }
  // Fills everything but `mode`: new node ids, graph ids past the limit, withheld per reason.
  void Report(AttributionInfo* info) const;

 private:
  struct Event {
    uint32_t native_id;
    bool work_change;      // OnExecWorkChanged, else OnExecCreated
    uint64_t correlation;  // OnExecCreated's
    uint64_t since_ns;     // OnExecWorkChanged's
  };
  void AttributeGraphRecord(GpuActivity& a);
  void Withhold(GpuActivity& a, WithheldReason why) {
    withheld_.Add(why);
    a.graph_id = 0;
    a.graph_node_id = 0;
  }
  void GraphIdTooLarge(GpuActivity& a);
  void Apply(const Event& e);

  const KeySpace space_;

  // Producer side: a mutex taken only by instantiations and by Drain() (once per buffer).
  std::mutex queue_mu_;
  std::vector<Event> queue_;
  std::atomic<bool> pending_{false};
  std::atomic<uint64_t> exec_changes_{0};

  // Decoder side, touched only by the decoding thread.
  std::unordered_map<uint32_t, uint64_t> created_;  // exec id -> correlation of its creation
  // Exec id -> correlation from which its work is withheld (created a second time).
  std::unordered_map<uint32_t, uint64_t> reused_;
  std::unordered_set<uint32_t> past_limit_;
  // Exec id -> the earliest start of a work change (OnExecWorkChanged).
  std::unordered_map<uint32_t, uint64_t> work_changed_;
  NodeKeyTable keys_;
  WithheldCounts withheld_;
};

}  // namespace nodescope
