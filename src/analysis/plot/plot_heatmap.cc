// The heat-map panel: a row per node, a column per replay (or bucket), colour = mean duration.
// The colours come from a viridis-like scale, shown as a colour bar with its values.
#include <algorithm>
#include <cmath>

#include "analysis/plot/plot_panel.h"
#include "analysis/plot/svg_text.h"
#include "analysis/stats/kernel_name.h"
#include "base/utf8_text.h"

namespace nodescope::analysis::plot {
namespace {

constexpr double kLabelLeft = 24;
constexpr double kBarArea = 120;  // right of the map: colour bar and its labels
constexpr double kMapTop = 42;    // below the panel's title
constexpr double kBarWidth = 14;
constexpr size_t kLabelChars = 44;
constexpr int kLevels = 64;  // colours per scale; neighbouring cells of one level are merged

std::string Attr(const char* name, double v, int decimals = 1) {
  return std::string(" ") + name + "=\"" + Fixed(v, decimals) + "\"";
}

// Maps a duration (in the display unit) to [0, 1]: log when the means span 20x or more.
struct ColorScale {
  bool log = false;
  double lo = 0, hi = 1;  // the domain (log10 of it when `log`)
  Ticks ticks;

  double T(double v) const {
    double x = log ? (v > 0 ? std::log10(v) : lo) : v;
    return hi > lo ? std::clamp((x - lo) / (hi - lo), 0.0, 1.0) : 0.5;
  }
};

// The colour domain spans the bucket means, unless a few outliers would squeeze every other cell
// into a few colours: then it ends at the 98th percentile of the widest row and the outliers
// take the top colour.
ColorScale MakeScale(const std::vector<std::vector<Bucket>>& cells, double per_unit,
                     size_t max_ticks, double* clipped_above) {
  double min_positive = 0, max = 0, robust = 0;
  for (const std::vector<Bucket>& row : cells) {
    std::vector<double> means;
    for (const Bucket& b : row) {
      if (b.count == 0) continue;
      double v = b.mean_us * per_unit;
      means.push_back(v);
      max = std::max(max, v);
      if (v > 0 && (min_positive == 0 || v < min_positive)) min_positive = v;
    }
    if (means.empty()) continue;
    double q = means.size() >= 20 ? 0.98 : 1.0;
    auto k = static_cast<size_t>(std::llround(q * static_cast<double>(means.size() - 1)));
    std::nth_element(means.begin(), means.begin() + static_cast<std::ptrdiff_t>(k), means.end());
    robust = std::max(robust, means[k]);
  }
  *clipped_above = robust > 0 && max > 1.5 * robust ? robust * 1.1 : 0;
  double hi = *clipped_above > 0 ? *clipped_above : max;
  ColorScale s;
  if (min_positive > 0 && hi / min_positive >= 20) {
    s.log = true;
    s.lo = std::log10(min_positive);
    s.hi = std::log10(hi);
    s.ticks = LogTicks(min_positive, hi, max_ticks);
  } else {
    s.ticks = NiceTicks(min_positive, hi, 4);
    s.lo = s.ticks.values.front();
    s.hi = s.ticks.values.back();
  }
  return s;
}

}  // namespace

double DrawHeatmapPanel(const Panel& panel, std::string& out) {
  const size_t rows = panel.nodes.size();
  const size_t replays = panel.replays;
  const double row_height = rows <= 8 ? 22 : rows <= 24 ? 16 : 13;

  // Labels first: their width sets where the map starts.
  size_t ordinal_chars = 0;
  for (const NodeSeries* node : panel.nodes) {
    ordinal_chars = std::max(ordinal_chars, DisplayWidth(NodeOrdinal(*node)));
  }
  std::vector<std::string> names;
  size_t label_chars = 0;
  for (const NodeSeries* node : panel.nodes) {
    names.push_back(ShortKernelName(node->name, kLabelChars - ordinal_chars - 1));
    label_chars = std::max(label_chars, ordinal_chars + 1 + DisplayWidth(names.back()));
  }
  const double name_x = kLabelLeft + static_cast<double>(ordinal_chars + 1) * kNameCharWidth;
  // Whole pixels, so that cells rendered with crisp edges meet without seams.
  const double left =
      std::round(kLabelLeft + static_cast<double>(label_chars) * kNameCharWidth + 12);
  const double right = std::round(panel.width - kBarArea), width = right - left;
  const double top = panel.top + kMapTop;
  const double bottom = top + static_cast<double>(rows) * row_height;
  const size_t buckets = std::max<size_t>(1, std::min(replays, static_cast<size_t>(width)));

  std::vector<std::vector<Bucket>> cells;
  double max_us = 0;
  for (const NodeSeries* node : panel.nodes) {
    cells.push_back(BucketDurations(node->occurrences, replays, buckets));
    for (const Bucket& b : cells.back()) max_us = std::max(max_us, b.mean_us);
  }
  const TimeUnit unit = UnitFor(max_us);
  const double bar_height = std::clamp(bottom - top, 150.0, 260.0);
  double clipped_above = 0;  // in `unit`; 0 when nothing is clipped
  const ColorScale scale =
      MakeScale(cells, unit.per_us, static_cast<size_t>(bar_height / 20), &clipped_above);

  out += "<g class=\"ns-panel\" data-kind=\"heat\" data-plot=\"" + Fixed(left, 1) + " " +
         Fixed(top, 1) + " " + Fixed(width, 1) + " " + Fixed(bottom - top, 1) + "\" data-n=\"" +
         std::to_string(replays) + "\" data-b=\"" + std::to_string(buckets) + "\" data-unit=\"" +
         std::string(unit.name) + "\">\n";
  out += PanelTitle(panel, BucketNote(replays, buckets, "each column: the mean of"));
  out += "<rect" + Attr("x", left) + Attr("y", top) + Attr("width", width) +
         Attr("height", bottom - top) + " fill=\"#f0f0f0\"/>\n";

  for (size_t r = 0; r < rows; ++r) {
    const NodeSeries& node = *panel.nodes[r];
    const double y = top + static_cast<double>(r) * row_height;
    std::string ordinal = NodeOrdinal(node);
    std::string values;
    for (const Bucket& b : cells[r]) {
      if (b.count == 0) break;
      if (!values.empty()) values += ' ';
      values += Significant(b.mean_us * unit.per_us, 4);
    }
    double median = DurationQuantile(node.occurrences, 0.5) * unit.per_us;
    out += "<g class=\"ns-row\" shape-rendering=\"crispEdges\" data-label=\"" +
           XmlEscaped(ordinal + " " + names[r]) + "\" data-d=\"" + values + "\"><title>" +
           XmlEscaped(ordinal + " " + CappedName(node.name)) + "\nnode id " +
           std::to_string(node.node_id) + " \xC2\xB7 median " + Significant(median, 3) + " " +
           std::string(unit.name) + "</title>\n";
    const double baseline = y + row_height / 2 + 4;
    out += "<text class=\"nm\" font-weight=\"bold\"" + Attr("x", kLabelLeft) + Attr("y", baseline) +
           ">" + ordinal + "</text><text class=\"nm\"" + Attr("x", name_x) + Attr("y", baseline) +
           ">" + XmlEscaped(names[r]) + "</text>\n";
    // Runs of cells with the same colour level become one rect.
    const std::vector<Bucket>& row = cells[r];
    for (size_t b = 0; b < row.size();) {
      if (row[b].count == 0) {
        ++b;
        continue;
      }
      auto level_of = [&](const Bucket& c) {
        return static_cast<int>(std::lround(scale.T(c.mean_us * unit.per_us) * (kLevels - 1)));
      };
      int level = level_of(row[b]);
      size_t end = b + 1;
      while (end < row.size() && row[end].count > 0 && level_of(row[end]) == level) ++end;
      auto column_x = [&](size_t column) {
        return left +
               std::round(static_cast<double>(column) * width / static_cast<double>(buckets));
      };
      double x0 = column_x(b), x1 = column_x(end);
      out += "<rect" + Attr("x", x0, 0) + Attr("y", y) + Attr("width", x1 - x0, 0) +
             Attr("height", row_height - 1) + " fill=\"" +
             Viridis(level / static_cast<double>(kLevels - 1)) + "\"/>";
      b = end;
    }
    out += "\n</g>\n";
  }
  out += ReplayAxis(replays, bottom, left, right, true);

  // The colour bar with its scale.
  const double bar_x = right + 22;
  const double bar_bottom = top + bar_height;
  out += "<text class=\"tk\"" + Attr("x", bar_x) + Attr("y", top - 8) + ">" +
         std::string(unit.name) + (scale.log ? ", log scale" : "") + "</text>\n";
  out += "<rect" + Attr("x", bar_x) + Attr("y", top) + Attr("width", kBarWidth) +
         Attr("height", bar_height) + " fill=\"url(#ns-viridis)\" stroke=\"#9a9a9a\"/>\n";
  for (double v : scale.ticks.values) {
    double y = bar_bottom - scale.T(v) * bar_height;
    std::string label = scale.log ? Significant(v, 3) : Fixed(v, scale.ticks.decimals);
    out += "<line class=\"ax\"" + Attr("x1", bar_x + kBarWidth) + Attr("y1", y) +
           Attr("x2", bar_x + kBarWidth + 4) + Attr("y2", y) + "/><text class=\"tk\"" +
           Attr("x", bar_x + kBarWidth + 7) + Attr("y", y + 4) + ">" + label + "</text>\n";
  }
  double bar_end = bar_bottom + 16;
  if (clipped_above > 0) {
    size_t cells_above = 0;
    for (const std::vector<Bucket>& row : cells) {
      for (const Bucket& b : row)
        cells_above += b.count > 0 && b.mean_us * unit.per_us > clipped_above;
    }
    out += "<text class=\"note\"" + Attr("x", bar_x) + Attr("y", bar_bottom + 18) +
           ">\xE2\x96\xB2 " + std::to_string(cells_above) + " above,</text><text class=\"note\"" +
           Attr("x", bar_x) + Attr("y", bar_bottom + 32) + ">up to " +
           Significant(max_us * unit.per_us, 3) + " " + std::string(unit.name) + "</text>\n";
    bar_end = bar_bottom + 40;
  }
  out += "</g>\n";
  return std::max(bottom + 50, bar_end) - panel.top;
}

}  // namespace nodescope::analysis::plot
