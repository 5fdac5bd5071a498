// The attribution stage: what every backend feeds, and in which order.
//
//   backend ──lifecycle (application threads)──┐
//           ──decoded records (decoding thread)─┴─> AttributionStage ──> keyed records in Trace
//
// A backend reports two things and knows nothing of how keys are made:
//  * the graph lifecycle, from the application's threads, as it happens (rare): execs created or
//    changed in place, template nodes created while a user range was open, exec nodes cloned from
//    template nodes. Each carries the vendor correlation id of the API call that did it. These
//    calls are thread-safe; they queue.
//  * its decoded records, from one decoding thread at a time, a batch (one vendor buffer) at a
//    time: Process() rewrites their keys in place, or withholds them and counts why.
//
// The ordering guarantee, which exec updates need: a lifecycle event must be reported before the
// API call that caused it returns to the application, so before any work launched after it can be
// in a completed vendor buffer. Process() applies every event reported before it was called, then
// the batch. Work launched with a smaller correlation id than an event's keeps what it had.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/chunked_vector.h"
#include "model/records.h"
#include "model/trace.h"

namespace nodescope {

class AttributionStage {
 public:
  virtual ~AttributionStage() = default;

  // ---- Graph lifecycle: any application thread. `exec` is the vendor's exec id. ----
  virtual void ExecCreated(uint32_t exec, uint64_t correlation) = 0;
  // Updated, parameters set, nodes enabled or disabled: anything done to an exec in place.
  virtual void ExecChanged(uint32_t exec, uint64_t correlation) = 0;
  // Besides ExecChanged, for an update or set-params call (one that may change what nodes run)
  // that began at `since_ns`, on the records' clock. A vendor that reports no change to the
  // nodes of a conditional node's body (CUPTI) cannot prove what those ran from then on: their
  // records are withheld (WithheldReason::kConditionalBodyChanged).
  virtual void ExecWorkChanged(uint32_t /*exec*/, uint64_t /*since_ns*/) {}

  // ---- Capture-time ranges (the range open when a node was added follows it into replays). ----
  virtual void TemplateNodeCreated(uint64_t template_node, uint64_t range_id) = 0;
  virtual void TemplateNodeCloned(uint64_t new_node, uint64_t original_node) = 0;
  // The exec node `exec_node_key` (the vendor's graph node id) runs `template_node` for work
  // launched with a correlation id >= `from_correlation` (instantiate, or exec update).
  virtual void ExecNodeBound(uint64_t exec_node_key, uint64_t template_node,
                             uint64_t from_correlation) = 0;

  // ---- The decoding thread. ----
  // Attributes gpu[first, gpu.size()) — the records one vendor buffer added — in place: each
  // graph record gets its capture-time range and the engine's key, or no key and a count.
  virtual void Process(ChunkedVector<GpuActivity>& gpu, size_t first) = 0;
  // Mode, ids issued, withheld counts; call when no more records come.
  virtual void Report(AttributionInfo* info) const = 0;
  // A streaming part kept back the records still provisional (backends/ring_window.h,
  // CopyWindowPart): those at indices `from` (ascending) are now at to, to + 1, ... in that order;
  // every other record before `to` was released. Under the decode lock, between batches.
  virtual void RecordsMoved(const std::vector<size_t>& /*from*/, size_t /*to*/) {}
  // Decides every record of `gpu` still provisional (a stage that decides some only with a later
  // batch or flush; withheld where still unknown). Once, after the last Process(), before
  // Report(); a stage that decides each batch in Process() has nothing to do.
  virtual void Finish(ChunkedVector<GpuActivity>& /*gpu*/) {}
  // The stage's own counts for the trace header (Trace::counters), once Finish() has run.
  virtual void AddCounters(std::vector<std::pair<std::string, int64_t>>* /*counters*/) const {}
  // Node ids the stage issued for `graph_id`'s nodes changed in place, each with the node id
  // (the vendor's) of the node it runs at (GraphDag::renamed). Under the decode lock.
  virtual void RenamedNodes(uint64_t /*graph_id*/,
                            std::vector<std::pair<uint64_t, uint64_t>>* /*out*/) const {}
};

// For SDKs whose records carry the vendor's graph and node ids (CUPTI). With `graph_attribution`
// off the records keep the vendor's ids (capture-time ranges are still looked up).
std::unique_ptr<AttributionStage> MakeNativeIdStage(bool graph_attribution);

// For SDKs whose records carry no node identity (rocprofiler-sdk), over ReconstructingAttributor:
// the per-thread recipe with verification. Besides the lifecycle (by the runtime's 64-bit exec
// handles), the backend reports each graph launch from the launching thread, as its API call
// enters and returns, and asks for a dispatch's tag on the thread that writes its packet (the
// SDK's external-correlation request). The decoder stores that tag as the record's provisional
// key: graph_id = kProvisionalGraphId, graph_node_id = the tag, and `stream` = the hardware queue
// the dispatch ran on; Process() verifies it and writes the engine's key, or none and a count.
class ReconstructingStage : public AttributionStage {
 public:
  static constexpr uint32_t kProvisionalGraphId = 0xffffffffu;

