// The whole trace at a glance (`nodescope nodes` opens with it): every graph and every name of
// GPU work that ran outside graphs, ranked together by GPU time, as torch's
// key_averages().table(sort_by="cuda_time_total") ranks kernels. Pure computation; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/node_series.h"
#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {

struct OverviewLine {
  enum class Kind : uint8_t {
    kGraph,       // a graph: the sum of its nodes' GPU time
    kEager,       // kernels, copies or fills of one name outside graphs
    kEagerOther,  // those of names past the limit on names held (NodeSeriesOptions)
  };
  Kind kind = Kind::kGraph;
  uint64_t graph_id = 0;  // kGraph
  std::string_view name;  // kGraph: its stable name (held by TraceOverview::graphs); kEager:
                          // the kernel name (held by the GraphNodes); kEagerOther: empty
  std::string_view cat;   // kEager: "kernel", "gpu_memcpy", "gpu_memset"
  uint64_t count = 0;     // kGraph: replays (estimated when sampled); else launches
  double total_us = 0;    // GPU time: the sum of the durations
  double share = 0;       // total_us / TraceOverview::gpu_total_us (NaN when that is 0)
  double mean_us = 0;     // per replay (total / replays) or per launch
  double p50_us = 0;      // kGraph: GPU time per replay, nearest rank; else NaN
  double p99_us = 0;
  double max_us = 0;      // kEager, kEagerOther: the longest launch; kGraph: NaN
  size_t node_count = 0;  // kGraph
  bool sampled = false;   // kGraph: replays and percentiles estimated from a sample
  size_t ranks = 1;       // CombineOverviews: the ranks where the line was found
};

struct TraceOverview {
  double gpu_total_us = 0;  // every graph node's and every eager launch's GPU time
  double graphs_us = 0;     // of which in graphs
  double eager_us = 0;      // of which outside graphs
  uint64_t eager_events = 0;
  size_t graph_count = 0;
  size_t eager_names_limit = 0;  // the trace's NodeSeriesOptions::max_eager_names
  // Every line, by total_us descending (ties: graphs first, by graph id; then eager by name).
  std::vector<OverviewLine> lines;
  // Every graph's summary (ComputeGraphSummaries, no node rows), GraphStats::name set, in the
  // ranking's order: the order the details follow.
  std::vector<GraphStats> graphs;
  // What KeepTop() left out: lines and their GPU time, and graphs.
  size_t lines_left_out = 0;
  double left_out_us = 0;
  size_t graphs_left_out = 0;
};

// The stable name (model/graph_name.h) of every graph of `trace`, by graph id, unique within it:
// its nodes' names by ordinal, its DAG when the trace holds one, the common scope of its nodes.
std::vector<std::pair<uint64_t, std::string>> GraphNames(const GraphNodes& trace);

// The graph `spec` names in `trace`: a graph id ("42"), or a stable name ("decode-1a2b3c4d").
std::optional<uint64_t> FindGraph(const GraphNodes& trace, std::string_view spec);

TraceOverview ComputeOverview(const GraphNodes& trace);

// Several ranks' overviews as one: lines of the same kind and name (graphs: their stable names,
// the same on every rank running the same graph; eager work: the kernel name) are summed: count,
// total and the share of every rank's GPU time together; a graph's graph_id is that of the first
// overview holding it (the reference rank's), its p50 the median (nearest rank) of the ranks'
// p50s, its p99 the largest p99; max the largest. `graphs` is left empty. Names point into `ranks`
// (graph names) and their GraphNodes (kernel names): both must outlive the result.
TraceOverview CombineOverviews(const std::vector<TraceOverview>& ranks);

// What `nodes --top N` shows (0: all): the N heaviest lines and the N heaviest graphs (whose
// details follow, in that order; a graph can be among them without being among the lines when
// eager work outweighs it).
void KeepTop(TraceOverview& overview, size_t top);

}  // namespace nodescope::analysis
