// The critical-path parts of `nodescope nodes`' renderings (GraphStats::critical_path): the
// summary lines and legend, the table's columns, the CSV fields and the JSON objects. Nothing is
// written for a graph whose trace records no DAG, so such output stays as it was.
#pragma once

#include <string>
#include <vector>

#include "analysis/stats/node_stats.h"
#include "export/json_output.h"
#include "nodes_format.h"

namespace nodescope::cli {

// Whether the table gets the critical-path columns: the graph's DAG is in the trace.
bool HasPathColumns(const analysis::GraphStats& g);
// The summary lines ("critical path ..." and the legend of the columns), or the one line saying
// the trace has no DAG of this graph; "" when the trace records no DAG.
std::string PathSummary(const analysis::GraphStats& g);
// The columns' headers, units and one node's cells ("-" where the node has no figure).
std::vector<std::string> PathHeaders(const analysis::GraphStats& g);
std::vector<std::string> PathUnits(const TimeUnit& unit);
std::vector<std::string> PathCells(const analysis::NodeStats& n, const TimeUnit& unit);

// CSV: the header's extra names, and a node's extra fields (each after a comma); no fields
// when the trace records no DAG.
const char* PathCsvHeader();
std::string PathCsvFields(const analysis::GraphStats& g, const analysis::NodeStats& n);
// JSON: `,"critical_path":{...}` of a graph and of a node; nothing without DAGs in the trace.
void PathJsonGraph(JsonOutput& o, const analysis::GraphStats& g);
void PathJsonNode(JsonOutput& o, const analysis::GraphStats& g, const analysis::NodeStats& n);

}  // namespace nodescope::cli
