// The same graph on several ranks of a job (`nodescope nodes rank*.json`, or a merged trace):
// which rank's copy of a node is slow, and how long each rank's collectives wait for the others.
// Pure computation over GraphNodes; no I/O.
//
// Graphs are matched with the first rank's (the reference) as `nodes --diff` matches two traces
// (DiffNodeStats: the same node sequence, or the same graph id), so graph ids, which are per
// process, may differ between ranks. Per matched node: each rank's mean, and across ranks the
// min / median (nearest rank) / max of those means and the slowest rank.
//
// A collective is a node whose kernel is NCCL's (or RCCL's) device kernel: its name starts with
// "ncclDevKernel_", "ncclKernel_" or "rcclDevKernel_" (see IsCollectiveKernel). Its waiting time,
// per rank and replay, is the time from its own start to the latest start of the same node among
// all ranks in that replay, replays matched by index (the i-th occurrence on each rank, in start
// order): the skew the collective absorbed. Starts are compared on one time axis: each trace's
// baseTimeNanoseconds plus its "ts" (CLOCK_REALTIME: shared by the processes of one host; see
// `nodescope merge` for several hosts). A rank waiting long in a collective is waiting for
// another one; a collective's own duration includes that wait, so the straggler is looked for
// among the other nodes: the (node, rank) whose mean is furthest above the median of the
// ranks' means for that node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/stats/node_series.h"
#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {

bool IsCollectiveKernel(std::string_view name);

struct RankInput {
  int64_t rank = -1;   // as the trace says; -1 when it does not
  std::string source;  // the file it came from (a merged trace: "FILE (slot N)")
  const GraphNodes* nodes = nullptr;
  uint64_t base_time_ns = 0;  // the trace's baseTimeNanoseconds
};

// One node on one rank.
struct RankNode {
  size_t input = 0;  // index into the RankInput vector
  int64_t rank = -1;
  uint64_t graph_id = 0;  // this rank's own ids
  uint64_t node_id = 0;
  uint64_t replays = 0;
  double mean_us = 0;
  double p50_us = 0;
  double max_us = 0;
  double total_us = 0;
  // Collectives only (NaN otherwise, or when replays could not be compared): over the replays
  // compared, the wait's mean, max and total.
  double wait_mean_us = 0;
  double wait_max_us = 0;
  double wait_total_us = 0;
};

struct CrossNode {
  uint64_t node_id = 0;  // the reference rank's
  std::string_view name;
  std::string_view scope;
  bool collective = false;
  std::vector<RankNode> ranks;  // the ranks where it was matched, in input order
  double min_mean_us = 0;       // over ranks' means
  double median_mean_us = 0;    // nearest rank
  double max_mean_us = 0;
  int64_t slowest_rank = -1;  // the rank of the largest mean
  // Collectives: the rank with the largest mean wait, and that wait (NaN: not compared).
  int64_t most_waiting_rank = -1;
  double most_wait_us = 0;
};

struct CrossGraph {
  uint64_t graph_id = 0;            // the reference rank's
  std::vector<uint64_t> graph_ids;  // per input; 0 where the graph was not matched
  size_t ranks_matched = 0;         // inputs holding the graph
  // Replays compared for waits: the fewest replays of the graph's collectives on any rank;
  // replays_differ when ranks replayed it a different number of times, sampled when a rank's
  // occurrences were sampled (no waits then).
  uint64_t replays_compared = 0;
  bool replays_differ = false;
  bool sampled = false;
  std::vector<CrossNode> nodes;  // by the reference's node id
  size_t node_count = 0;         // the graph's nodes, also when `nodes` is cut by `top`
  // The straggler: the non-collective (node, rank) furthest above the node's median of means.
  std::optional<size_t> straggler_node;  // index into nodes
  int64_t straggler_rank = -1;
  double straggler_excess_us = 0;                        // its mean minus the median of means
  std::vector<std::shared_ptr<const NamePool>> strings;  // hold the names
};

// Graphs of the reference (inputs[0]) by graph id; `options.graph_id` keeps that graph of the
// reference only. `options.top` keeps, per graph, the nodes with the most GPU time (their total
// summed over the ranks; ties by node id), in node id order, as `nodes --top` does for one
// trace; the straggler is found among all nodes first, and its node (when above its median) is
// kept in place of the last of them when it is not among them. Every input must outlive the result
// (names point into them).
std::vector<CrossGraph> CompareRanks(const std::vector<RankInput>& inputs,
                                     const NodeStatsOptions& options = {});

}  // namespace nodescope::analysis
