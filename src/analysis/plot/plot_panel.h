// Internal to the plots: one graph's panel (its nodes, its place) and the two ways to draw it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/plot/plot_scale.h"
#include "analysis/plot/plot_svg.h"
#include "analysis/stats/node_series.h"
#include "base/status.h"

namespace nodescope::analysis::plot {

// Text sizes shared by the panels; names are set in a monospace font of `kNameFont` pixels, so
// that their width is known without font metrics.
inline constexpr double kNameFont = 11;
inline constexpr double kNameCharWidth = 0.6 * kNameFont;

struct Panel {
  uint64_t graph_id = 0;
  std::vector<const NodeSeries*> nodes;  // in node-id order
  size_t graph_nodes = 0;                // nodes of the graph before --node selection
  size_t replays = 0;                    // most occurrences of any node: the x axis is 1..replays
  size_t min_replays = 0;                // fewest occurrences of any node
  size_t index = 0;                      // position in the document (unique ids)
  double width = 960;
  double top = 0;  // y of the panel's top edge
  // GPU time (durations summed over every occurrence) of the nodes drawn, of the graph's nodes
  // (of the --node selection), and of every graph given: shares are of `total_gpu_us`.
  double gpu_us = 0;
  double graph_gpu_us = 0;
  double total_gpu_us = 0;
  bool share = false;  // the title gives the graph's share (when there were several graphs)
};

// A graph that ran once, a row of the one-replay table.
struct OneShotGraph {
  uint64_t graph_id = 0;
  size_t nodes = 0;
  double gpu_us = 0;
  const NodeSeries* heaviest = nullptr;  // its node with the most GPU time
};

struct OneShotTable {
  std::vector<OneShotGraph> rows;  // drawn, heaviest first
  size_t graphs = 0;               // graphs that ran once, drawn or not
  double gpu_us = 0;               // their GPU time
  double total_gpu_us = 0;         // every graph's: the shares' denominator
  double width = 960;
  double top = 0;
};

// The panels and the table of a picture, and what it leaves out.
struct Selection {
  std::vector<Panel> panels;  // heaviest first
  OneShotTable one_shots;     // rows empty: no table
  PlotOmissions left_out;
};

// Picks by GPU time what PlotOptions allows (plot_svg.h); errors as RenderPlotSvg's.
StatusOr<Selection> SelectPlot(const GraphNodes& trace, const PlotOptions& options);

// "#3": a node's ordinal in its graph (the low 32 bits of a nodescope node id), or its whole id
// when the id does not embed the graph id.
std::string NodeOrdinal(const NodeSeries& node);
// The title line: "Graph 5 · 8 nodes · 200 replays" with `detail` appended in grey.
std::string PanelTitle(const Panel& panel, const std::string& detail);
// A duration in microseconds with its unit, 3 significant digits: "3.24 ms".
std::string TimeText(double us);
// `part` as a percentage of `whole`, as XML text: "97.6 %", "0.3 %", "&lt;0.1 %".
std::string ShareText(double part, double whole);
// The largest duration of any occurrence in the panel, in microseconds.
double MaxDurationUs(const Panel& panel);
// The x of replay `replay` (1-based; fractions allowed) on an axis from `left` to `right`: at the
// ends for a line chart, at the centre of its column for a heat map (`columns`).
double ReplayX(double replay, size_t replays, double left, double right, bool columns);
// The x axis below `bottom`: ticks and labels at nice replay numbers, and the axis label.
std::string ReplayAxis(size_t replays, double bottom, double left, double right, bool columns);
// " (columns: means of ~5 replays)"-style note when replays are bucketed, else "".
std::string BucketNote(size_t replays, size_t buckets, const char* what);

// Appends the panel's SVG to `out` and returns its height.
double DrawLinePanel(const Panel& panel, std::string& out);
double DrawHeatmapPanel(const Panel& panel, std::string& out);
double DrawOneShotTable(const OneShotTable& table, std::string& out);

// A minimal HTML page around an <svg> element (without XML declaration), with an inline script
// for tooltips: no network, no external files.
std::string WrapHtml(std::string_view svg, std::string_view title);

}  // namespace nodescope::analysis::plot
