// Sampled tracing (backends/launch_sampler.h) and conditional nodes' bodies (issue 28). CUPTI
// records a conditional node's body kernels, copies and fills when activity is on around the
// host launch (decided at the launch, though the bodies run later), but with correlation id 0:
// graph id = the launched exec's, node id = the exec's body node, on an internal stream (H100,
// CUDA 13.0). Keeping records by correlation id alone discards them all; keeping every
// correlation-0 record would keep the bodies of guards and overlaps too.
//
// The rule. Launches of one exec run in launch order on the GPU: a launch's work starts after
// all of the previous launch's work has finished (cudaGraphLaunch). In sampled mode only
// windowed launches (kept, guards, overlaps) have records, so their correlated records give each
// windowed launch L of exec G its first GPU start F(L). A body record b of G with start t
// belongs to the windowed launch with the latest F(L) <= t, provided that every conditional
// node of G follows a kernel, copy or fill node (the exec's "recorded lead", ProvesBodyOwner): then
// its own launch's F is before b, and the next windowed launch's F after b's end. Without such a
// lead (a graph whose first node is the conditional, an unreadable DAG, a node disabled) the
// owner cannot be proven: b is withheld and counted. b is kept iff its owner was kept; the
// bodies of guards and overlaps are discarded (and counted as discarded records).
//
// Evidence comes in buffer-completion order, so b is decided at once only when a later windowed
// launch of G (F > t) is already known; else it waits in a bounded pending store until one is,
// or until Settle() (Stop, after CUPTI's forced flush, with every record in). A full store, or a
// launch table that forgot a launch that could own b, withholds b and counts it.
//
// One assumption beyond CUPTI's documentation: when a record of a later launch is decoded
// before b is decided, that launch's lead record (its earliest) is not still to come in a later
// buffer while another record of that launch came first. Settle() needs no such assumption.
//
// A decided body takes its owner's correlation id (CUPTI gives 0): a kept replay is then whole
// under one correlation id, as sampled mode's readers group it (tests/gpu/test_graph_matrix.py,
// replay_stats.h's per-replay spans, capture scopes looked up by correlation). Full tracing
// keeps CUPTI's 0; per-node occurrence counts are the same in both.
//
// No allocation or lock after construction; the decoding thread alone calls it (the decoder's
// caller serialises); the exec bits it reads are written by application threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "model/graph_dag.h"
#include "model/records.h"

namespace nodescope::cupti {

// A bit per exec id, lock-free, written by application threads. Sampled mode's "lead proofs":
// every conditional node of the exec has a kernel, copy or fill node before it (ProvesBodyOwner),
// set at instantiation, cleared for good when a node of the exec is enabled or disabled. Also
// the execs instantiated for device launch (graph_callbacks.h).
class ExecIdBits {
 public:
  static constexpr uint32_t kExecIds = 1u << 21;  // past it, Has() is false
  ExecIdBits() : bits_(new std::atomic<uint64_t>[kExecIds / 64]()) {}
  void Set(uint32_t exec_id, bool on);
  bool Has(uint32_t exec_id) const;

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> bits_;
};

// Whether `dag` proves its conditional bodies' launch: it has a conditional node, none inside a
// child graph, and each has an ancestor through full edges that is a kernel, copy or fill.
bool ProvesBodyOwner(const GraphDag& dag);

// A body record's fate.
enum class BodyVerdict : uint8_t { kKeep, kDiscard, kPending, kWithheld };

class ConditionalBodies {
 public:
  static constexpr size_t kLaunches = 1024;  // windowed launches remembered, newest kept
  static constexpr size_t kPending = 4096;   // body records waiting for evidence
  static constexpr size_t kWatermarks = 4096;

  explicit ConditionalBodies(const ExecIdBits* proofs);

