// The line panel: one polyline per node, duration over the replays, with a legend of kernel names.
#include <algorithm>
#include <cmath>

#include "analysis/plot/plot_panel.h"
#include "analysis/plot/svg_text.h"
#include "analysis/stats/kernel_name.h"
#include "base/utf8_text.h"

namespace nodescope::analysis::plot {
namespace {

constexpr double kLeft = 76;         // room for y tick labels and the rotated axis label
constexpr double kRightMargin = 48;  // from the panel's right edge: room for end labels
constexpr double kPlotTop = 44;      // below the panel's title
constexpr double kPlotHeight = 260;
constexpr double kLegendRow = 20;
constexpr double kPixelsPerPoint = 2;  // more replays than this allows: points are bucket means
constexpr size_t kMaxClipLabels = 3;
constexpr size_t kMaxOneColumn = 8;  // legend entries in one column before it takes two

std::string Attr(const char* name, double v) {
  return std::string(" ") + name + "=\"" + Fixed(v, 1) + "\"";
}

// The top of the y axis, in microseconds before rounding to a tick: the largest duration, unless a
// few outliers would flatten everything else; then the 98th percentile of the widest node, and
// the outliers are clipped and marked.
double AxisTopUs(const Panel& panel) {
  double max_us = MaxDurationUs(panel);
  double robust_us = 0;
  for (const NodeSeries* node : panel.nodes) {
    const std::vector<NodeOccurrence>& occ = node->occurrences;
    robust_us = std::max(robust_us, DurationQuantile(occ, occ.size() >= 20 ? 0.98 : 1.0));
  }
  bool clip = robust_us > 0 && max_us > 1.5 * robust_us;
  return clip ? robust_us * 1.1 : max_us;
}

struct ClipMark {
  double us;
  double x;
};

// A node's ordinal at the right end of its line, in its colour.
struct EndLabel {
  double y;
  std::string text;
  std::string color;
};

// Moves labels apart (at least `gap` between baselines) while keeping them in [top, bottom].
void Spread(std::vector<EndLabel>& labels, double gap, double top, double bottom) {
  std::stable_sort(labels.begin(), labels.end(),
                   [](const EndLabel& a, const EndLabel& b) { return a.y < b.y; });
  for (size_t i = 1; i < labels.size(); ++i) {
    labels[i].y = std::max(labels[i].y, labels[i - 1].y + gap);
  }
  if (!labels.empty() && labels.back().y > bottom) labels.back().y = bottom;
  for (size_t i = labels.size(); i-- > 1;) {
    labels[i - 1].y = std::min(labels[i - 1].y, labels[i].y - gap);
  }
  if (!labels.empty() && labels.front().y < top) {
    for (size_t i = 0; i < labels.size(); ++i) labels[i].y = top + static_cast<double>(i) * gap;
  }
}

// Values above the axis: a marker at the top edge each, the largest few labelled, and a note.
void DrawClipMarks(std::vector<ClipMark> clips, const TimeUnit& unit, double top, double right,
                   std::string& out) {
  if (clips.empty()) return;
  std::stable_sort(clips.begin(), clips.end(),
                   [](const ClipMark& a, const ClipMark& b) { return a.us > b.us; });
  std::vector<double> labelled;
  for (const ClipMark& c : clips) {
    out += "<path d=\"M" + Fixed(c.x - 4, 1) + "," + Fixed(top + 7, 1) + "h8l-4,-7z\" " +
           "fill=\"#b03030\"/>";
    bool crowded = std::any_of(labelled.begin(), labelled.end(),
                               [&](double x) { return std::fabs(x - c.x) < 70; });
    if (labelled.size() < kMaxClipLabels && !crowded) {
      labelled.push_back(c.x);
      bool flip = c.x > right - 70;
      out += "<text class=\"note\"" + Attr("x", c.x + (flip ? -7 : 7)) + Attr("y", top + 8) +
             (flip ? " text-anchor=\"end\">" : ">") + Significant(c.us * unit.per_us, 3) + " " +
             std::string(unit.name) + "</text>";
    }
  }
  out += "\n<text class=\"note\"" + Attr("x", right) + Attr("y", top - 8) +
         " text-anchor=\"end\">\xE2\x96\xB2 " + std::to_string(clips.size()) +
         (clips.size() == 1 ? " value" : " values") + " above the axis, up to " +
         Significant(clips.front().us * unit.per_us, 3) + " " + std::string(unit.name) +
         "</text>\n";
}

// The legend below the plot from `legend_top`: colour, ordinal, shortened name and median, in two
// columns unless that would cut names more. Returns its bottom.
double DrawLegend(const Panel& panel, const TimeUnit& unit, double legend_top, std::string& out) {
  const size_t count = panel.nodes.size();
  std::vector<std::string> ordinals, medians;
  for (const NodeSeries* node : panel.nodes) {
    ordinals.push_back(NodeOrdinal(*node));
    double median = DurationQuantile(node->occurrences, 0.5) * unit.per_us;
    medians.push_back("median " + Significant(median, 3) + " " + std::string(unit.name));
  }
  auto names_for = [&](size_t columns) {
    double column_width = (panel.width - 48) / static_cast<double>(columns);
    auto fits = static_cast<size_t>((column_width - 28 - 16) / kNameCharWidth);
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      size_t used = DisplayWidth(ordinals[i]) + 1 + DisplayWidth(medians[i]) + 3;
      names.push_back(ShortKernelName(panel.nodes[i]->name, fits > used + 12 ? fits - used : 12));
    }
    return names;
  };
  std::vector<std::string> names = names_for(1);
  size_t columns = 1;
  if (count > 1 && (count > kMaxOneColumn || names_for(2) == names)) {
    columns = 2;
    names = names_for(2);
  }
  const size_t rows = (count + columns - 1) / columns;
  const double column_width = (panel.width - 48) / static_cast<double>(columns);
  for (size_t i = 0; i < count; ++i) {
    double x = 24 + static_cast<double>(i / rows) * column_width;
    double y = legend_top + static_cast<double>(i % rows) * kLegendRow;
    out += "<line" + Attr("x1", x) + Attr("y1", y - 4) + Attr("x2", x + 20) + Attr("y2", y - 4) +
           " stroke=\"" + std::string(SeriesColor(i)) +
           "\" stroke-width=\"3\"/><text class=\"nm\"" + Attr("x", x + 28) + Attr("y", y) +
           "><tspan font-weight=\"bold\">" + ordinals[i] + "</tspan> " + XmlEscaped(names[i]) +
           " <tspan class=\"md\">\xC2\xB7 " + medians[i] + "</tspan><title>" +
           XmlEscaped(CappedName(panel.nodes[i]->name)) + "</title></text>\n";
  }
  return legend_top + static_cast<double>(rows) * kLegendRow;
}

}  // namespace

