// The table of graphs that ran once: a line of text each (graph, nodes, GPU time, share, its
// heaviest node), heaviest first, instead of a panel each of one point per line.
#include <algorithm>

#include "analysis/plot/plot_panel.h"
#include "analysis/plot/svg_text.h"
#include "analysis/stats/kernel_name.h"
#include "base/utf8_text.h"

namespace nodescope::analysis::plot {
namespace {

constexpr double kLeft = 24;
constexpr double kHeaderTop = 44;  // baseline of the column heads, below the title
constexpr double kRow = 16;

std::string Text(double x, double y, const std::string& text, bool end = false,
                 const char* cls = "nm") {
  return "<text class=\"" + std::string(cls) + "\" x=\"" + Fixed(x, 1) + "\" y=\"" + Fixed(y, 1) +
         (end ? "\" text-anchor=\"end\">" : "\">") + text + "</text>";
}

}  // namespace

double DrawOneShotTable(const OneShotTable& table, std::string& out) {
  const double cw = kNameCharWidth;
  size_t id_chars = 5;  // "graph"
  for (const OneShotGraph& g : table.rows) {
    id_chars = std::max(id_chars, std::to_string(g.graph_id).size());
  }
  // Columns: graph id (left), nodes, GPU time and share (right-aligned), heaviest node (left).
  const double nodes_right = kLeft + static_cast<double>(id_chars + 7) * cw;
  const double time_right = nodes_right + 11 * cw;
  const double share_right = time_right + 9 * cw;
  const double node_left = share_right + 3 * cw;
  const auto name_chars = static_cast<size_t>(std::max(16.0, (table.width - 24 - node_left) / cw));

  out += "<g class=\"ns-one-shots\">\n<text class=\"pt\" x=\"24\" y=\"" + Fixed(table.top + 22, 1) +
         "\">Graphs that ran once <tspan class=\"pd\">\xC2\xB7 " + std::to_string(table.graphs) +
         (table.graphs == 1 ? " graph" : " graphs") + " \xC2\xB7 " + TimeText(table.gpu_us) + " (" +
         ShareText(table.gpu_us, table.total_gpu_us) +
         ") \xC2\xB7 one replay each: a row "
         "each, heaviest first</tspan></text>\n";
  double y = table.top + kHeaderTop;
  out += Text(kLeft, y, "graph", false, "tk") + Text(nodes_right, y, "nodes", true, "tk") +
         Text(time_right, y, "GPU time", true, "tk") + Text(share_right, y, "share", true, "tk") +
         Text(node_left, y, "heaviest node", false, "tk") + "\n";
  out += "<line class=\"gr\" x1=\"24\" y1=\"" + Fixed(y + 5, 1) + "\" x2=\"" +
         Fixed(table.width - 24, 1) + "\" y2=\"" + Fixed(y + 5, 1) + "\"/>\n";
  double shown_us = 0;
  for (const OneShotGraph& g : table.rows) {
    y += kRow;
    shown_us += g.gpu_us;
    const NodeSeries& node = *g.heaviest;
    std::string ordinal = NodeOrdinal(node);
    std::string name = ShortKernelName(node.name, name_chars - DisplayWidth(ordinal) - 1);
    out += "<g class=\"ns-one\"><title>" + XmlEscaped(ordinal + " " + CappedName(node.name)) +
           "\nnode id " + std::to_string(node.node_id) + "</title>" +
           Text(kLeft, y, std::to_string(g.graph_id)) +
           Text(nodes_right, y, std::to_string(g.nodes), true) +
           Text(time_right, y, TimeText(g.gpu_us), true) +
           Text(share_right, y, ShareText(g.gpu_us, table.total_gpu_us), true) +
           "<text class=\"nm\" x=\"" + Fixed(node_left, 1) + "\" y=\"" + Fixed(y, 1) +
           "\"><tspan font-weight=\"bold\">" + ordinal + "</tspan> " + XmlEscaped(name) +
           "</text></g>\n";
  }
  if (table.rows.size() < table.graphs) {
    y += kRow + 4;
    out += Text(kLeft, y,
                "\xE2\x80\xA6 and " + std::to_string(table.graphs - table.rows.size()) +
                    " more graphs that ran once, " + TimeText(table.gpu_us - shown_us) + " (" +
                    ShareText(table.gpu_us - shown_us, table.total_gpu_us) +
                    "), not drawn: --graph draws one",
                false, "note");
    out += "\n";
  }
  out += "</g>\n";
  return y + 12 - table.top;
}

}  // namespace nodescope::analysis::plot
