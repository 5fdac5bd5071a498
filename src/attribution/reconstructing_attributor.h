// Attribution for backends whose records carry no node identity (rocprofiler-sdk): the SDK's
// per-thread recipe — a stack of (exec, dispatch counter) pushed on launch enter, popped on exit,
// each dispatch tagged (exec, ordinal) — plus the checks that make a wrong credit impossible:
// a dispatch whose correlation is not its launch's, a launch whose dispatch count is not the
// exec's, or a kernel not the one learned at that ordinal is withheld, never mislabelled.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "attribution/identity_table.h"
#include "attribution/withheld.h"
#include "model/records.h"

namespace nodescope {

class ReconstructingAttributor {
 public:
  static constexpr uint32_t kMaxThreads = 4095;  // thread index 0 means "no tag"
  static constexpr int kMaxDepth = 8;

  // One per thread that launches or writes dispatch packets. Owned by the engine; a backend keeps
  // a thread_local pointer from RegisterThread(). Only its own thread touches its stack.
  class ThreadState;

  ReconstructingAttributor();
  ~ReconstructingAttributor();

  // Returns null once kMaxThreads threads are registered (their work is then unattributed).
  ThreadState* RegisterThread();

  // ---- Exec lifecycle (application threads; rare). `native_id` 0 = the backend has none. ----
  void OnExecCreated(uint64_t exec_handle, uint64_t native_id);
  void OnExecDestroyed(uint64_t exec_handle);
  void OnExecChanged(uint64_t exec_handle);  // e.g. hipGraphExecUpdate returned success

  // ---- Launching thread. `correlation`: the launch API call's id (0 = unknown). ----
  void LaunchBegin(ThreadState* t, uint64_t exec_handle, uint64_t correlation);
  void LaunchEnd(ThreadState* t);
  // ---- The thread writing a packet: returns the tag the backend stores with the dispatch
  // (e.g. as its external correlation id); 0 when no launch is open on this thread. ----
  uint64_t OnDispatch(ThreadState* t, uint64_t dispatch_correlation);

  // ---- Decoding thread. ----
  // The number of dispatches one launch of `graph_id` makes, where the backend reports it.
  void SetExpectedDispatches(uint32_t graph_id, uint32_t count);
  // Sets a.graph_id / a.graph_node_id from `tag`, or leaves them 0 and counts why.
  void Resolve(GpuActivity& a, uint64_t tag);

  const WithheldCounts& withheld() const { return withheld_; }
  uint64_t fresh_ids_issued() const { return 0xffffffffull - next_fresh_; }
  // Execs whose id did not fit in 32 bits (each warned about once, on stderr).
  uint64_t oversized_execs() const { return oversized_execs_.load(); }

 private:
  uint32_t GraphIdFor(ThreadState* t, uint64_t exec_handle);
  uint32_t NewLowId(uint64_t native_id, uint64_t exec_handle);  // under exec_mu_
  uint32_t NewFreshId();                                        // under exec_mu_

  std::mutex exec_mu_;  // lifecycle and cache misses only; never per dispatch
  std::unordered_map<uint64_t, uint32_t> exec_ids_;  // exec handle -> graph id (0 = too large)
  std::atomic<uint64_t> generation_{1};              // bumped by every lifecycle change
  uint32_t next_low_ = 1;
  uint32_t max_low_ = 0;
  uint32_t next_fresh_ = 0xffffffffu;
  std::atomic<uint64_t> oversized_execs_{0};

  std::mutex threads_mu_;
  std::unique_ptr<std::atomic<ThreadState*>[]> threads_;
  uint32_t thread_count_ = 0;

  // Decoder side.
  std::unordered_map<uint32_t, uint32_t> expected_;  // graph id -> dispatches per launch
  IdentityTable identities_;
  WithheldCounts withheld_;
};

}  // namespace nodescope
