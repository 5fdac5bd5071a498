// The heat-map panel: a row per node, a column per replay (or bucket), colour = the mean
// duration against the node's own median (a diverging scale, shown as a colour bar), so that
// drift and jitter show in every row whatever its magnitude; the median is written by the row.
#include <algorithm>
#include <array>
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
constexpr int kLevels =
    65;  // colours per scale (odd: the median has its own); equal neighbours merge

std::string Attr(const char* name, double v, int decimals = 1) {
  return std::string(" ") + name + "=\"" + Fixed(v, decimals) + "\"";
}

// A cell's colour is its mean against its row's median, on a log scale symmetric about 1:
// log(mean / median) over [-log(span), +log(span)], so that +78 % in a 2 us node and in a 2 ms
// node look alike, and a row of steady durations stays pale whatever its magnitude. `span` is
// the smallest of kSpans that holds 98 % of the cells (all of them when there are few); cells
// beyond it take the end colours and are counted.
constexpr std::array<double, 7> kSpans = {1.1, 1.25, 1.5, 2, 4, 10, 100};
// A round ratio between 1 and each span, for the colour bar's middle ticks.
constexpr std::array<double, 7> kMiddleTicks = {1.05, 1.1, 1.2, 1.5, 2, 3, 10};

struct RatioScale {
  double span = kSpans[0];

  double T(double mean, double median) const {
    if (!(median > 0)) return 0.5;  // no ratio: the median's colour
    if (!(mean > 0)) return 0;
    return std::clamp(0.5 + 0.5 * std::log(mean / median) / std::log(span), 0.0, 1.0);
  }
  bool Beyond(double mean, double median) const {
    if (!(median > 0)) return false;
    double r = mean / median;
    return r > span * (1 + 1e-9) || r * span < 1 - 1e-9;
  }
};

RatioScale MakeScale(const std::vector<std::vector<Bucket>>& cells,
                     const std::vector<double>& medians) {
  std::vector<double> distances;  // |log ratio| of every cell
  for (size_t r = 0; r < cells.size(); ++r) {
    if (!(medians[r] > 0)) continue;
    for (const Bucket& b : cells[r]) {
      if (b.count > 0 && b.mean_us > 0)
        distances.push_back(std::fabs(std::log(b.mean_us / medians[r])));
    }
  }
  RatioScale s;
  if (distances.empty()) return s;
  double q = distances.size() >= 20 ? 0.98 : 1.0;
  auto k = static_cast<size_t>(std::llround(q * static_cast<double>(distances.size() - 1)));
  std::nth_element(distances.begin(), distances.begin() + static_cast<std::ptrdiff_t>(k),
                   distances.end());
  for (double span : kSpans) {
    s.span = span;
    if (std::log(span) >= distances[k] * (1 - 1e-9)) break;
  }
  return s;
}

// A tick label of the colour bar for `ratio` (duration / median): "+50 %", "median", "-33 %"
// for spans up to 2x, "x4", "/4" beyond.
std::string RatioLabel(double ratio, double span) {
  if (std::fabs(ratio - 1) < 1e-9) return "median";
  if (span > 2) {
    std::string s = ratio > 1 ? "\xC3\x97" : "\xC3\xB7";  // × ÷
    s += Significant(ratio > 1 ? ratio : 1 / ratio, 2);
    return s;
  }
  std::string s = ratio > 1 ? "+" : "\xE2\x88\x92";  // a minus sign
  s += Significant(std::fabs(ratio - 1) * 100, 2);
  s += " %";
  return s;
}

}  // namespace