  // ---- Lifecycle, application threads, as the API call returns (before it returns). ----
  virtual void ExecInstantiated(uint64_t exec_handle, uint64_t native_id) = 0;
  virtual void ExecUpdated(uint64_t exec_handle) = 0;  // update, set-params: in place
  virtual void ExecDestroyed(uint64_t exec_handle) = 0;
  // Capture-time ranges, reconstructed: `ranges[i]` is the user range open when the node the exec
  // runs i-th (its launches' dispatch ordinal i) was captured (0: none). From this call on, a
  // keyed record of that exec gets ranges[ordinal] as capture_range_id, and only where its launch
  // made exactly ranges.size() dispatches (else 0: the backend did not see every node). Call after
  // ExecInstantiated, and after ExecUpdated (empty `ranges`: none known any more).
  virtual void ExecScopes(uint64_t exec_handle, std::vector<uint64_t> ranges) = 0;
  // The same for a graph whose run order is not known (a capture forked to other streams): a
  // keyed kernel of that exec whose name is in `by_kernel` gets its range, where its launch made
  // exactly `launches` dispatches (the launches captured); other records none. In place of
  // ExecScopes for that exec and version.
  virtual void ExecKernelScopes(uint64_t exec_handle,
                                std::vector<std::pair<StringId, uint64_t>> by_kernel,
                                uint32_t launches) = 0;
  // ---- The launching thread: around the launch call (`correlation`: its SDK id). ----
  virtual void LaunchBegin(uint64_t exec_handle, uint64_t stream, uint64_t correlation) = 0;
  virtual void LaunchEnd() = 0;
  // A plain (non-graph) call that dispatches on `stream` (hipLaunchKernel, ...), closed by
  // LaunchEnd(): a peer of the graph launches it overlaps; never keyed (issue 29).
  virtual void PlainBegin(uint64_t stream, uint64_t correlation) = 0;
  // ---- The thread writing a packet: the tag to store with the dispatch; 0 = none;
  // a foreign tag (IsForeignTag) where no launch or plain call is open on this thread (ROCr's async
  // doorbell thread, a runtime worker thread, a thread in another call): that dispatch gets no key
  // and no correlation id (so no user range), and launches open meanwhile are withheld. `packet`:
  // false for work the calling thread submits itself (an SDMA copy): 0 then, never a foreign tag.
  // ----
  virtual uint64_t OnDispatch(uint64_t dispatch_correlation, bool packet = true) = 0;
  // Tags are at or above this (a thread index in the top bits): anything smaller the backend
  // stores with a dispatch (a pushed user-range id) is not a tag.
  static constexpr uint64_t kMinTag = uint64_t{1} << 52;
  // A tag OnDispatch gives a dispatch processed where no launch or plain call is open.
  static bool IsForeignTag(uint64_t tag) { return (tag >> 52) == 4095; }
  // Dispatches processed on threads with no launch open (OnDispatch gave a foreign tag).
  virtual uint64_t foreign_dispatches() const = 0;
  // Plain calls' dispatches whose writer was not proven (correlation id cleared).
  virtual uint64_t plain_unproven() const = 0;

  // Records whose launch overlapped another thread's on a stream no decoded dispatch had placed
  // yet stay provisional through Process() until a later batch decides them; Finish() decides
  // the rest. AddCounters(): the per-launch log's memory at the end (launch_log_bytes, bounded:
  // attribution/launch_log.h) and launch_log_released.

