// Native-id attribution with fresh ids after in-place changes, and per-record verification.
#include "attribution/native_attributor.h"

#include <algorithm>

namespace nodescope {
namespace {
const std::vector<NativeIdAttributor::Epoch> kNoEpochs;
}  // namespace

void NativeIdAttributor::OnExecCreated(uint32_t native_exec_id, uint64_t correlation) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{true, native_exec_id, correlation});
  pending_.store(true, std::memory_order_release);
}

void NativeIdAttributor::OnExecChanged(uint32_t native_exec_id, uint64_t correlation) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{false, native_exec_id, correlation});
  pending_.store(true, std::memory_order_release);
}

void NativeIdAttributor::Drain() {
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

uint32_t NativeIdAttributor::TakeFreshId() {
  // Fresh ids come down from 0xffffffff; the vendor's come up from 1. They must never meet.
  if (next_fresh_ <= max_native_id_ + 1u || next_fresh_ == 0) return 0;
  return next_fresh_--;
}

void NativeIdAttributor::Apply(const Event& e) {
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

void NativeIdAttributor::AttributeGraphRecord(GpuActivity& a) {
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
      withheld_.Add(WithheldReason::kIdSpaceExhausted);
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

}  // namespace nodescope