double DrawLinePanel(const Panel& panel, std::string& out) {
  const double left = kLeft, right = panel.width - kRightMargin, width = right - left;
  const double top = panel.top + kPlotTop, bottom = top + kPlotHeight;
  const size_t replays = panel.replays;
  const size_t buckets =
      std::max<size_t>(1, std::min(replays, static_cast<size_t>(width / kPixelsPerPoint)));
  const bool bucketed = buckets < replays;

  double top_us = AxisTopUs(panel);
  TimeUnit unit = UnitFor(top_us);
  Ticks ticks = NiceTicks(0, top_us * unit.per_us, 5);
  const double axis_max = ticks.values.back();  // in `unit`
  auto y_of = [&](double us) {
    return bottom - std::clamp(us * unit.per_us, 0.0, axis_max) / axis_max * kPlotHeight;
  };
  auto x_of = [&](const Bucket& b) {
    return ReplayX(static_cast<double>(b.first + b.last) / 2 + 1, replays, left, right, false);
  };

  out += "<g class=\"ns-panel\" data-kind=\"lines\" data-plot=\"" + Fixed(left, 1) + " " +
         Fixed(top, 1) + " " + Fixed(width, 1) + " " + Fixed(kPlotHeight, 1) + "\" data-n=\"" +
         std::to_string(replays) + "\" data-b=\"" + std::to_string(buckets) + "\" data-unit=\"" +
         std::string(unit.name) + "\">\n";
  out += PanelTitle(panel, BucketNote(replays, buckets, "line: mean, band: min\xE2\x80\x93max of"));

  // Grid, y ticks and the y axis label.
  for (double v : ticks.values) {
    double y = bottom - v / axis_max * kPlotHeight;
    out += "<line class=\"gr\"" + Attr("x1", left) + Attr("y1", y) + Attr("x2", right) +
           Attr("y2", y) + "/><text class=\"tk yt\"" + Attr("x", left - 8) + Attr("y", y + 4) +
           " text-anchor=\"end\">" + Fixed(v, ticks.decimals) + "</text>\n";
  }
  out += "<line class=\"ax\"" + Attr("x1", left) + Attr("y1", top) + Attr("x2", left) +
         Attr("y2", bottom) + "/>\n";
  out += "<text class=\"al\" transform=\"translate(" + Fixed(left - 54, 1) + "," +
         Fixed((top + bottom) / 2, 1) + ") rotate(-90)\" text-anchor=\"middle\">duration (" +
         std::string(unit.name) + ")</text>\n";
  out += ReplayAxis(replays, bottom, left, right, false);

  // The series: a band (when bucketed), the line, dots when there are few points.
  std::vector<ClipMark> clips;
  std::vector<EndLabel> end_labels;
  for (size_t i = 0; i < panel.nodes.size(); ++i) {
    const NodeSeries& node = *panel.nodes[i];
    std::string color(SeriesColor(i));
    std::vector<Bucket> cols = BucketDurations(node.occurrences, replays, buckets);
    while (!cols.empty() && cols.back().count == 0) cols.pop_back();
    if (bucketed) {
      std::string band;
      for (const Bucket& b : cols) band += Fixed(x_of(b), 1) + "," + Fixed(y_of(b.max_us), 1) + " ";
      for (auto b = cols.rbegin(); b != cols.rend(); ++b) {
        band += Fixed(x_of(*b), 1) + "," + Fixed(y_of(b->min_us), 1) + " ";
      }
      if (!band.empty()) band.pop_back();
      out += "<polygon fill=\"" + color + "\" fill-opacity=\"0.18\" points=\"" + band + "\"/>\n";
    }
    std::string points, values;
    for (const Bucket& b : cols) {
      if (!points.empty()) points += ' ', values += ' ';
      points += Fixed(x_of(b), 1) + "," + Fixed(y_of(b.mean_us), 1);
      values += Significant(b.mean_us * unit.per_us, 4);
      if (b.max_us * unit.per_us > axis_max) clips.push_back({b.max_us, x_of(b)});
    }
    std::string label = NodeOrdinal(node) + " " + ShortKernelName(node.name, 60);
    double median = DurationQuantile(node.occurrences, 0.5) * unit.per_us;
    out += "<polyline class=\"ns-s\" fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"1.6\" stroke-linejoin=\"round\" points=\"" + points +
           "\" data-label=\"" + XmlEscaped(label) + "\" data-d=\"" + values + "\"><title>" +
           XmlEscaped(NodeOrdinal(node) + " " + CappedName(node.name)) + "\nnode id " +
           std::to_string(node.node_id) + " \xC2\xB7 median " + Significant(median, 3) + " " +
           std::string(unit.name) + "</title></polyline>\n";
    if (buckets <= 40) {
      for (const Bucket& b : cols) {
        out += "<circle" + Attr("cx", x_of(b)) + Attr("cy", y_of(b.mean_us)) + " r=\"3\" fill=\"" +
               color + "\"/>";
      }
      out += "\n";
    }
    if (!cols.empty()) {
      end_labels.push_back({y_of(cols.back().mean_us) + 4, NodeOrdinal(node), color});
    }
  }

  Spread(end_labels, 12, top + 4, bottom + 4);
  for (const EndLabel& label : end_labels) {
    out += "<text class=\"el\"" + Attr("x", right + 6) + Attr("y", label.y) +
           " style=\"fill:" + label.color + "\">" + label.text + "</text>";
  }
  out += "\n";

  DrawClipMarks(clips, unit, top, right, out);
  double legend_end = DrawLegend(panel, unit, bottom + 62, out);
  out += "</g>\n";
  return legend_end - panel.top;
}

}  // namespace nodescope::analysis::plot
