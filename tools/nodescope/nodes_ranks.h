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
#include "analysis/stats/rank_traces.h"
#include "analysis/stats/trace_overview.h"
#include "base/status.h"
#include "nodes_output.h"  // NodesFormat

namespace nodescope::cli {

using analysis::AssembleRankTraces;
using analysis::FileLimits;
using analysis::LoadRankTraces;
using analysis::NodeAcrossRanks;
using analysis::RankedCrossGraphs;
using analysis::RankTraces;
using analysis::RankTracesFromText;

// "N keyed events of nodes past the first M are left out (at most MAX distinct nodes are
// held...)" for a file that left events out, else empty.
std::string LeftOutWarning(const FileLimits& file, size_t max_nodes);

// Aliased keys (events of several names on one key, NodeSeries::aliased): each such node's
// figures mix different nodes. What to say after "warning: <source>: ", or "" when none is.
std::string AliasedWarning(const analysis::GraphNodes& nodes);

// Text: per graph, its straggler and one line per node (spread of the ranks' means, slowest
// rank, a collective's largest mean wait and whose). CSV and JSON: one row per (rank, node).
// With `overview` (CombineOverviews of the ranks'), text opens with its table and JSON carries
// it as "overview" after "ranks"; CSV (one row per (rank, node)) does not carry it.
std::string RanksOutput(NodesFormat format, const std::vector<analysis::RankInput>& inputs,
                        const std::vector<analysis::CrossGraph>& graphs, size_t width,
                        const analysis::TraceOverview* overview = nullptr);

}  // namespace nodescope::cli
