// A job's traces, one per rank or one merged (`nodes` and `plot` across ranks): read in
// parallel, ordered by rank, and the views across them that rank_stats.h does not give (one
// node on every rank, graphs ranked by the reference rank's GPU time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/stats/node_series.h"
#include "analysis/stats/node_stats.h"
#include "analysis/stats/rank_stats.h"
#include "base/status.h"

namespace nodescope::analysis {

// Every process of every trace: one per file, or one per rank of a merged trace. Inputs are
// ordered by rank (those without one after them, in argument order); the first is the reference.
// What one file held and left out: the limits (NodeSeriesOptions) hold per file, all its
// processes together, and a process all of whose nodes were left out is no input.
struct FileLimits {
  size_t processes = 0;
  size_t nodes_held = 0;
  uint64_t untracked_events = 0;  // keyed events of nodes past the limits
  size_t sampled_nodes = 0;       // nodes holding a sample of their occurrences
};

struct RankTraces {
  std::vector<std::unique_ptr<GraphNodes>> nodes;
  std::vector<RankInput> inputs;  // point into `nodes`
  std::vector<FileLimits> files;  // one per file, in argument order
};

// The processes of each file (CollectNodeSeriesPerProcess), named by `names`, as inputs.
StatusOr<RankTraces> AssembleRankTraces(const std::vector<std::string>& names,
                                        std::vector<StatusOr<std::vector<GraphNodes>>> loaded);

// Reads `paths` on up to `threads` threads (one trace each at a time; 0: the machine's cores).
StatusOr<RankTraces> LoadRankTraces(const std::vector<std::string>& paths,
                                    const NodeSeriesOptions& limits, size_t threads = 0);
// The same from traces in memory (name, JSON), for tests.
StatusOr<RankTraces> RankTracesFromText(
    const std::vector<std::pair<std::string, std::string>>& traces);

// One node of the reference rank's graphs on every rank, as a GraphNodes of one graph (the
// reference's id) whose nodes are the ranks: node ordinal = input index, named "rank R: NAME",
// with each rank's occurrences, for `plot` (one line per rank). `node` is a node id or its
// ordinal (node id & 0xffffffff); `graph_id` limits the search to that graph of the reference.
// NOT_FOUND when no graph holds the node.
StatusOr<GraphNodes> NodeAcrossRanks(const RankTraces& traces, std::optional<uint64_t> graph_id,
                                     uint64_t node);

// CompareRanks(inputs, options), the graphs ordered by the reference rank's GPU time in them,
// heaviest first (ties by graph id), the first `top` only (0: all): what `nodes --top` shows.
std::vector<CrossGraph> RankedCrossGraphs(const std::vector<RankInput>& inputs,
                                          const NodeStatsOptions& options, size_t top);

}  // namespace nodescope::analysis
