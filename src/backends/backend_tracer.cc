// The tracer skeleton (backend_tracer.h).
#include "backends/backend_tracer.h"

#include <memory>
#include <utility>
#include <vector>

namespace nodescope {

Status BackendTracer::Start(const TracerOptions& options) {
  if (running_) return FailedPreconditionError("the " + name_ + " tracer is already running");
  options_ = options;
  trace_.start_ns = NowNs();
  RETURN_IF_ERROR(StartCollection(options_));
  RangeRecorder::Get().SetListener(range_listener_);
  running_ = true;
  return OkStatus();
}

Status BackendTracer::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  if (!running_) return OkStatus();
  running_ = false;
  RangeRecorder::Get().SetListener(nullptr);
  Status collected = StopCollection();  // the SDK's last batches take the decode lock
  {
    std::lock_guard<std::mutex> lock(decode_mu_);
    trace_.drops.vendor_dropped += vendor_dropped_.exchange(0, std::memory_order_relaxed);
    trace_.drops.buffers_refused += buffers_refused_.exchange(0, std::memory_order_relaxed);
    trace_.end_ns = NowNs();
    AddCounters(&trace_, /*at_stop=*/true);
    stage_->Finish(trace_.gpu);  // records a later batch would have decided: decided now
    stage_->Report(&trace_.attribution);
    stage_->AddCounters(&trace_.counters);
    AddGraphDags(&trace_);
    Describe(&trace_);
  }
  return collected;
}

uint64_t BackendTracer::HeldRecords() {
  std::lock_guard<std::mutex> lock(decode_mu_);
  return trace_.gpu.held() + trace_.api.held();
}

Status BackendTracer::SnapshotWindow(Trace* out, bool release) {
  {
    std::lock_guard<std::mutex> lock(decode_mu_);  // a batch waits for a copy only
    if (stage_ == nullptr) {
      return FailedPreconditionError("the " + name_ + " tracer was never started");
    }
    BeforeWindowCopy();
    if (release) {
      // A streaming part: records the stage decides with a later batch or flush wait for a
      // later part (CopyWindowPart); a stage deciding every batch at once leaves none.
      std::vector<size_t> moved;
      CopyWindowPart(trace_, NowNs(), StreamHeldBack(options_.stream_records), out, &moved);
      stage_->RecordsMoved(moved, trace_.gpu.size() - moved.size());
    } else {
      CopyWindow(trace_, NowNs(), false, out);
    }
    out->drops.vendor_dropped += vendor_dropped_.load(std::memory_order_relaxed);
    out->drops.buffers_refused += buffers_refused_.load(std::memory_order_relaxed);
    AddCounters(out, /*at_stop=*/false);
    stage_->Report(&out->attribution);
    AddGraphDags(out);
  }
  Describe(out);
  FinishWindowCopy(out);  // a capture's records a later batch would decide: without keys
  return OkStatus();
}

Status BackendTracer::SnapshotRecent(Trace* out, uint64_t ended_by_ns) {
  {
    std::lock_guard<std::mutex> lock(decode_mu_);
    if (stage_ == nullptr) {
      return FailedPreconditionError("the " + name_ + " tracer was never started");
    }
    BeforeWindowCopy();
    CopyUnfedGpu(trace_, NowNs(), ended_by_ns, &metrics_cursor_, out);
    out->drops.vendor_dropped += vendor_dropped_.load(std::memory_order_relaxed);
    out->drops.buffers_refused += buffers_refused_.load(std::memory_order_relaxed);
    AddCounters(out, /*at_stop=*/false);
    stage_->Report(&out->attribution);
    AddGraphDags(out);
  }
  Describe(out);
  return OkStatus();
}

void BackendTracer::AddGraphDags(Trace* trace) const {
  if (!records_dags_) return;
  trace->graph_dags = dags_.Snapshot();
  // The node ids the stage issued since (under the decode lock, as the stage needs).
  std::vector<std::pair<uint64_t, uint64_t>> renamed;
  for (std::shared_ptr<const GraphDag>& dag : trace->graph_dags) {
    renamed.clear();
    stage_->RenamedNodes(dag->graph_id, &renamed);
    if (renamed.empty()) continue;
    auto copy = std::make_shared<GraphDag>(*dag);
    copy->renamed = renamed;
    dag = std::move(copy);
  }
  dags_.AddCounters(&trace->counters);
}

}  // namespace nodescope
