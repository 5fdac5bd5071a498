// Draws per-node duration series as a self-contained SVG picture or HTML page (`nodescope plot`).
// Graphs by weight: a panel per graph of several replays, heaviest (most GPU time) first, with one
// line per node over the replays, or a heat map when a graph has many nodes; graphs that ran once
// share one table. Pure rendering: no I/O, no clock, so the same input gives the same bytes.
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
  // Only this graph (drawn as a panel whatever its replays); else the heaviest graphs, stacked.
  std::optional<uint64_t> graph_id;
  // Only these nodes (else every node): a "graph node id", or a node's ordinal in its graph (its
  // "#N" in the legend) when that names one node of the chosen graph(s).
  std::vector<uint64_t> node_ids;
  bool heatmap = false;   // a heat map even for a few nodes
  size_t max_lines = 12;  // a graph with more nodes than this is drawn as a heat map
  // Nodes drawn in one picture, all panels together, so that its size does not grow with the
  // trace: a panel past it keeps its heaviest nodes (its title says "N of M nodes"), and lighter
  // graphs are left out (PlotOmissions; the picture's title says so).
  size_t max_nodes = 1024;
  // Panels: the heaviest graphs of more than one replay (each of --graph / --node's graphs when
  // those are given); lighter ones are left out.
  size_t max_graphs = 16;
  // Graphs that ran once (every node once) are not panels but rows of one table, heaviest first:
  // at most this many rows, the rest left out (the table says how many, and their time).
  size_t max_one_shot_rows = 12;
  std::string source;  // named in the header, e.g. the trace's file name
  int width = 960;     // pixels; the height follows from the content
};

// What a picture leaves out of the graphs it was given (after --graph / --node), for the caller
// to say: the lightest graphs and nodes. GPU time is the sum of a node's durations over every
// occurrence (exact also when the replays drawn are a sample).
struct PlotOmissions {
  size_t graphs = 0;  // graphs with no node drawn (neither a panel nor a table row)
  size_t graphs_total = 0;
  size_t nodes = 0;  // nodes not drawn: those of the graphs left out and of cut panels
  size_t nodes_total = 0;
  size_t nodes_cut = 0;  // of `nodes`, those of drawn graphs (past max_nodes)
  double gpu_us = 0;     // the GPU time of the nodes not drawn
  double gpu_us_total = 0;
};

enum class PlotFormat { kSvg, kHtml };

struct PlotDocument {
  std::string text;  // the SVG or HTML document
  PlotOmissions left_out;
};

// The picture in `format`: RenderPlotSvg or RenderPlotHtml, with what it left out.
StatusOr<PlotDocument> RenderPlot(const GraphNodes& nodes, const PlotOptions& options,
                                  PlotFormat format);

// A standalone SVG document (UTF-8, with an XML declaration). Errors: FAILED_PRECONDITION when
// `nodes` has no node (no event carries both graph keys); NOT_FOUND naming a requested graph or
// node that is not in it; INVALID_ARGUMENT for an ordinal found in several graphs.
StatusOr<std::string> RenderPlotSvg(const GraphNodes& nodes, const PlotOptions& options);

// The same picture inline in a minimal HTML page with no external resources; a small inline
// script shows node, replay and duration under the pointer.
StatusOr<std::string> RenderPlotHtml(const GraphNodes& nodes, const PlotOptions& options);

}  // namespace nodescope::analysis
