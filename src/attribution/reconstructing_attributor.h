// Attribution for backends whose records carry no node identity (rocprofiler-sdk): the SDK's
// per-thread recipe — a stack of (exec, dispatch counter) pushed on launch enter, popped on exit,
// each dispatch tagged (exec, ordinal) — plus the checks that make a wrong credit impossible:
// a dispatch whose correlation is not its launch's, a launch whose dispatch count is not the
// exec's, or a kernel not the one learned at that ordinal is withheld, never mislabelled.
//
// Keys (issue 11): the engine issues one graph id per instantiation (a re-used exec address
// inherits nothing), kept for the exec's whole life. An in-place change (OnExecChanged) starts a
// new version of the exec: between two changes each ordinal must keep running the same thing
// (that is the check); across a change it may run something else, which then gets a new node id
// of the same graph id (node_keys.h), and going back gives back the earlier key.
//
// The multi-thread hazard (issue 12): where launching streams share a hardware queue, a packet of
// one launch can be written by another launching thread, which then tags it as its own work. Two
// launches of execs running the same kernels can swap dispatches with every count and kernel
// still matching, so these checks cannot prove a credit then. Each launch therefore records the
// streams of the launches other threads had open at any moment during it (its peers); a dispatch
// of a launch with peers is keyed only if each peer's stream is known to run on another hardware
// queue than this launch's (learned from the queue each decoded dispatch ran on: a thread writes
// packets only to the queue it submits to), else withheld as `hazard_unproven`.
//
// Memory (issue 14): each thread's launches are kept in a LaunchLog (launch_log.h), bounded: an
// entry goes once every dispatch of its launch was decided, or once it is kAgeChunks chunks of
// launches older than the newest one decoded on its thread; a dispatch decoded after its entry
// went is withheld as `launch_released`. SweepLaunchLog() releases; call it after each batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "attribution/launch_log.h"
#include "attribution/node_keys.h"
#include "attribution/withheld.h"
#include "model/records.h"
#include "model/trace.h"

namespace nodescope {

class ReconstructingAttributor {
 public:
  // Thread index 0 means "no tag"; kForeignThread marks a dispatch processed on a thread with no
  // launch open (its low bits: that dispatch's sequence number, from 1).
  static constexpr uint32_t kMaxThreads = 4094;
  static constexpr uint32_t kForeignThread = 4095;
  static bool IsForeignTag(uint64_t tag) { return (tag >> 52) == kForeignThread; }
  static constexpr int kMaxDepth = 8;

  // One per thread that launches or writes dispatch packets. Owned by the engine; a backend keeps
  // a thread_local pointer from RegisterThread(). Only its own thread touches its stack.
  class ThreadState;

  explicit ReconstructingAttributor(KeySpace space = {});
  ~ReconstructingAttributor();

  // Returns null once kMaxThreads threads are registered (their work is then unattributed).
  ThreadState* RegisterThread();

  // ---- Exec lifecycle (application threads; rare). ----
  // A new exec at `exec_handle` gets the next graph id (1, 2, ...). `native_id` is the SDK's own
  // id, named in warnings only: execs first seen at launch (instantiated before tracing) get ids
  // from the same sequence, so no two execs ever share one.
  void OnExecCreated(uint64_t exec_handle, uint64_t native_id);
  void OnExecDestroyed(uint64_t exec_handle);
  // In place: hipGraphExecUpdate, set-params, enable/disable returned success. Same graph id.
  void OnExecChanged(uint64_t exec_handle);

