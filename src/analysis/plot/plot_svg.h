// Draws per-node duration series as a self-contained SVG picture or HTML page (`nodescope plot`).
// One line per node over the replays, or a heat map when a graph has many nodes. Pure rendering:
// no I/O, no clock, so the same input gives the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/stats/node_series.h"
#include "base/status.h"

namespace nodescope::analysis {

struct PlotOptions {
  std::optional<uint64_t> graph_id;  // only this graph; else one panel per graph, stacked
  // Only these nodes (else every node): a "graph node id", or a node's ordinal in its graph (its
  // "#N" in the legend) when that names one node of the chosen graph(s).
  std::vector<uint64_t> node_ids;
  bool heatmap = false;   // a heat map even for a few nodes
  size_t max_lines = 12;  // a graph with more nodes than this is drawn as a heat map
  // Nodes drawn in one picture, all panels together, so that its size does not grow with the
  // trace: a panel past it keeps its first nodes (its title says "N of M nodes"), and graphs
  // after it are left out, as the picture's title says.
  size_t max_nodes = 1024;
  std::string source;  // named in the header, e.g. the trace's file name
  int width = 960;     // pixels; the height follows from the content
};

// A standalone SVG document (UTF-8, with an XML declaration). Errors: FAILED_PRECONDITION when
// `nodes` has no node (no event carries both graph keys); NOT_FOUND naming a requested graph or
// node that is not in it; INVALID_ARGUMENT for an ordinal found in several graphs.
StatusOr<std::string> RenderPlotSvg(const GraphNodes& nodes, const PlotOptions& options);

// The same picture inline in a minimal HTML page with no external resources; a small inline
// script shows node, replay and duration under the pointer.
StatusOr<std::string> RenderPlotHtml(const GraphNodes& nodes, const PlotOptions& options);

}  // namespace nodescope::analysis
