// The text, CSV and JSON renderings of `nodescope nodes` (one trace) and `--diff` (two traces).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/stats/node_stats.h"
#include "analysis/stats/trace_overview.h"

namespace nodescope::cli {

// Keyed events left out because their nodes were past the limit on distinct nodes.
struct LeftOut {
  uint64_t events = 0;
  uint64_t max_nodes = 0;
  // A sampled trace (NODESCOPE_SAMPLE): about 1 launch in `sampled_every` was traced.
  uint64_t sampled_every = 0;
  uint64_t sampled_burst = 1;  // > 1: picked launches came in bursts of this many
  uint64_t graph_launches = 0;
  uint64_t graph_launches_traced = 0;
  // The trace records DAGs (GraphNodes::dags): the CSV header names the critical-path columns.
  bool dags = false;
};

// The output in pieces, written as they come so that memory does not grow with the number of
// graphs: NodesBegin, NodesGraph for each graph (`first` for the first), NodesEnd. NodesText,
// NodesCsv and NodesJson join them.
enum class NodesFormat { kText, kCsv, kJson };
// With `overview`, the output opens with it (text: a table `width` wide; CSV: its rows; JSON:
// its "overview" member).
std::string NodesBegin(NodesFormat format, const std::string& path, const LeftOut& left_out,
                       const analysis::TraceOverview* overview = nullptr, size_t width = 0);
std::string NodesGraph(NodesFormat format, const analysis::GraphStats& graph, bool first,
                       size_t width);
std::string NodesEnd(NodesFormat format);

// A per-graph summary, then one row per node; names shortened (or on lines of their own) to fit
// `width` columns (0: never shortened).
std::string NodesText(const std::string& path, const std::vector<analysis::GraphStats>& graphs,
                      size_t width, const LeftOut& left_out = {});
// One header row, then one row per node with full names; durations in microseconds.
std::string NodesCsv(const std::vector<analysis::GraphStats>& graphs);
// {"trace":..,"graphs":[{"graph_id":..,...,"nodes":[...]}]} and a newline.
std::string NodesJson(const std::string& path, const std::vector<analysis::GraphStats>& graphs,
                      const LeftOut& left_out = {});

// --diff's output in pieces, as NodesBegin/NodesGraph/NodesEnd (NodesEnd closes it too).
std::string DiffBegin(NodesFormat format, const std::string& path_a, const std::string& path_b);
std::string DiffGraph(NodesFormat format, const analysis::GraphDiff& graph, bool first,
                      size_t width);

std::string DiffText(const std::string& path_a, const std::string& path_b,
                     const std::vector<analysis::GraphDiff>& graphs, size_t width);
std::string DiffCsv(const std::vector<analysis::GraphDiff>& graphs);
std::string DiffJson(const std::string& path_a, const std::string& path_b,
                     const std::vector<analysis::GraphDiff>& graphs);

}  // namespace nodescope::cli