  // ---- Launching thread. `correlation`: the launch API call's id (0 = unknown); `stream`: the
  // stream launched on (0 = unknown: a launch with peers is then never proven). ----
  void LaunchBegin(ThreadState* t, uint64_t exec_handle, uint64_t correlation, uint64_t stream = 0);
  // A plain (non-graph) dispatching call on `stream` (hipLaunchKernel, ...), closed by LaunchEnd:
  // a peer of the graph launches it overlaps (in ROCr the thread ringing a queue's doorbell
  // processes every valid packet on it, whoever wrote it), its dispatches tagged so their queue
  // places its stream; never keyed. Issue 29.
  void PlainBegin(ThreadState* t, uint64_t correlation, uint64_t stream);
  // True when a launch or plain call is open on `t` (its dispatches get tags).
  static bool LaunchOpen(const ThreadState* t);
  // A dispatch packet processed on a thread with no launch open (ROCr's async doorbell thread, a
  // runtime worker thread, a thread inside another call): returns its tag (IsForeignTag). A
  // launch judged after such a dispatch was processed, having begun before, is withheld as
  // `foreign_writer` if that dispatch ran on its own stream's hardware queue (a thread processes
  // packets of the queue whose doorbell it rings only), or on a queue not known: ObserveForeign.
  uint64_t OnForeignDispatch() {
    const uint64_t seq = foreign_.fetch_add(1, std::memory_order_seq_cst) + 1;
    return (uint64_t{kForeignThread} << 52) | (seq & ((uint64_t{1} << 52) - 1));
  }
  // Decoding thread: a decoded dispatch of a foreign tag ran on hardware queue `queue`. Call for
  // a batch before resolving it.
  void ObserveForeign(uint64_t tag, uint64_t queue);
  uint64_t foreign_dispatches() const { return foreign_.load(std::memory_order_relaxed); }
  // Plain calls' dispatches whose writer could not be proven (their correlation id, and so their
  // user range, cleared).
  uint64_t plain_unproven() const { return plain_unproven_; }
  void LaunchEnd(ThreadState* t);
  // ---- The thread writing a packet: returns the tag the backend stores with the dispatch
  // (e.g. as its external correlation id); 0 when no launch is open on this thread. ----
  uint64_t OnDispatch(ThreadState* t, uint64_t dispatch_correlation);

  // ---- Decoding thread. ----
  // The number of dispatches one launch of `graph_id` makes, where the backend reports it.
  void SetExpectedDispatches(uint32_t graph_id, uint32_t count);
  // What a decoded dispatch says about the hazard: the launch `tag` names ran on a stream whose
  // packets went to hardware queue `queue`. Call for a batch before resolving it.
  void ObserveQueue(uint64_t tag, uint64_t queue);
  // Sets a.graph_id / a.graph_node_id from `tag`, or leaves them 0 and counts why. `queue`: the
  // hardware queue the dispatch ran on (kNoQueue: unknown, so a launch with peers is withheld).
  // Returns false, touching nothing, when its launch had a peer whose queue no decoded dispatch
  // has shown yet and `final` is false: resolve it again after later batches (final at the end).
  // kLaunchQueue: work that is not a packet on a hardware queue (an SDMA copy), submitted by the
  // thread that submits its launch's packets: judged with its launch, on its stream's queue.
  static constexpr uint64_t kNoQueue = ~uint64_t{0};
  static constexpr uint64_t kLaunchQueue = ~uint64_t{0} - 3;
  bool Resolve(GpuActivity& a, uint64_t tag, uint64_t queue = kNoQueue, bool final = true);
  // Launches that had peers: proven by queues, and withheld (counted once per launch).
  uint64_t overlapped_launches_proven() const { return hazard_proven_; }
  uint64_t overlapped_launches_withheld() const { return hazard_withheld_; }

  // For capture-time ranges (read only; no check depends on them). The exec now at
  // `exec_handle`: its graph id (0: unknown or none) and in-place version.
  uint32_t ExecNow(uint64_t exec_handle, uint32_t* version);
  // What a tag says: the dispatch's ordinal in its launch, and that launch's exec version and
  // dispatch count (false when the tag names no launch).
  bool LaunchOf(uint64_t tag, uint32_t* ordinal, uint32_t* version, uint32_t* dispatches);

  const WithheldCounts& withheld() const { return withheld_; }
  // Node ids issued because a node was changed to run something else.
  uint64_t new_node_ids_issued() const { return keys_.new_ordinals_issued(); }
  // Execs given no graph id: past KeySpace::graph_id_limit (the first one warned about).
  uint64_t graph_ids_past_limit() const { return past_limit_.load(); }
  // Fills everything but `mode`: new node ids, graph ids past the limit, withheld per reason.
  void Report(AttributionInfo* info) const;

  // Decoding thread, after a batch: releases the launch entries no dispatch can need any more.
  void SweepLaunchLog();
  // The launch log's memory (chunks ever allocated, and each thread's table of them), and the
  // launches released from it so far.
  uint64_t launch_log_bytes() const;
  uint64_t launches_released() const;

 private:
  // What one thing (a node's identity, a launch's dispatch count) was under the last two
  // versions of its exec: learned at first sight of a version, checked after; with the key
  // written for it under each version (kNone until known).
  struct TwoVersions {
    static constexpr uint32_t kNone = 0xffffffffu;
    uint32_t version = 0, value = kNone, key = kNone;
    uint32_t prev_version = 0, prev_value = kNone, prev_key = kNone;
    enum Verdict : uint8_t { kOk, kMismatch, kStale };
    // On kOk, *slot is the key of that version.
    Verdict Check(uint32_t v, uint32_t x, uint32_t** slot) {
      if (v == version && value != kNone) [[likely]] {
        *slot = &key;
        return x == value ? kOk : kMismatch;
      }
      return CheckSlow(v, x, slot);
    }
    Verdict CheckSlow(uint32_t v, uint32_t x, uint32_t** slot);
  };