  // A correlated record (correlation id != 0) of exec `graph_id`'s windowed launch `correlation`
  // starting at `start`; `kept`: the launch was picked. Pending bodies it decides go to
  // `decided(activity, keep)`.
  template <typename Decided>
  void NoteLaunch(uint32_t graph_id, uint32_t correlation, uint64_t start, bool kept,
                  Decided&& decided) {
    if (NoteLaunchEntry(graph_id, correlation, start, kept)) Resolve(graph_id, decided);
  }
  // A correlation-0 record of a graph: kKeep / kDiscard now (`body` then carries its owner's
  // correlation id), kPending (held here), kWithheld.
  BodyVerdict Offer(GpuActivity* body);
  // Stop: decides every pending body with the evidence there is; the rest are withheld.
  template <typename Decided>
  void Settle(Decided&& decided) {
    for (size_t i = 0; i < pending_count_; ++i) {
      Pending& p = pending_[i];
      if (p.owner_correlation == 0) {
        ++counts_.withheld_no_launch;
      } else {
        Count(p.owner_kept);
        p.body.correlation_id = p.owner_correlation;
        decided(p.body, p.owner_kept);
      }
    }
    pending_count_ = 0;
  }

  struct Counts {
    uint64_t kept = 0;
    uint64_t discarded = 0;           // a guard's or an overlap's bodies
    uint64_t withheld_unproven = 0;   // the exec has no recorded lead (ExecIdBits)
    uint64_t withheld_no_launch = 0;  // no windowed launch of the exec started before it
    uint64_t withheld_forgotten = 0;  // a launch that could own it left the launch table
    uint64_t withheld_pending_full = 0;
  };
  const Counts& counts() const { return counts_; }
  size_t pending() const { return pending_count_; }

 private:
  struct Launch {
    uint32_t graph_id = 0;
    uint32_t correlation = 0;  // 0: empty slot
    uint64_t first_start = 0;
    bool kept = false;
  };
  struct Pending {
    GpuActivity body;
    uint32_t owner_correlation = 0;  // the candidate owner so far; 0: none yet
    uint64_t owner_start = 0;
    bool owner_kept = false;
  };

  // Records the launch; true when its first start is new or earlier than known.
  bool NoteLaunchEntry(uint32_t graph_id, uint32_t correlation, uint64_t start, bool kept);
  template <typename Decided>
  void Resolve(uint32_t graph_id, Decided& decided) {
    const Launch& l = launches_[touched_];
    size_t out = 0;
    for (size_t i = 0; i < pending_count_; ++i) {
      Pending& p = pending_[i];
      if (p.body.graph_id == graph_id) {
        if (l.first_start <= p.body.start_ns) {
          if (p.owner_correlation == 0 || l.first_start >= p.owner_start) {
            p.owner_correlation = l.correlation;
            p.owner_start = l.first_start;
            p.owner_kept = l.kept;
          }
        } else if (p.owner_correlation != 0) {  // a later launch: the owner is proven
          Count(p.owner_kept);
          p.body.correlation_id = p.owner_correlation;
          decided(p.body, p.owner_kept);
          continue;
        }
      }
      if (out != i) pending_[out] = p;
      ++out;
    }
    pending_count_ = out;
  }
  void Count(bool kept) { ++(kept ? counts_.kept : counts_.discarded); }
  uint64_t& Watermark(uint32_t graph_id) { return watermarks_[graph_id & (kWatermarks - 1)]; }

  const ExecIdBits* proofs_;
  std::unique_ptr<Launch[]> launches_;  // a ring, oldest overwritten
  size_t next_ = 0;                     // the ring's next slot
  size_t touched_ = 0;                  // the slot NoteLaunchEntry last touched
  // Per graph-id slot: the latest first start of a launch the ring forgot (0: none).
  std::unique_ptr<uint64_t[]> watermarks_;
  std::unique_ptr<Pending[]> pending_;
  size_t pending_count_ = 0;
  Counts counts_;
};

}  // namespace nodescope::cupti
