// The reconstructing attribution stage: ReconstructingAttributor behind AttributionStage, with
// the per-thread state the launching and packet-writing threads need.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "attribution/reconstructing_attributor.h"
#include "attribution/stage.h"

namespace nodescope {
namespace {

std::atomic<uint64_t> g_next_serial{1};

class ReconstructingStageImpl final : public ReconstructingStage {
 public:
  explicit ReconstructingStageImpl(bool graph_attribution) {
    if (graph_attribution) attributor_ = std::make_unique<ReconstructingAttributor>();
  }

  // The uint32 lifecycle of AttributionStage (vendors with 32-bit exec ids).
  void ExecCreated(uint32_t exec, uint64_t) override { ExecInstantiated(exec, exec); }
  void ExecChanged(uint32_t exec, uint64_t) override { ExecUpdated(exec); }
  // Capture-time ranges come by exec and ordinal (ExecScopes), not by vendor node ids.
  void TemplateNodeCreated(uint64_t, uint64_t) override {}
  void TemplateNodeCloned(uint64_t, uint64_t) override {}
  void ExecNodeBound(uint64_t, uint64_t, uint64_t) override {}

  void ExecInstantiated(uint64_t exec_handle, uint64_t native_id) override {
    if (attributor_ != nullptr) attributor_->OnExecCreated(exec_handle, native_id);
  }
  void ExecUpdated(uint64_t exec_handle) override {
    if (attributor_ != nullptr) attributor_->OnExecChanged(exec_handle);
  }
  void ExecDestroyed(uint64_t exec_handle) override {
    if (attributor_ != nullptr) attributor_->OnExecDestroyed(exec_handle);
  }

  void ExecScopes(uint64_t exec_handle, std::vector<uint64_t> ranges) override {
    if (attributor_ == nullptr) return;
    uint32_t version = 0;
    const uint32_t graph_id = attributor_->ExecNow(exec_handle, &version);
    if (graph_id == 0) return;
    std::lock_guard<std::mutex> lock(scopes_mu_);
    scope_queue_.push_back(ScopeEpoch{graph_id, version, std::move(ranges), {}, 0});
    scopes_any_.store(true, std::memory_order_release);
  }

  void ExecKernelScopes(uint64_t exec_handle, std::vector<std::pair<StringId, uint64_t>> by_kernel,
                        uint32_t launches) override {
    if (attributor_ == nullptr) return;
    uint32_t version = 0;
    const uint32_t graph_id = attributor_->ExecNow(exec_handle, &version);
    if (graph_id == 0) return;
    std::lock_guard<std::mutex> lock(scopes_mu_);
    scope_queue_.push_back(ScopeEpoch{graph_id, version, {}, std::move(by_kernel), launches});
    scopes_any_.store(true, std::memory_order_release);
  }

  void LaunchBegin(uint64_t exec_handle, uint64_t stream, uint64_t correlation) override {
    if (attributor_ == nullptr) return;
    ReconstructingAttributor::ThreadState* t = This(true);
    attributor_->LaunchBegin(t, exec_handle, correlation, stream);
  }
  void PlainBegin(uint64_t stream, uint64_t correlation) override {
    if (attributor_ == nullptr) return;
    attributor_->PlainBegin(This(true, /*graph=*/false), correlation, stream);
  }
  void LaunchEnd() override {
    if (attributor_ != nullptr) attributor_->LaunchEnd(This(false));
  }
  uint64_t OnDispatch(uint64_t dispatch_correlation, bool packet) override {
    if (attributor_ == nullptr) return 0;
    ReconstructingAttributor::ThreadState* t = This(false);
    if (!ReconstructingAttributor::LaunchOpen(t)) {
      if (!packet) return 0;
      return attributor_->OnForeignDispatch();
    }
    return attributor_->OnDispatch(t, dispatch_correlation);
  }
  uint64_t foreign_dispatches() const override {
    return attributor_ != nullptr ? attributor_->foreign_dispatches() : 0;
  }
  uint64_t plain_unproven() const override {
    return attributor_ != nullptr ? attributor_->plain_unproven() : 0;
  }

