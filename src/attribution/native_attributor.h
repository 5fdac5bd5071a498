// Attribution for backends whose records carry native graph ids (CUPTI): keep the vendor's keys
// while an exec is unchanged; when it is changed in place, give it a fresh graph id drawn from the
// top of the 32-bit space, so a key never names two nodes. Every record is verified.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "attribution/identity_table.h"
#include "attribution/withheld.h"
#include "model/records.h"

namespace nodescope {

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

}  // namespace nodescope
