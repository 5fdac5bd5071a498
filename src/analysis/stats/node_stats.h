// Per-node and per-graph cost across replays and two-trace comparison (`nodescope nodes`).
// Pure computation over GraphNodes; no I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/critical_path.h"
#include "analysis/stats/node_series.h"

namespace nodescope::analysis {

// The nearest-rank percentile of ascending `sorted`: the value at 1-based rank
// ceil(percent / 100 * n), clamped to [1, n]. Always one of the samples (no interpolation), so
// p100 is the maximum and p50 of an even count is the lower middle value. NaN when empty.
double NearestRankPercentile(const std::vector<double>& sorted, unsigned percent);
// The same of `values` in any order, for each of `percents` (ascending) into `out` (as many):
// selected in place, each by std::nth_element over the values above the previous one (linear,
// no sort; `values` is left reordered).
void SelectNearestRanks(std::vector<double>& values, std::span<const unsigned> percents,
                        std::span<double> out);

// Critical-path figures (critical_path.h) when the graph's DAG holds the node: those of its
// own point, or, for a node of a conditional body, its conditional node's share and slack
// (conditional_node_id; no what-if then: one body node faster is not the body faster).
struct NodeCriticalPath {
  double share = 0;  // replays analysed in which it was on the critical path, over those
  double slack_p50_us = 0;
  double slack_min_us = 0;
  double whatif_span_p50_us = 0;  // span p50 with the node GraphCriticalPath::speedup x faster
  double gain_us = 0;             // GraphCriticalPath::span_p50_us - whatif_span_p50_us
  uint64_t conditional_node_id = 0;
};

// Durations are microseconds. A node's "replays" are its occurrences.
// Figures are exact over every occurrence, except where the graph's occurrences were sampled
// (GraphNodes' limits): then p50/p95/p99 and drift come from the `samples` occurrences held
// (a uniform sample of the replays), while replays, total, mean, min, max and stddev stay exact.
struct NodeStats {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  std::string_view name;  // held by the GraphNodes the figures come from
  std::string_view cat;
  std::string_view scope;
  uint64_t replays = 0;
  uint64_t samples = 0;  // occurrences the percentiles and drift come from; == replays if exact
  double total_us = 0;
  double mean_us = 0;
  double p50_us = 0;  // nearest rank, as NearestRankPercentile
  double p95_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double min_us = 0;
  double stddev_us = 0;  // population standard deviation
  // Mean of the last ceil(10 %) occurrences by start over the mean of the first ceil(10 %), minus
  // one (0.25: a quarter slower at the end). NaN below 10 occurrences or when the first mean is 0.
  double drift = 0;
  double share = 0;  // total_us / the sum of total_us over every node of the graph
  // At namespace scope: clang 14 finds a nested struct with member initializers not
  // default-constructible inside std::optional (is_constructible is fixed while NodeStats is
  // incomplete).
  using CriticalPath = NodeCriticalPath;
  std::optional<CriticalPath> critical_path;
};

// Critical-path figures of a graph, present when the trace records DAGs (GraphNodes::dags).
struct GraphCriticalPath {
  bool dag = false;  // the trace holds this graph's DAG; false: no figure below means anything
  double speedup = 2;
  uint64_t replays = 0;   // replays held: every replay, or the held sample when `sampled`
  uint64_t analysed = 0;  // of which analysed
  std::array<uint64_t, static_cast<size_t>(PathSkip::kCount)> skipped{};  // the others, by reason
  double span_p50_us = 0;                                                 // of the replays analysed
};

struct GraphStats {
  uint64_t graph_id = 0;
  // Its stable name (model/graph_name.h), unique within the trace; set by ComputeOverview
  // (trace_overview.h), empty elsewhere.
  std::string name;
  // Distinct correlation ids among the occurrences of the graph's nodes: every node of one replay
  // carries the launch's correlation id (events without one count as one replay together). When
  // `sampled`: the replays held times 2^sample_level, an estimate.
  uint64_t replays = 0;
  // Whether occurrences of the graph were left out to stay within the limits; then `replays`
  // and every per-replay figure below are estimated from the `replays_held` replays held, one
  // in 2^sample_level, and so are the nodes' percentiles and drift.
  bool sampled = false;
  unsigned sample_level = 0;
  uint64_t replays_held = 0;
  size_t node_count = 0;        // nodes of the graph, also when `nodes` is cut by --top
  size_t mismatched_nodes = 0;  // of which the node id >> 32 is not the graph id
  double gpu_total_us = 0;      // sum of every node's total
  // Per replay: the sum of its nodes' durations ("GPU time"); the last end minus the first start
  // ("span"); the idle total, the sum over its occurrences sorted by start of the positive gaps
  // start - (latest end among the earlier ones); and the number of such gaps.
  double gpu_p50_us = 0;
  double gpu_p99_us = 0;
  double span_p50_us = 0;
  double span_p99_us = 0;
  double idle_mean_us = 0;
  double idle_p99_us = 0;
  double gaps_mean = 0;
  // GPU time of the replay that starts first, and that over gpu_p50_us (the nearest-rank median);
  // NaN when the median is 0.
  double first_replay_gpu_us = 0;
  double first_replay_outlier = 0;
  std::vector<NodeStats> nodes;                    // by total_us descending, ties by node id
  std::shared_ptr<const NamePool> strings;         // holds the nodes' names
  std::optional<GraphCriticalPath> critical_path;  // absent: the trace records no DAG
};

struct NodeStatsOptions {
  std::optional<uint64_t> graph_id;  // only this graph
  size_t top = 0;                    // at most this many nodes per graph; 0: all
  double speedup = 2;                // the critical path's what-if factor
  bool critical_path = true;         // false: no critical path (GraphStats::critical_path empty)
};

// Graphs by graph id ascending.
std::vector<GraphStats> ComputeNodeStats(const GraphNodes& trace,
                                         const NodeStatsOptions& options = {});
// The same one graph at a time, for output written as it is computed; stops when `visit`
// returns false.
void ForEachGraphStats(const GraphNodes& trace, const NodeStatsOptions& options,
                       const std::function<bool(GraphStats&&)>& visit);

// Every graph's figures but its node rows (GraphStats::nodes empty, node_count set), by graph
// id: cheaper than ComputeNodeStats when only the graphs are ranked (the overview).
std::vector<GraphStats> ComputeGraphSummaries(const GraphNodes& trace);
// Fills `graph`'s node rows (at most `top`; 0: all) from `trace`, as ComputeNodeStats does;
// `graph` comes from ComputeGraphSummaries(trace). With `speedup` > 0, the critical path too
// (GraphStats::critical_path, its what-if at that speedup) where the trace records DAGs.
void ComputeGraphRows(const GraphNodes& trace, size_t top, GraphStats& graph, double speedup = 0);

// Comparing two traces ("A" before, "B" after).
//
// Graphs are paired in three passes, each over the graphs still unpaired, in graph id order:
//   1. the same graph id in both traces and the same node sequence;
//   2. the same node sequence (graph ids are per process, so a graph's id may differ between
//      runs): the k-th graph of A with a given sequence pairs with the k-th unpaired graph of B
//      with that sequence;
//   3. the same graph id (the node sequences differ).
// A graph's node sequence is the names of its nodes in node-ordinal order (node id & 0xffffffff);
// two sequences are the same when they have as many nodes and equal names position by position.
// Nodes of a pair from passes 1 and 2 match position by position; in pass 3 the two node lists
// (in ordinal order) are aligned (node_align.h): nodes pair only where their names agree,
// preferring pairs whose scope agrees too, so a node removed, added or fused away does not shift
// the later pairs; one node of B taking the place of two or more consecutive nodes of A is a
// fusion. Nodes left unmatched, and all nodes of unpaired graphs, are "only in A" / "only in B".
enum class GraphMatch : uint8_t { kSameIdSameNodes, kSameNodes, kSameIdOtherNodes, kOnlyA, kOnlyB };
const char* GraphMatchName(GraphMatch match);  // "same_id", "same_nodes", ...

struct NodeSide {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  std::string_view name;
  std::string_view scope;  // the capture-time range path, if any
  uint64_t replays = 0;
  double mean_us = 0;
  double total_us = 0;
};

struct NodeDiff {
  std::optional<NodeSide> a;
  std::optional<NodeSide> b;
  // A fusion (graphs paired by id whose node lists differ): `b` stands for these consecutive
  // nodes of A, and `a` is empty; the deltas are against the sum of their means.
  std::vector<NodeSide> fused_a;
  double delta_us = 0;        // b->mean_us - a->mean_us; NaN unless matched or fused
  double delta_fraction = 0;  // delta_us / a->mean_us; NaN unless matched with a->mean_us > 0
  bool fused() const { return !fused_a.empty(); }
};

struct GraphDiff {
  GraphMatch match = GraphMatch::kOnlyA;
  std::optional<uint64_t> graph_a;
  std::optional<uint64_t> graph_b;
  uint64_t replays_a = 0;
  uint64_t replays_b = 0;
  double gpu_p50_a_us = 0;  // GPU time per replay, nearest-rank median
  double gpu_p50_b_us = 0;
  size_t node_count_a = 0;
  size_t node_count_b = 0;
  // Matched nodes by |delta_us| descending (ties by A's node id), then fusions (by |delta_us|),
  // then nodes only in A, then only in B (each by total descending). --top applies to each of
  // the four groups.
  std::vector<NodeDiff> nodes;
  size_t matched = 0;                                    // nodes matched, also when cut by --top
  size_t fused = 0;                                      // fusions, also when cut by --top
  std::shared_ptr<const NamePool> strings_a, strings_b;  // hold the nodes' names
};

// `a` and `b` must hold every node (ComputeNodeStats without --top). Pairs are ordered by A's
// graph id, then B-only graphs by B's graph id. options.graph_id keeps the pairs where either
// trace's graph id is that id.
std::vector<GraphDiff> DiffNodeStats(const std::vector<GraphStats>& a,
                                     const std::vector<GraphStats>& b,
                                     const NodeStatsOptions& options = {});

}  // namespace nodescope::analysis
