// Native-id attribution: the vendor's graph id for an exec's whole life, a node id per (exec
// node, what it runs), and per-record verification.
#include "attribution/native_attributor.h"

#include <algorithm>
#include <cstddef>

#include "base/diagnostics.h"

namespace nodescope {

void NativeIdAttributor::OnExecCreated(uint32_t native_exec_id, uint64_t correlation) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{native_exec_id, false, correlation, 0});
  pending_.store(true, std::memory_order_release);
}

void NativeIdAttributor::OnExecWorkChanged(uint32_t native_exec_id, uint64_t since_ns) {
  std::lock_guard<std::mutex> lock(queue_mu_);
  queue_.push_back(Event{native_exec_id, true, 0, since_ns});
  pending_.store(true, std::memory_order_release);
}

void NativeIdAttributor::OnExecChanged(uint32_t /*native_exec_id*/, uint64_t /*correlation*/) {
  exec_changes_.fetch_add(1, std::memory_order_relaxed);
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

void NativeIdAttributor::Apply(const Event& e) {
  if (e.work_change) {
    auto [it, inserted] = work_changed_.try_emplace(e.native_id, e.since_ns);
    if (!inserted && e.since_ns < it->second) it->second = e.since_ns;
    return;
  }
  if (created_.try_emplace(e.native_id, e.correlation).second) return;
  // The same id created again: keys of the earlier exec must not pass to this one, and it
  // cannot have another id, so its work is withheld.
  auto [r, inserted] = reused_.try_emplace(e.native_id, e.correlation);
  if (!inserted && e.correlation < r->second) r->second = e.correlation;
  LogWarning("exec_id_reused",
             "the graph exec id %u was given to a second exec; its work is written without graph "
             "keys",
             e.native_id);
}

// Per record: reported once in the process, every record counted (no lock after the first).
void NativeIdAttributor::GraphIdTooLarge(GpuActivity& a) {
  past_limit_.insert(a.graph_id);
  NODESCOPE_WARN_ONCE("graph_id_past_limit",
                      "graph exec id %u is past %u, too large for exact graph node ids (below "
                      "2^53); the work of such execs is written without graph keys",
                      a.graph_id, space_.graph_id_limit - 1);
  Withhold(a, WithheldReason::kGraphIdTooLarge);
}

void NativeIdAttributor::AttributeGraphRecord(GpuActivity& a) {
  const uint32_t graph_id = a.graph_id;
  if ((a.graph_node_id >> 32) != graph_id) {
    Withhold(a, WithheldReason::kInconsistentNativeKey);
    return;
  }
  if (graph_id >= space_.graph_id_limit) {
    GraphIdTooLarge(a);
    return;
  }
  if (!reused_.empty()) [[unlikely]] {
    auto it = reused_.find(graph_id);
    if (it != reused_.end() && a.correlation_id >= it->second) {
      Withhold(a, WithheldReason::kExecIdReused);
      return;
    }
  }
  if (a.conditional_body != 0 && !work_changed_.empty()) [[unlikely]] {
    auto it = work_changed_.find(graph_id);
    if (it != work_changed_.end() && a.start_ns >= it->second) {
      Withhold(a, WithheldReason::kConditionalBodyChanged);
      return;
    }
  }
  const auto ordinal = static_cast<uint32_t>(a.graph_node_id);
  uint32_t key = 0;
  if (!keys_.Key(graph_id, ordinal, IdentityOf(a), &key)) [[unlikely]] {
    NODESCOPE_WARN_ONCE("node_ordinal_space_exhausted",
                        "graph %u: no node id can be given to node %u (no new ordinal left above "
                        "the graph's own, or the node's ordinal is past 2^24 or among the new "
                        "ones); such work is written without graph keys",
                        graph_id, ordinal);
    Withhold(a, WithheldReason::kOrdinalSpaceExhausted);
    return;
  }
  a.graph_node_id = (uint64_t{graph_id} << 32) | key;
}

void NativeIdAttributor::Report(AttributionInfo* info) const {
  info->new_node_ids = new_node_ids_issued();
  info->graph_ids_past_limit = graph_ids_past_limit();
  info->withheld.clear();
  for (size_t r = 0; r < kWithheldReasonName.size(); ++r) {
    info->withheld.emplace_back(kWithheldReasonName[r], withheld_.by_reason[r]);
  }
}

void NativeIdAttributor::RenamedNodes(uint64_t graph_id,
                                      std::vector<std::pair<uint64_t, uint64_t>>* out) const {
  if (graph_id >= space_.graph_id_limit) return;
  const size_t first = out->size();
  keys_.ForEachNewOrdinal(static_cast<uint32_t>(graph_id), [&](uint32_t issued, uint32_t native) {
    out->emplace_back((graph_id << 32) | issued, (graph_id << 32) | native);
  });
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
}

}  // namespace nodescope
