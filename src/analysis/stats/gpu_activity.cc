#include "analysis/stats/gpu_activity.h"

#include <sys/stat.h>

#include <cmath>

#include "analysis/stats/event_checks.h"
#include "analysis/stats/string_index.h"

namespace nodescope::analysis {
namespace {

constexpr int64_t kMissing = -1;
constexpr uint64_t kOrdinalMask = 0xffffffffULL;
constexpr uint64_t kBytesPerEventAtLeast = 128;

int64_t RankOf(const TraceEvent& e) {
  const TraceMetadata* m = e.metadata;
  if (m == nullptr) return kMissing;
  if (!m->merged_ranks.empty()) {
    const uint32_t slot = ProcessSlot(e.pid);
    return slot < m->merged_ranks.size() ? m->merged_ranks[slot] : kMissing;
  }
  return m->rank.value_or(kMissing);
}

// "pid" (kineto: the device), without the process slot of a merged trace.
int64_t DeviceOf(const TraceEvent& e) {
  if (e.pid.kind != TraceId::Kind::kNumber) return kMissing;
  const bool merged = e.metadata != nullptr && !e.metadata->merged_ranks.empty();
  return merged ? e.pid.number & ((int64_t{1} << kMergePidBits) - 1) : e.pid.number;
}

GpuActivityKind KindOf(GpuEventKind kind) {
  switch (kind) {
    case GpuEventKind::kCopy:
      return GpuActivityKind::kMemcpy;
    case GpuEventKind::kFill:
      return GpuActivityKind::kMemset;
    default:
      return GpuActivityKind::kKernel;
  }
}

}  // namespace

void GpuActivityTable::Reserve(size_t rows) {
  for (auto* v : {&ts_us, &dur_us}) v->reserve(rows);
  for (auto* v : {&name, &cat, &scope}) v->reserve(rows);
  kind.reserve(rows);
  for (auto* v : {&device, &stream, &correlation, &graph_id, &node_id, &ordinal, &rank}) {
    v->reserve(rows);
  }
}

StatusOr<GpuActivityTable> CollectGpuActivities(const std::string& path) {
  GpuActivityTable t;
  StringIndex strings;
  const uint32_t empty = strings.Of("");  // code 0: no scope
  uint32_t last_name = empty, last_cat = empty, last_scope = empty;
  auto visit = [&](const TraceEvent& e) -> Status {
    RETURN_IF_ERROR(CheckEvent(e));
    const GpuEventKind kind = ClassifyCategory(e.cat);
    if (kind == GpuEventKind::kNone) return OkStatus();
    t.ts_us.push_back(e.ts_us.value_or(NAN));
    t.dur_us.push_back(e.dur_us.value_or(NAN));
    t.name.push_back(strings.OfRepeated(e.name, last_name));
    t.cat.push_back(strings.OfRepeated(e.cat, last_cat));
    t.scope.push_back(strings.OfRepeated(e.scope.value_or(""), last_scope));
    t.kind.push_back(static_cast<uint8_t>(KindOf(kind)));
    t.device.push_back(DeviceOf(e));
    t.stream.push_back(e.tid.kind == TraceId::Kind::kNumber ? e.tid.number : kMissing);
    t.correlation.push_back(e.correlation.value_or(kMissing));
    const bool keyed = e.graph_id && e.graph_node_id && (*e.graph_id != 0 || *e.graph_node_id != 0);
    t.graph_id.push_back(keyed ? static_cast<int64_t>(*e.graph_id) : kMissing);
    t.node_id.push_back(keyed ? static_cast<int64_t>(*e.graph_node_id) : kMissing);
    t.ordinal.push_back(keyed ? static_cast<int64_t>(*e.graph_node_id & kOrdinalMask) : kMissing);
    t.rank.push_back(RankOf(e));
    return OkStatus();
  };
  // Columns sized once from the file's size (an event of kineto's schema takes over
  // kBytesPerEventAtLeast bytes), before the first event, not grown by doubling: growing copies
  // and faults in most of the time otherwise. A compressed trace's size undercounts; its columns
  // grow past it.
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    t.Reserve(static_cast<size_t>(static_cast<uint64_t>(st.st_size) / kBytesPerEventAtLeast));
  }
  ASSIGN_OR_RETURN(t.metadata, ReadTraceFile(path, visit));
  t.strings = strings.Take();
  // A rank that the trace writes after its events (kineto's distributedInfo) applies to all.
  if (t.metadata.merged_ranks.empty() && t.metadata.rank) {
    for (int64_t& r : t.rank) r = *t.metadata.rank;
  }
  return t;
}

StatusOr<AliasReport> CheckTraceFile(const std::string& path, const AliasCheckOptions& limits) {
  AliasChecker checker(limits);
  ASSIGN_OR_RETURN(TraceMetadata metadata, ReadTraceFile(path, [&](const TraceEvent& event) {
                     RETURN_IF_ERROR(CheckEvent(event));
                     checker.Add(event);
                     return OkStatus();
                   }));
  return checker.Finish(metadata);
}

}  // namespace nodescope::analysis
