// `nodescope nodes rank*.json` (or a merged trace): the same graph on several ranks
// (analysis/stats/rank_stats.h), read in parallel, printed as text, CSV or JSON.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats/node_series.h"
#include "analysis/stats/rank_stats.h"
#include "analysis/stats/trace_overview.h"
#include "base/status.h"
#include "nodes_output.h"  // NodesFormat

namespace nodescope::cli {

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
  std::vector<std::unique_ptr<analysis::GraphNodes>> nodes;
  std::vector<analysis::RankInput> inputs;  // point into `nodes`
  std::vector<FileLimits> files;            // one per file, in argument order
};

// "N keyed events of nodes past the first M are left out (at most MAX distinct nodes are
// held...)" for a file that left events out, else empty.
std::string LeftOutWarning(const FileLimits& file, size_t max_nodes);

// Aliased keys (events of several names on one key, NodeSeries::aliased): each such node's
// figures mix different nodes. What to say after "warning: <source>: ", or "" when none is.
std::string AliasedWarning(const analysis::GraphNodes& nodes);

// The processes of each file (CollectNodeSeriesPerProcess), named by `names`, as inputs.
StatusOr<RankTraces> AssembleRankTraces(
    const std::vector<std::string>& names,
    std::vector<StatusOr<std::vector<analysis::GraphNodes>>> loaded);

// Reads `paths` on up to `threads` threads (one trace each at a time; 0: the machine's cores).
StatusOr<RankTraces> LoadRankTraces(const std::vector<std::string>& paths,
                                    const analysis::NodeSeriesOptions& limits, size_t threads = 0);
// The same from traces in memory (name, JSON), for tests.
StatusOr<RankTraces> RankTracesFromText(
    const std::vector<std::pair<std::string, std::string>>& traces);

// One node of the reference rank's graphs on every rank, as a GraphNodes of one graph (the
// reference's id) whose nodes are the ranks: node ordinal = input index, named "rank R: NAME",
// with each rank's occurrences, for `plot` (one line per rank). `node` is a node id or its
// ordinal (node id & 0xffffffff); `graph_id` limits the search to that graph of the reference.
// NOT_FOUND when no graph holds the node.
StatusOr<analysis::GraphNodes> NodeAcrossRanks(const RankTraces& traces,
                                               std::optional<uint64_t> graph_id, uint64_t node);

// CompareRanks(inputs, options), the graphs ordered by the reference rank's GPU time in them,
// heaviest first (ties by graph id), the first `top` only (0: all): what `nodes --top` shows.
std::vector<analysis::CrossGraph> RankedCrossGraphs(const std::vector<analysis::RankInput>& inputs,
                                                    const analysis::NodeStatsOptions& options,
                                                    size_t top);

// Text: per graph, its straggler and one line per node (spread of the ranks' means, slowest
// rank, a collective's largest mean wait and whose). CSV and JSON: one row per (rank, node).
// With `overview` (CombineOverviews of the ranks'), text opens with its table and JSON carries
// it as "overview" after "ranks"; CSV (one row per (rank, node)) does not carry it.
std::string RanksOutput(NodesFormat format, const std::vector<analysis::RankInput>& inputs,
                        const std::vector<analysis::CrossGraph>& graphs, size_t width,
                        const analysis::TraceOverview* overview = nullptr);

}  // namespace nodescope::cli