  struct Exec {
    uint32_t graph_id;  // 0: none (past the limit)
    uint32_t version;   // in-place changes so far
  };
  Exec ExecFor(ThreadState* t, uint64_t exec_handle);
  // LaunchBegin and PlainBegin: a frame on `t` and, where the log has room, its slot.
  void OpenFrame(ThreadState* t, bool plain, uint64_t exec_handle, uint64_t correlation,
                 uint64_t stream);
  // Peers (reconstructing_hazard.cc).
  void RecordPeers(ThreadState* t, LaunchSlot* slot, uint32_t seq, bool at_end);
  enum class Hazard : uint8_t { kProven, kWithheld, kUndecided };
  Hazard HazardVerdict(LaunchSlot* slot, uint64_t queue, bool final);
  // Decoder: the entry `tag` names while its chunk is held (else null), and its thread's log.
  LaunchSlot* DecoderSlot(uint64_t tag, LaunchLog** log = nullptr,
                          LaunchLog::Chunk** chunk = nullptr) const;
  // Sets a's key (or none and a count) from its launch's entry; `hazard` judged already.
  [[gnu::always_inline]] inline void Verify(GpuActivity& a, uint64_t tag, LaunchSlot* slot,
                                            bool thread_known, Hazard hazard);
  uint64_t QueueOfStream(uint64_t stream) const;
  uint32_t NewGraphId(uint64_t exec_handle, uint64_t native_id);  // under exec_mu_

  const KeySpace space_;
  std::mutex exec_mu_;                        // lifecycle and cache misses only; never per dispatch
  std::unordered_map<uint64_t, Exec> execs_;  // exec handle -> its graph id and version
  std::atomic<uint64_t> generation_{1};       // bumped by every lifecycle change
  uint32_t next_graph_id_ = 1;
  std::atomic<uint64_t> past_limit_{0};

  std::mutex threads_mu_;
  std::unique_ptr<std::atomic<ThreadState*>[]> threads_;
  std::atomic<uint32_t> thread_count_{0};

  // Decoder side.
  struct GraphState {
    uint32_t reported = TwoVersions::kNone;  // dispatches per launch, from SetExpectedDispatches
    TwoVersions count;                       // else what each version's launches made
    std::vector<TwoVersions> nodes;          // by ordinal: what it ran
  };
  GraphState& GraphOf(uint32_t graph_id) {
    if (cached_state_ == nullptr || cached_graph_ != graph_id) {
      cached_state_ = &graphs_[graph_id];  // unordered_map nodes are stable
      cached_graph_ = graph_id;
    }
    return *cached_state_;
  }
  std::unordered_map<uint32_t, GraphState> graphs_;
  GraphState* cached_state_ = nullptr;
  uint32_t cached_graph_ = 0;
  NodeKeyTable keys_;
  WithheldCounts withheld_;
  // stream -> the hardware queue its launches' packets went to (kConflict: seen on two).
  static constexpr uint64_t kConflict = ~uint64_t{0} - 1;
  static constexpr uint64_t kUnknownQueue = ~uint64_t{0} - 2;  // not seen yet
  std::unordered_map<uint64_t, uint64_t> stream_queue_;
  uint64_t observed_launch_ = 0, observed_queue_ = 0;  // the last launch ObserveQueue placed
  uint64_t hazard_proven_ = 0, hazard_withheld_ = 0;
  std::atomic<uint64_t> foreign_{0};
  // Decoder: the queue of each foreign dispatch decoded, by sequence number from foreign_base_
  // (kUnknownQueue: not decoded yet). Bounded: past kMaxForeignKept, the oldest half goes, and a
  // launch whose interval reaches below foreign_base_ is withheld.
  static constexpr size_t kMaxForeignKept = size_t{1} << 20;
  std::vector<uint64_t> foreign_queue_;
  uint64_t foreign_base_ = 1;
  enum class Foreign : uint8_t { kClean, kExposed, kUndecided };
  Foreign ForeignVerdict(LaunchSlot* slot, bool final);
  uint64_t plain_unproven_ = 0;
};

}  // namespace nodescope