  // Threads that launched graphs so far (for the hardware-queue warning).
  virtual uint32_t launching_threads() const = 0;
  // Launches that overlapped another thread's: proven by hardware queues, withheld.
  virtual uint64_t overlapped_launches_proven() const = 0;
  virtual uint64_t overlapped_launches_withheld() const = 0;
  // The per-launch log's memory now (bounded: attribution/launch_log.h), and the launches
  // released from it so far.
  virtual uint64_t launch_log_bytes() const = 0;
  virtual uint64_t launches_released() const = 0;
};

// With `graph_attribution` off no record gets a key (provisional ones are cleared).
std::unique_ptr<ReconstructingStage> MakeReconstructingStage(bool graph_attribution);

// For SDKs whose records name each command of a graph (the same command, so the same id, on every
// replay) and its execution only by the queue and the submit time (PTI: `_kernel_id`,
// `_queue_handle`, `_submit_timestamp`; docs/pti-notes.md): no record names the execution or the
// submission call. The decoder stores with every kernel, provisionally: graph_id =
// kProvisionalGraphId, graph_node_id = the command's id, capture_range_id = the execution's submit
// time (trace clock), context = the thread that recorded (appended) the command, stream = the
// queue it ran on; correlation_id is the SDK's. As it decodes API records it reports each graph
// submission call and each call appending a command to a graph (a graph kernel's correlation id
// names one of the two). An execution is decided by these rules:
//  * a kernel whose correlation names neither call is no graph's: no key, not counted;
//  * an execution is the graph kernels of one queue whose submit times lie within the tolerance;
//    it is tied to a submission call only when exactly one such call (of any thread) contains its
//    submit time, that call is on the thread that recorded its commands (else the time alone
//    cannot tell whose call it was), and no other execution is tied to that call;
//  * a graph (graph id) is the set of commands of the first tied execution to show them; node
//    ordinal = a command's rank by id among them. Every later execution must run exactly that set,
//    and each node the kernel it was first seen to run;
//  * keyed records take the submission call's correlation id (their flow goes to the replay's
//    call); what cannot be proven keeps the SDK's, no key, and is counted per reason.
// When: Finish() decides every record still undecided, when no more records come. While tracing,
// Flushed() decides the executions whose evidence is complete (docs/pti-notes.md, "Deciding while
// tracing"): after a flush that began at F has returned, every record PTI made before F is in; an
// execution is decided once its submit times, and the end of the call it ties to (so every other
// execution that call could contain), lie more than the settle time before F. That assumes PTI
// makes every record of a replay — its kernels (at the program's next synchronization) and every
// call around it — within the settle time of its submission; the same input then gets the same
// decisions as at Finish. Undecided records stay provisional (a capture writes them without keys,
// as undecided_at_capture). Memory: submission calls that can no longer contain an undecided or
// later execution's submit time are released; with `bounded` (a ring or streaming window) also,
// between flushes, calls ending more than the settle time before both the newest call and every
// undecided record held; an execution a released call could have contained is withheld
// (submission_unproven) and counted as late.
class SubmissionMatchingStage : public AttributionStage {
 public:
  static constexpr uint32_t kProvisionalGraphId = 0xfffffffeu;
  // PTI's own graph test compares times of one instant taken in two records within 40 ns.
  static constexpr uint64_t kDefaultToleranceNs = 100;
  // How long after a replay's submission every record of it is assumed made (see above).
  static constexpr uint64_t kDefaultSettleNs = 1'000'000'000;

  // ---- The decoding thread, as API records are decoded (before Finish). ----
  virtual void SubmissionCall(uint32_t correlation, uint32_t thread, uint64_t start_ns,
                              uint64_t end_ns) = 0;
  virtual void AppendCall(uint32_t correlation) = 0;
  // Under the decode lock, after a flush that began at `flush_start_ns` (trace clock) returned:
  // decides what that proves (see above) in `gpu`'s held records.
  virtual void Flushed(ChunkedVector<GpuActivity>& gpu, uint64_t flush_start_ns) = 0;
  // Finish() decides every provisional record. AddCounters(): graph_executions_tied and
  // _withheld, graph_submission_calls_released, and graph_executions_late and graph_records_late
  // when not 0.

  // Executions tied to their submission call, and not (their records withheld); of those
  // withheld, the ones a released call could have contained.
  virtual uint64_t executions_tied() const = 0;
  virtual uint64_t executions_withheld() const = 0;
  virtual uint64_t executions_late() const = 0;
  // Kernels no held call names whose submit time lies before a released call's end: an
  // immediate launch, or a graph kernel whose call went (no key either way).
  virtual uint64_t records_late() const = 0;
  // Submission calls held now (bounded in a ring), and released so far.
  virtual size_t calls_held() const = 0;
  virtual uint64_t calls_released() const = 0;
};

// With `graph_attribution` off no record gets a key (provisional fields are cleared by Process).
std::unique_ptr<SubmissionMatchingStage> MakeSubmissionMatchingStage(
    bool graph_attribution, uint64_t tolerance_ns = SubmissionMatchingStage::kDefaultToleranceNs,
    uint64_t settle_ns = SubmissionMatchingStage::kDefaultSettleNs, bool bounded = false);

}  // namespace nodescope