double DrawHeatmapPanel(const Panel& panel, std::string& out) {
  const size_t rows = panel.nodes.size();
  const size_t replays = panel.replays;
  const double row_height = rows <= 8 ? 22 : rows <= 24 ? 16 : 13;

  std::vector<std::vector<Bucket>> cells;
  std::vector<double> medians_us;
  double max_us = 0;
  for (const NodeSeries* node : panel.nodes) {
    medians_us.push_back(DurationQuantile(node->occurrences, 0.5));
    max_us = std::max(max_us, medians_us.back());
  }
  const TimeUnit unit = UnitFor(max_us);
  std::vector<std::string> medians;  // "12.3 µs": the row's own scale, beside its name
  size_t median_chars = 0;
  for (double m : medians_us) {
    medians.push_back(Significant(m * unit.per_us, 3) + " " + std::string(unit.name));
    median_chars = std::max(median_chars, DisplayWidth(medians.back()));
  }

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
  const double median_right =
      kLabelLeft + static_cast<double>(label_chars + 2 + median_chars) * kNameCharWidth;
  // Whole pixels, so that cells rendered with crisp edges meet without seams.
  const double left = std::round(median_right + 10);
  const double right = std::round(panel.width - kBarArea), width = right - left;
  const double top = panel.top + kMapTop;
  const double bottom = top + static_cast<double>(rows) * row_height;
  const size_t buckets = std::max<size_t>(1, std::min(replays, static_cast<size_t>(width)));
  for (const NodeSeries* node : panel.nodes) {
    cells.push_back(BucketDurations(node->occurrences, replays, buckets));
  }
  const double bar_height = std::clamp(bottom - top, 150.0, 260.0);
  const RatioScale scale = MakeScale(cells, medians_us);

  out += "<g class=\"ns-panel\" data-kind=\"heat\" data-plot=\"" + Fixed(left, 1) + " " +
         Fixed(top, 1) + " " + Fixed(width, 1) + " " + Fixed(bottom - top, 1) + "\" data-n=\"" +
         std::to_string(replays) + "\" data-b=\"" + std::to_string(buckets) + "\" data-unit=\"" +
         std::string(unit.name) + "\">\n";
  out += PanelTitle(panel, BucketNote(replays, buckets, "each column: the mean of"));
  out += "<rect" + Attr("x", left) + Attr("y", top) + Attr("width", width) +
         Attr("height", bottom - top) + " fill=\"#f0f0f0\"/>\n";
  out += "<text class=\"tk\"" + Attr("x", median_right) + Attr("y", top - 6) +
         " text-anchor=\"end\">median</text>\n";

  size_t beyond = 0;  // cells past the colour bar's ends
  for (size_t r = 0; r < rows; ++r) {
    const NodeSeries& node = *panel.nodes[r];
    const double y = top + static_cast<double>(r) * row_height;
    const double median = medians_us[r];
    std::string ordinal = NodeOrdinal(node);
    std::string values;
    for (const Bucket& b : cells[r]) {
      if (b.count == 0) break;
      if (!values.empty()) values += ' ';
      values += Significant(b.mean_us * unit.per_us, 4);
    }
    out += "<g class=\"ns-row\" shape-rendering=\"crispEdges\" data-label=\"" +
           XmlEscaped(ordinal + " " + names[r]) + "\" data-m=\"" +
           Significant(median * unit.per_us, 4) + "\" data-d=\"" + values + "\"><title>" +
           XmlEscaped(ordinal + " " + CappedName(node.name)) + "\nnode id " +
           std::to_string(node.node_id) + " \xC2\xB7 median " + medians[r] +
           " (the row's colours are against it)</title>\n";
    const double baseline = y + row_height / 2 + 4;
    out += "<text class=\"nm\" font-weight=\"bold\"" + Attr("x", kLabelLeft) + Attr("y", baseline) +
           ">" + ordinal + "</text><text class=\"nm\"" + Attr("x", name_x) + Attr("y", baseline) +
           ">" + XmlEscaped(names[r]) + "</text><text class=\"nm md\"" + Attr("x", median_right) +
           Attr("y", baseline) + " text-anchor=\"end\">" + medians[r] + "</text>\n";
    // Runs of cells with the same colour level become one rect.
    const std::vector<Bucket>& row = cells[r];
    auto level_of = [&](const Bucket& c) {
      return static_cast<int>(std::lround(scale.T(c.mean_us, median) * (kLevels - 1)));
    };
    auto column_x = [&](size_t column) {
      return left + std::round(static_cast<double>(column) * width / static_cast<double>(buckets));
    };
    for (size_t b = 0; b < row.size();) {
      if (row[b].count == 0) {
        ++b;
        continue;
      }
      int level = level_of(row[b]);
      size_t end = b + 1;
      while (end < row.size() && row[end].count > 0 && level_of(row[end]) == level) ++end;
      for (size_t c = b; c < end; ++c) beyond += scale.Beyond(row[c].mean_us, median) ? 1 : 0;
      double x0 = column_x(b), x1 = column_x(end);
      out += "<rect" + Attr("x", x0, 0) + Attr("y", y) + Attr("width", x1 - x0, 0) +
             Attr("height", row_height - 1) + " fill=\"" +
             Diverging(level / static_cast<double>(kLevels - 1)) + "\"/>";
      b = end;
    }
    out += "\n</g>\n";
  }
  out += ReplayAxis(replays, bottom, left, right, true);

  // The colour bar: a cell's mean against its row's median, slower up (red), faster down (blue).
  const double bar_x = right + 22;
  const double bar_bottom = top + bar_height;
  out += "<text class=\"tk\"" + Attr("x", bar_x - 6) + Attr("y", top - 20) +
         ">each cell vs.</text><text class=\"tk\"" + Attr("x", bar_x - 6) + Attr("y", top - 6) +
         ">its row's median</text>\n";
  out += "<rect" + Attr("x", bar_x) + Attr("y", top) + Attr("width", kBarWidth) +
         Attr("height", bar_height) + " fill=\"url(#ns-diverging)\" stroke=\"#9a9a9a\"/>\n";
  double half = kMiddleTicks[0];
  for (size_t i = 0; i < kSpans.size(); ++i) {
    if (kSpans[i] == scale.span) half = kMiddleTicks[i];
  }
  for (double ratio : {scale.span, half, 1.0, 1 / half, 1 / scale.span}) {
    double y = bar_bottom - scale.T(ratio, 1) * bar_height;
    out += "<line class=\"ax\"" + Attr("x1", bar_x + kBarWidth) + Attr("y1", y) +
           Attr("x2", bar_x + kBarWidth + 4) + Attr("y2", y) + "/><text class=\"tk\"" +
           Attr("x", bar_x + kBarWidth + 7) + Attr("y", y + 4) + ">" +
           RatioLabel(ratio, scale.span) + "</text>\n";
  }
  out +=
      "<text class=\"tk\"" + Attr("x", bar_x) + Attr("y", bar_bottom + 16) + ">log scale</text>\n";
  double bar_end = bar_bottom + 22;
  if (beyond > 0) {
    out += "<text class=\"note\"" + Attr("x", bar_x) + Attr("y", bar_bottom + 32) + ">" +
           std::to_string(beyond) + (beyond == 1 ? " cell" : " cells") +
           " past</text><text class=\"note\"" + Attr("x", bar_x) + Attr("y", bar_bottom + 46) +
           ">the ends</text>\n";
    bar_end = bar_bottom + 52;
  }
  out += "</g>\n";
  return std::max(bottom + 50, bar_end) - panel.top;
}

}  // namespace nodescope::analysis::plot