  void Process(ChunkedVector<GpuActivity>& gpu, size_t first) override {
    if (first >= gpu.size()) return;
    if (attributor_ == nullptr) {
      gpu.ForEachFrom(first, [](GpuActivity& a) {
        if (a.graph_id == kProvisionalGraphId) a.graph_id = 0, a.graph_node_id = 0;
      });
      return;
    }
    DrainScopes();
    // Where each launch's packets went first, so a launch is judged on the whole batch.
    gpu.ForEachFrom(first, [this](GpuActivity& a) {
      if (a.graph_id != kProvisionalGraphId) return;
      if (ReconstructingAttributor::IsForeignTag(a.graph_node_id)) {
        // Processed on a thread with no launch open: no key, and its correlation id (that
        // thread's: a fresh one, or another call's) names neither its launch nor its range.
        attributor_->ObserveForeign(a.graph_node_id, a.kind == ActivityKind::kKernel
                                                         ? a.stream
                                                         : ReconstructingAttributor::kNoQueue);
        a.graph_id = 0;
        a.graph_node_id = 0;
        a.correlation_id = 0;
        return;
      }
      if (a.kind == ActivityKind::kKernel) attributor_->ObserveQueue(a.graph_node_id, a.stream);
    });
    Retry(gpu, false);
    size_t i = first;
    gpu.ForEachFrom(first, [this, &i](GpuActivity& a) {
      if (a.graph_id == kProvisionalGraphId) {
        const uint64_t tag = a.graph_node_id;
        if (attributor_->Resolve(a, tag, QueueOf(a), false)) {
          Scope(a, tag);
        } else {
          pending_.push_back(i);
        }
      }
      ++i;
    });
    attributor_->SweepLaunchLog();  // launches every dispatch of which is decided (bounded)
  }

  // Pending records kept back by a streaming part follow their records; the others were written.
  void RecordsMoved(const std::vector<size_t>& from, size_t to) override {
    size_t kept = 0;
    for (size_t index : pending_) {
      auto it = std::lower_bound(from.begin(), from.end(), index);
      if (it != from.end() && *it == index)
        pending_[kept++] = to + static_cast<size_t>(it - from.begin());
    }
    pending_.resize(kept);
  }

  void Finish(ChunkedVector<GpuActivity>& gpu) override {
    if (attributor_ != nullptr) Retry(gpu, true);
  }

  void Report(AttributionInfo* info) const override {
    info->mode = attributor_ != nullptr ? "reconstructed" : "disabled";
    if (attributor_ != nullptr) attributor_->Report(info);
  }

  void AddCounters(std::vector<std::pair<std::string, int64_t>>* counters) const override {
    counters->emplace_back("launch_log_bytes", static_cast<int64_t>(launch_log_bytes()));
    counters->emplace_back("launch_log_released", static_cast<int64_t>(launches_released()));
  }

  uint32_t launching_threads() const override { return launching_threads_.load(); }
  uint64_t overlapped_launches_proven() const override {
    return attributor_ != nullptr ? attributor_->overlapped_launches_proven() : 0;
  }
  uint64_t overlapped_launches_withheld() const override {
    return attributor_ != nullptr ? attributor_->overlapped_launches_withheld() : 0;
  }
  uint64_t launch_log_bytes() const override {
    return attributor_ != nullptr ? attributor_->launch_log_bytes() : 0;
  }
  uint64_t launches_released() const override {
    return attributor_ != nullptr ? attributor_->launches_released() : 0;
  }

 private:
  // Records left undecided by earlier batches, in order; `final` decides every one.
  void Retry(ChunkedVector<GpuActivity>& gpu, bool final) {
    size_t kept = 0;
    for (size_t index : pending_) {
      if (index < gpu.first_index()) continue;  // left a ring window (backends/ring_window.h)
      GpuActivity& a = gpu[index];
      const uint64_t tag = a.graph_node_id;
      if (attributor_->Resolve(a, tag, QueueOf(a), final)) {
        Scope(a, tag);
      } else {
        pending_[kept++] = index;
      }
    }
    pending_.resize(kept);
  }

