// The tracer skeleton every backend fills in: what a Tracer (backend.h) does that is not its
// SDK's. A vendor's tracer derives from BackendTracer and supplies the SDK calls (subscribe, flush,
// unsubscribe) and the decoding of one buffer; the skeleton owns the trace, the decode lock, the
// attribution stage's feeding, trimming a ring window, the drop counts, the window copies that
// captures and streaming parts take, and the order a stop happens in:
//
//   Start:  options kept, start time, StartCollection() (the SDK), the range listener, running.
//   a batch (any SDK thread, or one flushing):  DecodeBatch(decode): under the decode lock,
//           decode() appends neutral records, the stage keys them (Process), the ring trims.
//   Stop:   the range listener off, StopCollection() (the SDK flushes its buffers into
//           DecodeBatch and stops; no lock of ours held), then under the decode lock: drops,
//           end time, AddCounters(at_stop), stage Finish / Report / AddCounters, the exec DAGs,
//           Describe().
//           Idempotent.
//   SnapshotWindow: under the decode lock BeforeWindowCopy(), the window copied (a streaming part
//           holding back records the stage decides later), drops, AddCounters(!at_stop), the
//           stage's report; outside it Describe() and FinishWindowCopy().
//
// The decode lock is never held across a call into the SDK by the skeleton: an SDK may hold its
// own lock while it asks for a buffer (kineto's deadlock with CUPTI).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "attribution/stage.h"
#include "backends/backend.h"
#include "backends/graph_dag_store.h"
#include "backends/ring_window.h"
#include "base/clock.h"
#include "ranges/range_recorder.h"

namespace nodescope {

// The one running tracer of a backend in this process, where SDK callbacks carry no pointer of
// ours (a vendor's file holds one: `ActiveTracer<CuptiTracer> g_active;`).
template <typename T>
class ActiveTracer {
 public:
  // StartCollection: AlreadyExists when another tracer of this backend runs (`sdk` names it).
  Status Claim(T* tracer, std::string_view sdk) {
    T* expected = nullptr;
    if (active_.compare_exchange_strong(expected, tracer)) return OkStatus();
    return AlreadyExistsError("a nodescope " + std::string(sdk) +
                              " session is already active in this process");
  }
  // The end of StopCollection (no batch comes after it), or a failed start.
  void Release() { active_.store(nullptr, std::memory_order_release); }
  T* get() const { return active_.load(std::memory_order_acquire); }

 private:
  std::atomic<T*> active_{nullptr};
};

class BackendTracer : public Tracer {
 public:
  // `name`: the backend's (NODESCOPE_BACKEND_NAME, set by nodescope_backend()). `ranges`: the
  // listener linking user ranges to the SDK's records (external correlation ids), or null.
  BackendTracer(std::string_view name, const RangeRecorder::Listener* ranges)
      : name_(name), range_listener_(ranges) {}
  // A subclass stops itself in its own destructor (Stop() calls its hooks): `if (running())
  // (void)Stop();`.
  ~BackendTracer() override = default;

  std::string_view name() const final { return name_; }
  Status Start(const TracerOptions& options) final;
  Status Stop() final;
  Trace& trace() final { return trace_; }
  Status SnapshotWindow(Trace* out, bool release) final;
  Status SnapshotRecent(Trace* out, uint64_t ended_by_ns) final;
  uint64_t HeldRecords() final;

 protected:
  // ---- What the vendor's tracer supplies ----
  // Subscribes and enables collection; calls set_stage() first (before any batch can come).
  // On an error it undoes what it did; Start() then fails with it.
  virtual Status StartCollection(const TracerOptions& options) = 0;
  // Hands every buffer the SDK holds to DecodeBatch and stops collection. No lock of ours held;
  // no batch comes after it returns, so it ends by forgetting the vendor's active tracer. Its
  // error is Stop()'s, after the trace is complete.
  virtual Status StopCollection() = 0;
  // Under the decode lock: the vendor's counters and drops (Trace::counters, Trace::drops). At
  // Stop() (`at_stop`), before the stage decides its last records; in a snapshot, after the
  // window is copied, what the trace at Stop() would say of it so far.
  virtual void AddCounters(Trace* /*trace*/, bool /*at_stop*/) {}
  // Under the decode lock in a snapshot, before the copy: what the vendor's last flush proves.
  virtual void BeforeWindowCopy() {}
  // Devices, versions and names the SDK knows: at Stop() under the decode lock, in a snapshot
  // outside it; so it must call nothing that can deliver a batch.
  virtual void Describe(Trace* /*trace*/) {}

  // ---- What the skeleton offers the vendor's tracer ----
  // One batch (a vendor buffer): `decode` appends to trace().gpu / api under the decode lock; the
  // stage keys the records it added; a ring keeps its window only. Nothing before set_stage().
  template <typename Decode>
  void DecodeBatch(Decode&& decode) {
    std::lock_guard<std::mutex> lock(decode_mu_);
    if (stage_ == nullptr) return;
    const size_t first = trace_.gpu.size();
    decode();
    stage_->Process(trace_.gpu, first);
    TrimWindow(options_.ring, NowNs(), &trace_);
  }
  // The stage records are fed through (owned by the vendor's tracer, which may need its type).
  void set_stage(AttributionStage* stage) { stage_ = stage; }
  // Records the SDK dropped, and buffers refused to it: added to the trace's drops at Stop().
  // Lock-free: any thread, any time.
  void AddVendorDropped(uint64_t n) { vendor_dropped_.fetch_add(n, std::memory_order_relaxed); }
  void AddBuffersRefused(uint64_t n) { buffers_refused_.fetch_add(n, std::memory_order_relaxed); }
  // For vendor work on the trace outside a batch (interning a string from an API callback).
  std::mutex& decode_mutex() { return decode_mu_; }
  const TracerOptions& options() const { return options_; }
  bool running() const { return running_; }
  // Exec DAGs (graph_dag_store.h): a backend that records them turns the store on in
  // StartCollection; every trace and window copy then carries them, with their counters.
  GraphDagStore* graph_dags() { return &dags_; }
  void set_records_graph_dags(bool on) { records_dags_ = on; }

 private:
  const std::string name_;
  const RangeRecorder::Listener* const range_listener_;
  Trace trace_;
  TracerOptions options_;
  AttributionStage* stage_ = nullptr;
  // Serialises batches (the SDK's thread vs. a flushing one) and window copies.
  std::mutex decode_mu_;
  size_t metrics_cursor_ = 0;  // SnapshotRecent's start (CopyUnfedGpu), under decode_mu_
  std::mutex stop_mu_;         // Stop() from an exit path and from the session at once
  std::atomic<uint64_t> vendor_dropped_{0};
  std::atomic<uint64_t> buffers_refused_{0};
  bool running_ = false;
  GraphDagStore dags_;
  bool records_dags_ = false;
  void AddGraphDags(Trace* trace) const;  // under the decode lock
};

}  // namespace nodescope
