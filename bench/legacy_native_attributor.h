// The native-id attributor as it was on main at 8b83842 (before issue 11: a fresh graph id for
// the whole exec after any in-place change), kept header-only in namespace `legacy` so
// attribution_bench measures before and after in one binary. Bench-only; not built into the
// library.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "attribution/node_keys.h"
#include "attribution/withheld.h"
#include "model/records.h"

namespace nodescope::legacy {

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

class NativeIdAttributor {
 public:
  NativeIdAttributor() = default;

  // ---- Lifecycle, from the application's threads (rare: instantiate, update, set-params). ----
  // `correlation` is the vendor correlation id of the API call that did it: work launched with a
  // smaller correlation id was launched before and keeps the id it had.
  void OnExecCreated(uint32_t native_exec_id, uint64_t correlation);
  void OnExecChanged(uint32_t native_exec_id, uint64_t correlation);

  // ---- Records, from the one decoding thread. ----
  // Applies lifecycle events queued since the last call. Call once per vendor buffer, before
  // Attribute() on its records.
  void Drain();
  // Rewrites a.graph_id / a.graph_node_id to the engine's key, or clears both and counts why.
  // Records with graph_id 0 are left alone.
  void Attribute(GpuActivity& a) {
    if (a.graph_id == 0) return;
    AttributeGraphRecord(a);
  }

  const WithheldCounts& withheld() const { return withheld_; }
  uint64_t fresh_ids_issued() const { return 0xffffffffull - next_fresh_; }

 private:
 public:
  struct Epoch {
    uint64_t from_correlation;
    uint32_t graph_id;
  };

 private:
  struct Event {
    bool created;  // else changed
    uint32_t native_id;
    uint64_t correlation;
  };
  void AttributeGraphRecord(GpuActivity& a);
  void Apply(const Event& e);
  uint32_t TakeFreshId();

  // Producer side: a mutex taken only by lifecycle calls and by Drain() (once per buffer).
  std::mutex queue_mu_;
  std::vector<Event> queue_;
  std::atomic<bool> pending_{false};

  // Decoder side, touched only by the decoding thread.
  std::unordered_map<uint32_t, std::vector<Epoch>> epochs_;  // native exec id -> epochs, in order
  std::unordered_map<uint32_t, bool> created_;               // native ids seen being created
  // One-entry cache of the epochs lookup: replays of one exec come in runs.
  uint32_t cached_native_ = 0;
  const std::vector<Epoch>* cached_epochs_ = nullptr;
  IdentityTable identities_;
  WithheldCounts withheld_;
  uint32_t next_fresh_ = 0xffffffffu;
  uint32_t max_native_id_ = 0;
};

inline const std::vector<NativeIdAttributor::Epoch> kNoEpochs;

inline void NativeIdAttributor::OnExecCreated(uint32_t native_exec_id, uint64_t correlation) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{true, native_exec_id, correlation});
  pending_.store(true, std::memory_order_release);
}

inline void NativeIdAttributor::OnExecChanged(uint32_t native_exec_id, uint64_t correlation) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{false, native_exec_id, correlation});
  pending_.store(true, std::memory_order_release);
}

inline void NativeIdAttributor::Drain() {
  if (!pending_.load(std::memory_order_acquire)) [[likely]]
    return;
  std::vector<Event> events;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    events.swap(queue_);
    pending_.store(false, std::memory_order_relaxed);
  }
  for (const Event& e : events) Apply(e);
}

inline uint32_t NativeIdAttributor::TakeFreshId() {
  // Fresh ids come down from 0xffffffff; the vendor's come up from 1. They must never meet.
  if (next_fresh_ <= max_native_id_ + 1u || next_fresh_ == 0) return 0;
  return next_fresh_--;
}

inline void NativeIdAttributor::Apply(const Event& e) {
  max_native_id_ = std::max(max_native_id_, e.native_id);
  cached_epochs_ = nullptr;
  std::vector<Epoch>& epochs = epochs_[e.native_id];
  if (e.created && !created_[e.native_id]) {
    created_[e.native_id] = true;
    if (epochs.empty()) return;  // a new exec keeps the vendor's id until it is changed
  }
  // Changed in place, or the same native id created again: everything launched from here on is
  // a new exec as far as keys go. A fresh id of 0 means none was left: those records are withheld.
  epochs.push_back(Epoch{e.correlation, TakeFreshId()});
}

// Out of line, as in the library (a separate .cc there): the comparison is like for like.
[[gnu::noinline]] inline void NativeIdAttributor::AttributeGraphRecord(GpuActivity& a) {
  const uint32_t native = a.graph_id;
  if ((a.graph_node_id >> 32) != native) {
    withheld_.Add(WithheldReason::kInconsistentNativeKey);
    a.graph_id = 0;
    a.graph_node_id = 0;
    return;
  }
  if (native > max_native_id_) max_native_id_ = native;
  uint32_t graph_id = native;
  if (!epochs_.empty()) {
    if (cached_epochs_ == nullptr || cached_native_ != native) {
      auto it = epochs_.find(native);
      cached_native_ = native;
      cached_epochs_ = it == epochs_.end() ? &kNoEpochs : &it->second;
    }
    // The last epoch that began at or before this record's launch.
    for (auto e = cached_epochs_->rbegin(); e != cached_epochs_->rend(); ++e) {
      if (a.correlation_id >= e->from_correlation) {
        graph_id = e->graph_id;
        break;
      }
    }
    if (graph_id == 0) {
      withheld_.Add(WithheldReason::kOrdinalSpaceExhausted);
      a.graph_id = 0;
      a.graph_node_id = 0;
      return;
    }
  }
  const uint32_t ordinal = static_cast<uint32_t>(a.graph_node_id & 0xffffffffu);
  if (!identities_.CheckOrLearn(graph_id, ordinal, IdentityOf(a))) {
    withheld_.Add(WithheldReason::kIdentityMismatch);
    a.graph_id = 0;
    a.graph_node_id = 0;
    return;
  }
  a.graph_id = graph_id;
  a.graph_node_id = (static_cast<uint64_t>(graph_id) << 32) | ordinal;
}

}  // namespace nodescope::legacy
