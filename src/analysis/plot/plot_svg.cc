// The plot document: picks the panels (graphs, nodes) and stacks them under a header.
// Also the pieces the line and heat-map panels share: titles and the replay axis.
#include "analysis/plot/plot_svg.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/plot/plot_panel.h"
#include "analysis/plot/svg_text.h"

namespace nodescope::analysis {
namespace plot {

std::string NodeOrdinal(const NodeSeries& node) {
  const uint64_t ordinal =
      (node.node_id >> 32) == node.graph_id ? node.node_id & 0xFFFFFFFFu : node.node_id;
  // Appended, not `"#" + std::to_string(...)`: g++ 12 at -O3 misreads a one-character literal
  // prepended to a temporary as an overlapping memcpy (-Wrestrict, GCC bug 105329).
  std::string s = "#";
  s += std::to_string(ordinal);
  return s;
}

std::string PanelTitle(const Panel& panel, const std::string& detail) {
  std::string nodes = std::to_string(panel.nodes.size());
  if (panel.nodes.size() != panel.graph_nodes) nodes += " of " + std::to_string(panel.graph_nodes);
  nodes += panel.graph_nodes == 1 ? " node" : " nodes";
  std::string replays = std::to_string(panel.replays);
  if (panel.min_replays != panel.replays) {
    replays = std::to_string(panel.min_replays) + "\xE2\x80\x93" + replays;  // en dash
  }
  replays += panel.replays == 1 ? " replay" : " replays";
  // Past the occurrences held (NodeSeriesOptions::max_samples), a graph keeps a uniform sample
  // of its replays: say so, and that the x axis counts the replays drawn.
  unsigned level = 0;
  bool sampled = false;
  for (const NodeSeries* node : panel.nodes) {
    sampled = sampled || node->sampled();
    level = std::max<unsigned>(level, node->sample_level);
  }
  if (sampled) {
    replays += " drawn: a sample, 1 in " +
               (level >= 64 ? "2^" + std::to_string(level) : std::to_string(uint64_t{1} << level)) +
               " replays (memory limit)";
  }
  return "<text class=\"pt\" x=\"24\" y=\"" + Fixed(panel.top + 22, 1) + "\">Graph " +
         std::to_string(panel.graph_id) + " <tspan class=\"pd\">\xC2\xB7 " + nodes + " \xC2\xB7 " +
         replays + XmlEscaped(detail) + "</tspan></text>\n";
}

double MaxDurationUs(const Panel& panel) {
  double max_us = 0;
  for (const NodeSeries* node : panel.nodes) {
    for (const NodeOccurrence& o : node->occurrences) max_us = std::max(max_us, o.dur_us);
  }
  return max_us;
}

double ReplayX(double replay, size_t replays, double left, double right, bool columns) {
  auto n = static_cast<double>(replays);
  if (columns) return left + (replay - 0.5) / n * (right - left);
  if (replays <= 1) return (left + right) / 2;
  return left + (replay - 1) / (n - 1) * (right - left);
}

std::string ReplayAxis(size_t replays, double bottom, double left, double right, bool columns) {
  Ticks ticks = NiceTicks(1, static_cast<double>(replays), 6);
  std::vector<double> at;
  for (double v : ticks.values) {
    if (v >= 1 && v <= static_cast<double>(replays) && std::floor(v) == v) at.push_back(v);
  }
  auto x_of = [&](double r) { return ReplayX(r, replays, left, right, columns); };
  // Replay 1 gets a label too, unless it would crowd the first round tick ("1 2 4 6").
  double step = ticks.values.size() > 1 ? ticks.values[1] - ticks.values[0] : 1;
  if (at.empty() ||
      (at.front() != 1 && at.front() - 1 > step / 2 && x_of(at.front()) - x_of(1) > 28)) {
    at.insert(at.begin(), 1);
  }
  std::string out = "<line class=\"ax\" x1=\"" + Fixed(left, 1) + "\" y1=\"" + Fixed(bottom, 1) +
                    "\" x2=\"" + Fixed(right, 1) + "\" y2=\"" + Fixed(bottom, 1) + "\"/>\n";
  for (double v : at) {
    std::string x = Fixed(x_of(v), 1);
    out += "<line class=\"ax\" x1=\"" + x + "\" y1=\"" + Fixed(bottom, 1) + "\" x2=\"" + x +
           "\" y2=\"" + Fixed(bottom + 4, 1) + "\"/><text class=\"tk\" x=\"" + x + "\" y=\"" +
           Fixed(bottom + 17, 1) + "\" text-anchor=\"middle\">" + Fixed(v, 0) + "</text>\n";
  }
  out += "<text class=\"al\" x=\"" + Fixed((left + right) / 2, 1) + "\" y=\"" +
         Fixed(bottom + 36, 1) +
         "\" text-anchor=\"middle\">replay (n-th execution of each node)</text>\n";
  return out;
}

std::string BucketNote(size_t replays, size_t buckets, const char* what) {
  if (buckets >= replays) return "";
  double per = static_cast<double>(replays) / static_cast<double>(buckets);
  return " \xC2\xB7 " + std::string(what) + " ~" + Significant(per, 2) + " replays";
}

}  // namespace plot

namespace {

using plot::Panel;

std::string GraphList(const std::vector<uint64_t>& graphs) {
  std::string out;
  for (size_t i = 0; i < graphs.size() && i < 10; ++i) {
    out += (i ? ", " : "") + std::to_string(graphs[i]);
  }
  if (graphs.size() > 10) out += ", ... (" + std::to_string(graphs.size()) + " graphs)";
  return out;
}

// A --node value: a whole "graph node id", or the ordinal of a node (its "#N" in the legend) in
// the one graph it can belong to (--graph, or the only graph that has it).
StatusOr<uint64_t> ResolveNode(const GraphNodes& trace, uint64_t id,
                               std::optional<uint64_t> graph_id) {
  std::vector<const NodeSeries*> by_ordinal;
  for (const NodeSeries& node : trace.nodes) {
    if (node.node_id == id) {
      if (graph_id && node.graph_id != *graph_id) {
        return NotFoundError("node " + std::to_string(id) + " is in graph " +
                             std::to_string(node.graph_id) + ", not in graph " +
                             std::to_string(*graph_id));
      }
      return id;
    }
    bool ordinal = id <= 0xFFFFFFFFu && node.node_id == (node.graph_id << 32 | id);
    if (ordinal && (!graph_id || node.graph_id == *graph_id)) by_ordinal.push_back(&node);
  }
  if (by_ordinal.size() == 1) return by_ordinal[0]->node_id;
  if (by_ordinal.size() > 1) {
    std::vector<uint64_t> graphs;
    for (const NodeSeries* node : by_ordinal) graphs.push_back(node->graph_id);
    return InvalidArgumentError("node #" + std::to_string(id) + " is in several graphs (" +
                                GraphList(graphs) + "); add --graph or give the whole node id");
  }
  return NotFoundError("node " + std::to_string(id) + " is not in " +
                       (graph_id ? "graph " + std::to_string(*graph_id) : "the trace"));
}

// Panels to draw; `*left_out` is set to the graphs not drawn for options.max_nodes.
StatusOr<std::vector<Panel>> SelectPanels(const GraphNodes& trace, const PlotOptions& options,
                                          size_t* left_out) {
  *left_out = 0;
  if (trace.nodes.empty()) {
    return FailedPreconditionError(
        "no GPU event carries both graph keys (\"graph id\" and \"graph node id\"), so there is "
        "no graph node to plot; record the program with `nodescope run`");
  }
  std::map<uint64_t, std::vector<const NodeSeries*>> by_graph;
  for (const NodeSeries& node : trace.nodes) by_graph[node.graph_id].push_back(&node);
  std::vector<uint64_t> graphs;
  for (const auto& [graph, unused] : by_graph) graphs.push_back(graph);
  if (options.graph_id && by_graph.count(*options.graph_id) == 0) {
    return NotFoundError("graph " + std::to_string(*options.graph_id) +
                         " is not in the trace; its graphs are " + GraphList(graphs));
  }
  std::vector<uint64_t> wanted;
  for (uint64_t id : options.node_ids) {
    ASSIGN_OR_RETURN(uint64_t node_id, ResolveNode(trace, id, options.graph_id));
    wanted.push_back(node_id);
  }
  std::vector<Panel> panels;
  size_t drawn = 0;
  for (const auto& [graph, nodes] : by_graph) {
    if (options.graph_id && graph != *options.graph_id) continue;
    if (drawn >= options.max_nodes) {
      ++*left_out;
      continue;
    }
    Panel panel;
    panel.graph_id = graph;
    panel.graph_nodes = nodes.size();
    for (const NodeSeries* node : nodes) {
      if (wanted.empty() ||
          std::find(wanted.begin(), wanted.end(), node->node_id) != wanted.end()) {
        panel.nodes.push_back(node);
      }
    }
    if (panel.nodes.empty()) continue;
    if (panel.nodes.size() > options.max_nodes - drawn)
      panel.nodes.resize(options.max_nodes - drawn);
    drawn += panel.nodes.size();
    panel.min_replays = panel.nodes[0]->occurrences.size();
    for (const NodeSeries* node : panel.nodes) {
      panel.replays = std::max(panel.replays, node->occurrences.size());
      panel.min_replays = std::min(panel.min_replays, node->occurrences.size());
    }
    panel.index = panels.size();
    panel.width = options.width;
    panels.push_back(std::move(panel));
  }
  return panels;
}

constexpr std::string_view kStyle =
    "text{fill:#333}\n"
    ".h{font-size:17px;font-weight:bold;fill:#222}\n"
    ".src{font-size:12px;fill:#777}\n"
    ".pt{font-size:14px;font-weight:bold;fill:#222}\n"
    ".pd{font-weight:normal;fill:#666}\n"
    ".tk{font-size:11px;fill:#555}\n"
    ".al{font-size:12px;fill:#444}\n"
    ".nm{font-family:Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:11px;fill:#222}\n"
    ".md{fill:#888}\n"
    ".note{font-size:11px;fill:#b03030}\n"
    ".el{font-size:11px;font-weight:bold}\n"
    ".gr{stroke:#ebebeb;stroke-width:1}\n"
    ".ax{stroke:#9a9a9a;stroke-width:1}\n";

// The <svg> element with everything in it; `xml_declaration` for a standalone .svg file.
StatusOr<std::string> Document(const GraphNodes& trace, const PlotOptions& options,
                               bool xml_declaration) {
  size_t graphs_left_out = 0;
  ASSIGN_OR_RETURN(std::vector<Panel> panels, SelectPanels(trace, options, &graphs_left_out));
  double width = std::max(options.width, 480);
  std::string body;
  double y = 34;
  for (Panel& panel : panels) {
    panel.top = y;
    panel.width = width;
    bool heat = options.heatmap || panel.nodes.size() > options.max_lines;
    y += heat ? plot::DrawHeatmapPanel(panel, body) : plot::DrawLinePanel(panel, body);
    y += 12;
  }
  std::string w = Fixed(width, 0), h = Fixed(std::ceil(y), 0);
  std::string out;
  if (xml_declaration) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h +
         "\" font-family=\"Helvetica, Arial, 'DejaVu Sans', sans-serif\">\n<style>\n";
  out += kStyle;
  out += "</style>\n<defs><linearGradient id=\"ns-viridis\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (int i = 0; i < kViridisControls; ++i) {
    double t = i / static_cast<double>(kViridisControls - 1);
    out += "<stop offset=\"" + Fixed(t, 3) + "\" stop-color=\"" + Viridis(t) + "\"/>";
  }
  out += "</linearGradient></defs>\n<rect width=\"" + w + "\" height=\"" + h +
         "\" fill=\"#ffffff\"/>\n<text class=\"h\" x=\"24\" y=\"26\">Graph node durations "
         "across replays";
  if (graphs_left_out > 0) {
    out += " <tspan class=\"note\">(" + std::to_string(graphs_left_out) +
           " more graphs not drawn: at most " + std::to_string(options.max_nodes) +
           " nodes per picture; choose with --graph)</tspan>";
  }
  out += "</text>\n";
  if (!options.source.empty()) {
    out += "<text class=\"src\" x=\"" + Fixed(width - 24, 0) + "\" y=\"26\" text-anchor=\"end\">" +
           XmlEscaped(options.source) + "</text>\n";
  }
  out += body;
  out += "</svg>\n";
  return out;
}

}  // namespace

StatusOr<std::string> RenderPlotSvg(const GraphNodes& nodes, const PlotOptions& options) {
  return Document(nodes, options, true);
}

StatusOr<std::string> RenderPlotHtml(const GraphNodes& nodes, const PlotOptions& options) {
  ASSIGN_OR_RETURN(std::string svg, Document(nodes, options, false));
  return plot::WrapHtml(svg, options.source);
}

}  // namespace nodescope::analysis