  // A dispatch's hardware queue (the backend's stream field); a copy has none (an SDMA copy the
  // launching thread submits) and is judged with its launch.
  static uint64_t QueueOf(const GpuActivity& a) {
    return a.kind == ActivityKind::kKernel ? a.stream : ReconstructingAttributor::kLaunchQueue;
  }

  // ---- Capture-time ranges by (graph id, exec version, ordinal). ----
  struct ScopeEpoch {
    uint32_t graph_id;
    uint32_t version;  // from this exec version on
    std::vector<uint64_t> ranges;
    std::vector<std::pair<StringId, uint64_t>> by_kernel;  // used where launches != 0
    uint32_t launches;
  };
  void DrainScopes() {
    if (!scopes_any_.load(std::memory_order_acquire)) [[likely]]
      return;
    std::vector<ScopeEpoch> events;
    {
      std::lock_guard<std::mutex> lock(scopes_mu_);
      events.swap(scope_queue_);
    }
    for (ScopeEpoch& e : events) scopes_[e.graph_id].push_back(std::move(e));
  }
  // A keyed record (graph_id set by Resolve) of the launch `tag` names gets its node's range.
  void Scope(GpuActivity& a, uint64_t tag) {
    if (a.graph_id == 0 || scopes_.empty()) [[likely]]
      return;
    auto it = scopes_.find(a.graph_id);
    uint32_t ordinal = 0, version = 0, dispatches = 0;
    if (it == scopes_.end() || !attributor_->LaunchOf(tag, &ordinal, &version, &dispatches)) return;
    for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
      if (e->version > version) continue;
      if (e->launches != 0) {  // by kernel (a forked capture)
        if (dispatches != e->launches || a.kind != ActivityKind::kKernel) return;
        for (const auto& [name, range] : e->by_kernel) {
          if (name == a.kernel.name) {
            a.capture_range_id = range;
            break;
          }
        }
        return;
      }
      // A launch that made another number of dispatches ran nodes the backend never saw.
      if (e->ranges.size() == dispatches && ordinal < dispatches) {
        a.capture_range_id = e->ranges[ordinal];
      }
      return;
    }
  }

  // This thread's state in this stage (registered at its first launch; null before).
  ReconstructingAttributor::ThreadState* This(bool launching, bool graph = true) {
    struct Cached {
      uint64_t serial = 0;
      ReconstructingAttributor::ThreadState* state = nullptr;
      bool graph = false;  // counted in launching_threads_
    };
    thread_local Cached cached;
    if (cached.serial == serial_) [[likely]] {
      if (graph && launching && !cached.graph) {
        cached.graph = true;
        launching_threads_.fetch_add(1);
      }
      return cached.state;
    }
    if (!launching) return nullptr;  // a thread that never launched has no launch open
    cached.serial = serial_;
    cached.state = attributor_->RegisterThread();
    cached.graph = graph;
    if (graph) launching_threads_.fetch_add(1);
    return cached.state;
  }

  const uint64_t serial_ = g_next_serial.fetch_add(1);
  std::unique_ptr<ReconstructingAttributor> attributor_;  // null when graph attribution is off
  std::atomic<uint32_t> launching_threads_{0};
  std::vector<size_t> pending_;  // decoder only: indices into the trace's records
  std::mutex scopes_mu_;         // ExecScopes (application threads)
  std::vector<ScopeEpoch> scope_queue_;
  std::atomic<bool> scopes_any_{false};
  std::unordered_map<uint32_t, std::vector<ScopeEpoch>> scopes_;  // decoder: by graph id
};

}  // namespace

std::unique_ptr<ReconstructingStage> MakeReconstructingStage(bool graph_attribution) {
  return std::make_unique<ReconstructingStageImpl>(graph_attribution);
}

}  // namespace nodescope
