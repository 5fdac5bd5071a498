// Grouping keyed GPU events into per-node series.
#include "analysis/node_series.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <utility>

namespace nodescope::analysis {
namespace {

bool IsGpuCat(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

struct Grouper {
  GraphNodes out;
  struct KeyHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const {
      return std::hash<uint64_t>()(k.second * 0x9E3779B97F4A7C15u ^ k.first);
    }
  };
  // (graph id, node id) -> nodes[i]. The node id alone is unique only while it carries its
  // graph id, which a trace need not do.
  std::unordered_map<std::pair<uint64_t, uint64_t>, size_t, KeyHash> index;

  Status Visit(const TraceEvent& e) {
    if (e.ph != "X" || !IsGpuCat(e.cat)) return OkStatus();
    ++out.gpu_events;
    if (!e.graph_id || !e.graph_node_id || *e.graph_node_id == 0) return OkStatus();
    ++out.keyed_events;
    // Per-node figures need when each node ran and for how long: no default stands in for them.
    const char* missing = !e.ts_us ? "\"ts\"" : !e.dur_us ? "\"dur\"" : nullptr;
    if (missing != nullptr) {
      return DataLossError(std::string(e.source) + ": byte " + std::to_string(e.offset) + ": a " +
                           std::string(e.cat) + " event with graph keys has no " + missing);
    }
    if (*e.dur_us < 0) {
      return DataLossError(std::string(e.source) + ": byte " + std::to_string(e.offset) +
                           ": \"dur\" is negative (" + std::to_string(*e.dur_us) + ")");
    }
    // 1e17 us is over 3000 years: beyond it a number is not a time (and sums of such numbers
    // would overflow to infinity).
    constexpr double kMaxUs = 1e17;
    for (const auto& [key, value] : {std::pair{"ts", *e.ts_us}, std::pair{"dur", *e.dur_us}}) {
      if (std::fabs(value) > kMaxUs) {
        char text[64];
        std::snprintf(text, sizeof(text), "%g", value);
        return DataLossError(std::string(e.source) + ": byte " + std::to_string(e.offset) + ": \"" +
                             key + "\" is " + text + " us, too large for a time (at most 1e17 us)");
      }
    }
    auto [it, inserted] =
        index.try_emplace(std::pair{*e.graph_id, *e.graph_node_id}, out.nodes.size());
    if (inserted) {
      NodeSeries s;
      s.graph_id = *e.graph_id;
      s.node_id = *e.graph_node_id;
      s.name = std::string(e.name);
      s.cat = std::string(e.cat);
      if (e.scope) s.scope = std::string(*e.scope);
      out.nodes.push_back(std::move(s));
    }
    out.nodes[it->second].occurrences.push_back(
        NodeOccurrence{*e.ts_us, *e.dur_us, e.correlation.value_or(0)});
    return OkStatus();
  }

  GraphNodes Finish(TraceMetadata metadata) {
    out.metadata = std::move(metadata);
    std::sort(out.nodes.begin(), out.nodes.end(), [](const NodeSeries& a, const NodeSeries& b) {
      return a.graph_id != b.graph_id ? a.graph_id < b.graph_id : a.node_id < b.node_id;
    });
    for (NodeSeries& s : out.nodes) {
      if ((s.node_id >> 32) != s.graph_id) ++out.mismatched_nodes;
      std::stable_sort(
          s.occurrences.begin(), s.occurrences.end(),
          [](const NodeOccurrence& a, const NodeOccurrence& b) { return a.start_us < b.start_us; });
    }
    return std::move(out);
  }
};

}  // namespace

StatusOr<GraphNodes> CollectNodeSeries(const std::string& path, const ProgressFn& progress) {
  Grouper g;
  TraceReadOptions options;
  options.progress = progress;
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceFile(
                       path, [&g](const TraceEvent& e) { return g.Visit(e); }, options));
  return g.Finish(std::move(metadata));
}

StatusOr<GraphNodes> CollectNodeSeriesFromText(std::string_view name, std::string_view json) {
  Grouper g;
  ASSIGN_OR_RETURN(TraceMetadata metadata,
                   ReadTraceText(name, json, [&g](const TraceEvent& e) { return g.Visit(e); }));
  return g.Finish(std::move(metadata));
}

}  // namespace nodescope::analysis
