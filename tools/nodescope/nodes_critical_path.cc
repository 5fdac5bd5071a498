// The critical-path parts of `nodescope nodes`' text, CSV and JSON.
#include "nodes_critical_path.h"

#include <cmath>
#include <cstdio>
#include <string_view>

namespace nodescope::cli {
namespace {

using analysis::GraphCriticalPath;
using analysis::GraphStats;
using analysis::NodeStats;
using analysis::PathSkip;
using std::to_string;

// As nodes_output.cc writes numbers: fixed decimals, `missing` when not finite.
std::string Number(double v, int decimals, const char* missing) {
  if (!std::isfinite(v)) return missing;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// "2" for 2, "1.5" for 1.5.
std::string Factor(double speedup) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", speedup);
  return buf;
}

void Line(std::string& out, std::string_view label, const std::string& value) {
  constexpr size_t kLabelWidth = 24;  // as nodes_output.cc's summary labels
  out += "  ";
  out += label;
  out.append(kLabelWidth - std::min(kLabelWidth - 1, label.size()), ' ');
  out += value;
  out += '\n';
}

std::string Skips(const GraphCriticalPath& c) {
  std::string out;
  for (size_t i = 0; i < c.skipped.size(); ++i) {
    if (c.skipped[i] == 0) continue;
    std::string reason = analysis::PathSkipName(static_cast<PathSkip>(i));
    for (char& ch : reason) ch = ch == '_' ? ' ' : ch;
    out += out.empty() ? "; skipped: " : ", ";
    out += to_string(c.skipped[i]);
    out += ' ';
    out += reason;
  }
  return out;
}

}  // namespace

bool HasPathColumns(const GraphStats& g) { return g.critical_path && g.critical_path->dag; }

std::string PathSummary(const GraphStats& g) {
  std::string out;
  if (!g.critical_path) return out;
  const GraphCriticalPath& c = *g.critical_path;
  if (!c.dag) {
    Line(out, "critical path", "no DAG of this graph in the trace");
    return out;
  }
  const std::string k = Factor(c.speedup);
  std::string analysed = to_string(c.analysed);
  analysed += g.sampled ? " of the " : " of ";
  analysed += to_string(c.replays);
  analysed += g.sampled ? " replays held (the sample) analysed" : " replays analysed";
  analysed += Skips(c);
  if (c.analysed > 0) {
    analysed += "; span p50 ";
    analysed += Duration(c.span_p50_us);
  }
  Line(out, "critical path", analysed);
  Line(out, "", "path: share of those replays whose critical path runs through the node");
  Line(out, "", "slack: p50 of how much longer it could run before its replay ends later");
  std::string gain = k;
  gain += "x gain: span p50 minus span p50 with the node ";
  gain += k;
  gain += "x faster, gaps as measured";
  Line(out, "", gain);
  Line(out, "", "(an upper bound for a node that starts before its predecessor ends: PDL)");
  return out;
}

std::vector<std::string> PathHeaders(const GraphStats& g) {
  std::string gain = Factor(g.critical_path ? g.critical_path->speedup : 2);
  gain += "x gain";
  return {"path", "slack", gain};
}

std::vector<std::string> PathUnits(const TimeUnit& unit) { return {"", unit.name, unit.name}; }

std::vector<std::string> PathCells(const NodeStats& n, const TimeUnit& unit) {
  if (!n.critical_path) return {"-", "-", "-"};
  const NodeStats::CriticalPath& c = *n.critical_path;
  std::string share = "-";
  if (std::isfinite(c.share)) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f%%", c.share * 100);
    share = buf;
  }
  return {share, Fixed4(c.slack_p50_us / unit.us_per_unit), Fixed4(c.gain_us / unit.us_per_unit)};
}

const char* PathCsvHeader() {
  return ",critical_path_share,slack_p50_us,slack_min_us,whatif_span_p50_us,whatif_gain_us";
}

std::string PathCsvFields(const GraphStats& g, const NodeStats& n) {
  if (!g.critical_path) return "";
  if (!n.critical_path) return ",,,,,";
  const NodeStats::CriticalPath& c = *n.critical_path;
  std::string out;
  for (const std::string& f :
       {Number(c.share, 6, ""), Number(c.slack_p50_us, 3, ""), Number(c.slack_min_us, 3, ""),
        Number(c.whatif_span_p50_us, 3, ""), Number(c.gain_us, 3, "")}) {
    out += ',';
    out += f;
  }
  return out;
}

void PathJsonGraph(JsonOutput& o, const GraphStats& g) {
  if (!g.critical_path) return;
  const GraphCriticalPath& c = *g.critical_path;
  if (!c.dag) {
    o.Raw(",\"critical_path\":{\"dag\":false}");
    return;
  }
  o.Raw(",\"critical_path\":{\"dag\":true,\"speedup\":");
  o.Raw(Factor(c.speedup));
  o.StringField(",\"replays_from\":", g.sampled ? "held_sample" : "every_replay");
  o.Field(",\"replays\":", c.replays);
  o.Field(",\"replays_analysed\":", c.analysed);
  o.Raw(",\"replays_skipped\":{");
  for (size_t i = 0; i < c.skipped.size(); ++i) {
    o.Raw(i ? ",\"" : "\"");
    o.Raw(analysis::PathSkipName(static_cast<PathSkip>(i)));
    o.Field("\":", c.skipped[i]);
  }
  o.Raw("},\"span_p50_us\":");
  o.Raw(Number(c.span_p50_us, 3, "null"));
  o.Char('}');
}

void PathJsonNode(JsonOutput& o, const GraphStats& g, const NodeStats& n) {
  if (!g.critical_path) return;
  if (!n.critical_path) {
    o.Raw(",\"critical_path\":null");
    return;
  }
  const NodeStats::CriticalPath& c = *n.critical_path;
  o.Raw(",\"critical_path\":{\"share\":");
  o.Raw(Number(c.share, 6, "null"));
  o.Raw(",\"slack_p50_us\":");
  o.Raw(Number(c.slack_p50_us, 3, "null"));
  o.Raw(",\"slack_min_us\":");
  o.Raw(Number(c.slack_min_us, 3, "null"));
  o.Raw(",\"whatif_span_p50_us\":");
  o.Raw(Number(c.whatif_span_p50_us, 3, "null"));
  o.Raw(",\"whatif_gain_us\":");
  o.Raw(Number(c.gain_us, 3, "null"));
  if (c.conditional_node_id != 0) o.Field(",\"conditional_node_id\":", c.conditional_node_id);
  o.Char('}');
}

}  // namespace nodescope::cli
