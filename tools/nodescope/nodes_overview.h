// The overview `nodescope nodes` opens with (analysis/stats/trace_overview.h) as text, CSV rows
// and the JSON "overview" member.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/stats/trace_overview.h"

namespace nodescope::cli {

// A line of totals, then one table row per line: share of the trace's GPU time, total, count
// (replays or launches), mean, GPU time per replay p50/p99 (graphs), graph id, what, name.
std::string OverviewText(const analysis::TraceOverview& overview, size_t width);

// The CSV columns of `nodes --csv` (NodesBegin): the node columns, then "row" and "graph_name".
extern const char kNodesCsvHeader[];
// One row per overview line, "row" graph / eager / eager_other.
std::string OverviewCsv(const analysis::TraceOverview& overview);

// ,"overview":{...} (written after "trace" and before "graphs").
std::string OverviewJson(const analysis::TraceOverview& overview);

}  // namespace nodescope::cli
