// The plot document: stacks the panels (plot_select.cc picks them) under a header.
// Also the pieces the line and heat-map panels share: titles and the replay axis.
#include "analysis/plot/plot_svg.h"

#include <algorithm>
#include <cmath>

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
  if (panel.gpu_us < panel.graph_gpu_us) {  // cut to the node cap: say how much is drawn
    nodes += " (the heaviest, " + ShareText(panel.gpu_us, panel.graph_gpu_us) + " of its time)";
  }
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
  // Its weight first: panels are ordered by it.
  std::string time = TimeText(panel.graph_gpu_us);
  if (panel.share) time += " (" + ShareText(panel.graph_gpu_us, panel.total_gpu_us) + ")";
  return "<text class=\"pt\" x=\"24\" y=\"" + Fixed(panel.top + 22, 1) + "\">Graph " +
         std::to_string(panel.graph_id) + " <tspan class=\"pd\">\xC2\xB7 " + time + " \xC2\xB7 " +
         nodes + " \xC2\xB7 " + replays + XmlEscaped(detail) + "</tspan></text>\n";
}

std::string TimeText(double us) {
  TimeUnit unit = UnitFor(us);
  std::string s = Significant(us * unit.per_us, 3);
  s += ' ';
  s += unit.name;
  return s;
}

std::string ShareText(double part, double whole) {
  double percent = whole > 0 ? 100 * part / whole : 0;
  if (percent > 0 && percent < 0.1) return "&lt;0.1 %";
  return Fixed(percent, percent >= 99.95 || percent == 0 ? 0 : 1) + " %";
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
                               bool xml_declaration, PlotOmissions* left_out) {
  ASSIGN_OR_RETURN(plot::Selection selection, plot::SelectPlot(trace, options));
  *left_out = selection.left_out;
  double width = std::max(options.width, 480);
  std::string body;
  double y = 34;
  for (Panel& panel : selection.panels) {
    panel.top = y;
    panel.width = width;
    bool heat = options.heatmap || panel.nodes.size() > options.max_lines;
    y += heat ? plot::DrawHeatmapPanel(panel, body) : plot::DrawLinePanel(panel, body);
    y += 12;
  }
  if (!selection.one_shots.rows.empty()) {
    selection.one_shots.top = y;
    selection.one_shots.width = width;
    y += plot::DrawOneShotTable(selection.one_shots, body) + 12;
  }
  std::string w = Fixed(width, 0), h = Fixed(std::ceil(y), 0);
  std::string out;
  if (xml_declaration) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h +
         "\" font-family=\"Helvetica, Arial, 'DejaVu Sans', sans-serif\">\n<style>\n";
  out += kStyle;
  out += "</style>\n<defs><linearGradient id=\"ns-diverging\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (int i = 0; i < kDivergingControls; ++i) {
    double t = i / static_cast<double>(kDivergingControls - 1);
    out += "<stop offset=\"" + Fixed(t, 3) + "\" stop-color=\"" + Diverging(t) + "\"/>";
  }
  out += "</linearGradient></defs>\n<rect width=\"" + w + "\" height=\"" + h +
         "\" fill=\"#ffffff\"/>\n<text class=\"h\" x=\"24\" y=\"26\">Graph node durations "
         "across replays";
  if (left_out->nodes > 0) {  // the lightest are left out: say how much of the time is drawn
    const PlotOmissions& o = *left_out;
    out += " <tspan class=\"note\">(drawn: " +
           plot::ShareText(o.gpu_us_total - o.gpu_us, o.gpu_us_total) + " of the GPU time, " +
           std::to_string(o.graphs_total - o.graphs) + " of " + std::to_string(o.graphs_total) +
           " graphs, heaviest first; choose with --graph, --node)</tspan>";
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

StatusOr<PlotDocument> RenderPlot(const GraphNodes& nodes, const PlotOptions& options,
                                  PlotFormat format) {
  PlotDocument document;
  const bool html = format == PlotFormat::kHtml;
  ASSIGN_OR_RETURN(std::string svg, Document(nodes, options, !html, &document.left_out));
  document.text = html ? plot::WrapHtml(svg, options.source) : std::move(svg);
  return document;
}

StatusOr<std::string> RenderPlotSvg(const GraphNodes& nodes, const PlotOptions& options) {
  ASSIGN_OR_RETURN(PlotDocument document, RenderPlot(nodes, options, PlotFormat::kSvg));
  return std::move(document.text);
}

StatusOr<std::string> RenderPlotHtml(const GraphNodes& nodes, const PlotOptions& options) {
  ASSIGN_OR_RETURN(PlotDocument document, RenderPlot(nodes, options, PlotFormat::kHtml));
  return std::move(document.text);
}

}  // namespace nodescope::analysis
