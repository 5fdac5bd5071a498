// The text, CSV and JSON renderings of `nodescope nodes` and `nodescope nodes --diff`.
#include "nodes_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>

#include "analysis/stats/kernel_name.h"
#include "base/terminal_text.h"
#include "export/json_output.h"
#include "nodes_critical_path.h"
#include "nodes_format.h"
#include "nodes_overview.h"

namespace nodescope::cli {
namespace {

using analysis::GraphDiff;
using analysis::GraphMatch;
using analysis::GraphStats;
using analysis::NodeDiff;
using analysis::NodeSide;
using analysis::NodeStats;
using std::to_string;

// A name or scope for a table: at most kMaxNameBytes of it, escaped for a terminal.
std::string Cell(std::string_view text) { return TerminalText(analysis::CappedName(text)); }

// The node's ordinal when its id follows the graph id << 32 | ordinal scheme, else the full id.
std::string NodeLabel(uint64_t graph_id, uint64_t node_id) {
  return (node_id >> 32) == graph_id ? to_string(node_id & 0xFFFFFFFFu) : to_string(node_id);
}

std::string Percent(double fraction, bool sign) {
  if (!std::isfinite(fraction)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), sign ? "%+.1f%%" : "%.1f%%", fraction * 100);
  return buf;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return to_string(n) + " " + (n == 1 ? one : many);
}

std::string InUnit(double us, const TimeUnit& unit) { return Fixed4(us / unit.us_per_unit); }

// A number for CSV and JSON: microseconds with three decimals (nanoseconds), fractions with six.
// Not finite: `missing` ("" in CSV, null in JSON).
std::string Number(double v, int decimals, const char* missing) {
  if (!std::isfinite(v)) return missing;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}
std::string CsvUs(double v) { return Number(v, 3, ""); }
std::string CsvFraction(double v) { return Number(v, 6, ""); }
std::string JsonUs(double v) { return Number(v, 3, "null"); }
std::string JsonFraction(double v) { return Number(v, 6, "null"); }

void Label(std::string& out, std::string_view label, const std::string& value) {
  constexpr size_t kLabelWidth = 24;
  out += "  ";
  out += label;
  out.append(kLabelWidth - std::min(kLabelWidth - 1, label.size()), ' ');
  out += value;
  out += '\n';
}

// "2^5" as a number: "32".
std::string SampleRate(unsigned level) {
  return level >= 64 ? "2^" + to_string(level) : to_string(uint64_t{1} << level);
}

std::string GraphSummary(const GraphStats& g) {
  std::string out =
      "graph " + to_string(g.graph_id) + (g.name.empty() ? "" : " (" + g.name + ")") + ": " +
      Plural(g.node_count, "node", "nodes") +
      (g.nodes.size() < g.node_count ? " (top " + to_string(g.nodes.size()) + " shown)" : "") +
      ", " + (g.sampled ? "~" : "") + Plural(g.replays, "replay", "replays") + ", " +
      Duration(g.gpu_total_us) + " GPU time in all\n";
  if (g.sampled) {
    Label(out, "estimated (sampled)",
          "from the " + to_string(g.replays_held) + " replays held, 1 in " +
              SampleRate(g.sample_level) +
              ": the replay count, the per-replay lines below, p50/p95/p99 and drift; replays, "
              "total, mean, max, stddev and share per node are exact");
  }
  Label(out, "GPU time per replay",
        "p50 " + Duration(g.gpu_p50_us) + "   p99 " + Duration(g.gpu_p99_us));
  Label(out, "span per replay",
        "p50 " + Duration(g.span_p50_us) + "   p99 " + Duration(g.span_p99_us));
  char gaps[32];
  std::snprintf(gaps, sizeof(gaps), "%.2f", g.gaps_mean);
  Label(out, "idle gaps per replay",
        "mean " + Duration(g.idle_mean_us) + "   p99 " + Duration(g.idle_p99_us) + "   (" + gaps +
            " gaps per replay)");
  // What ComputeReplays counts: a node starting after every earlier node of its replay ended.
  Label(out, "", "gap = a time in a replay when none of its nodes runs");
  char ratio[32] = "-";
  if (std::isfinite(g.first_replay_outlier)) {
    std::snprintf(ratio, sizeof(ratio), "%.2fx", g.first_replay_outlier);
  }
  Label(out, "first replay",
        Duration(g.first_replay_gpu_us) + " GPU time, " + ratio + " the median");
  if (g.mismatched_nodes > 0) {
    Label(out, "node >> 32 != graph id",
          to_string(g.mismatched_nodes) + " of " + Plural(g.node_count, "node", "nodes") +
              " (shown by their whole ids; see nodescope check)");
  }
  out += PathSummary(g);
  return out;
}

std::string NodeTable(const GraphStats& g, size_t width) {
  // One unit for every duration column, the one that fits the per-replay figures: a total in
  // another unit than the mean beside it reads as the same unit (36.36 ms next to 181.8 us).
  // Totals are then wider (36364 us), the share column giving their weight at a glance.
  double max_each = 0;
  bool any_scope = false;
  for (const NodeStats& n : g.nodes) {
    max_each = std::max(max_each, n.max_us);
    any_scope = any_scope || !n.scope.empty();
  }
  const TimeUnit each = UnitFor(max_each);
  std::vector<std::string> headers = {"node", "replays", "total",  "mean",  "p50",  "p95",
                                      "p99",  "max",     "stddev", "drift", "share"};
  std::vector<std::string> units = {"",        "",        each.name, each.name, each.name,
                                    each.name, each.name, each.name, each.name};
  const bool path = HasPathColumns(g);
  if (path) {
    units.resize(headers.size());
    for (std::string& h : PathHeaders(g)) headers.push_back(std::move(h));
    for (std::string& u : PathUnits(each)) units.push_back(std::move(u));
  }
  const size_t first_left = headers.size();
  if (any_scope) headers.push_back("scope");
  headers.push_back("name");
  TextTable table(std::move(headers), first_left);
  if (any_scope) table.SetShortener(first_left, ShortenPath);
  table.SetShortener(first_left + (any_scope ? 1 : 0), analysis::FitKernelName);
  table.UnitRow(std::move(units));
  for (const NodeStats& n : g.nodes) {
    std::vector<std::string> row = {
        NodeLabel(g.graph_id, n.node_id), to_string(n.replays),   InUnit(n.total_us, each),
        InUnit(n.mean_us, each),          InUnit(n.p50_us, each), InUnit(n.p95_us, each),
        InUnit(n.p99_us, each),           InUnit(n.max_us, each), InUnit(n.stddev_us, each),
        Percent(n.drift, true),           Percent(n.share, false)};
    if (path) {
      for (std::string& cell : PathCells(n, each)) row.push_back(std::move(cell));
    }
    if (any_scope) row.push_back(Cell(n.scope));
    row.push_back(Cell(n.name));
    table.Row(std::move(row));
  }
  return table.Render(2, width);
}

std::string CsvGraph(const GraphStats& g) {
  std::string out;
  for (const NodeStats& n : g.nodes) {
    const std::string fields[] = {
        to_string(g.graph_id), to_string(n.node_id), CsvField(n.name),    CsvField(n.cat),
        CsvField(n.scope),     to_string(n.replays), CsvUs(n.total_us),   CsvUs(n.mean_us),
        CsvUs(n.p50_us),       CsvUs(n.p95_us),      CsvUs(n.p99_us),     CsvUs(n.max_us),
        CsvUs(n.stddev_us),    CsvFraction(n.drift), CsvFraction(n.share)};
    for (size_t i = 0; i < std::size(fields); ++i) out += (i ? "," : "") + fields[i];
    out += ",node,";
    out += CsvField(g.name);
    out += PathCsvFields(g, n);
    out += "\r\n";
  }
  return out;
}

std::string JsonGraph(const GraphStats& g, bool first) {
  StringJsonOutput o;
  o.Raw(first ? "{\"graph_id\":" : ",{\"graph_id\":");
  o.Uint(g.graph_id);
  o.Field(",\"replays\":", g.replays);
  o.Field(",\"node_count\":", g.node_count);
  o.Field(",\"node_graph_mismatches\":", g.mismatched_nodes);
  o.Raw(",\"gpu_total_us\":" + JsonUs(g.gpu_total_us));
  o.Raw(",\"gpu_per_replay_us\":{\"p50\":" + JsonUs(g.gpu_p50_us) +
        ",\"p99\":" + JsonUs(g.gpu_p99_us) + "}");
  o.Raw(",\"span_per_replay_us\":{\"p50\":" + JsonUs(g.span_p50_us) +
        ",\"p99\":" + JsonUs(g.span_p99_us) + "}");
  o.Raw(",\"idle_per_replay_us\":{\"mean\":" + JsonUs(g.idle_mean_us) +
        ",\"p99\":" + JsonUs(g.idle_p99_us) + "}");
  o.Raw(",\"gaps_per_replay\":" + JsonFraction(g.gaps_mean));
  o.Raw(",\"first_replay_gpu_us\":" + JsonUs(g.first_replay_gpu_us));
  o.Raw(",\"first_replay_outlier\":" + JsonFraction(g.first_replay_outlier));
  if (g.sampled) {
    // Which figures are estimated, and from how much.
    o.Field(",\"sampled\":{\"replays_held\":", g.replays_held);
    o.Raw(",\"one_replay_in\":" + SampleRate(g.sample_level));
    o.Raw(
        ",\"estimated\":[\"replays\",\"gpu_per_replay_us\",\"span_per_replay_us\","
        "\"idle_per_replay_us\",\"gaps_per_replay\",\"first_replay_gpu_us\","
        "\"first_replay_outlier\",\"p50_us\",\"p95_us\",\"p99_us\",\"drift\"]}");
  }
  if (!g.name.empty()) o.StringField(",\"name\":", g.name);
  PathJsonGraph(o, g);
  o.Raw(",\"nodes\":[");
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const NodeStats& n = g.nodes[k];
    o.Raw(k ? ",{\"node_id\":" : "{\"node_id\":");
    o.Uint(n.node_id);
    o.StringField(",\"name\":", n.name);
    o.StringField(",\"cat\":", n.cat);
    o.StringField(",\"scope\":", n.scope);
    o.Field(",\"replays\":", n.replays);
    if (n.samples < n.replays) o.Field(",\"samples\":", n.samples);
    o.Raw(",\"total_us\":" + JsonUs(n.total_us) + ",\"mean_us\":" + JsonUs(n.mean_us) +
          ",\"p50_us\":" + JsonUs(n.p50_us) + ",\"p95_us\":" + JsonUs(n.p95_us) +
          ",\"p99_us\":" + JsonUs(n.p99_us) + ",\"max_us\":" + JsonUs(n.max_us) +
          ",\"stddev_us\":" + JsonUs(n.stddev_us) + ",\"drift\":" + JsonFraction(n.drift) +
          ",\"share\":" + JsonFraction(n.share));
    PathJsonNode(o, g, n);
    o.Char('}');
  }
  o.Raw("]}");
  return o.str();
}

}  // namespace

std::string NodesBegin(NodesFormat format, const std::string& path, const LeftOut& left_out,
                       const analysis::TraceOverview* overview, size_t width) {
  if (format == NodesFormat::kCsv) {
    std::string out = kNodesCsvHeader;
    if (left_out.dags) {  // the critical-path columns after the others; empty on overview rows
      out.insert(out.size() - 2, PathCsvHeader());
      std::string rows = overview ? OverviewCsv(*overview) : std::string();
      for (size_t at = rows.find("\r\n"); at != std::string::npos; at = rows.find("\r\n", at)) {
        rows.insert(at, ",,,,,");
        at += 7;
      }
      return out + rows;
    }
    if (overview) out += OverviewCsv(*overview);
    return out;
  }
  if (format == NodesFormat::kJson) {
    StringJsonOutput o;
    o.StringField("{\"trace\":", path);
    if (left_out.events > 0) {
      o.Field(",\"untracked_events\":", left_out.events);
      o.Field(",\"max_nodes\":", left_out.max_nodes);
    }
    if (left_out.sampled_every > 1) {
      o.Field(",\"launch_sampling\":{\"every\":", left_out.sampled_every);
      if (left_out.sampled_burst > 1) o.Field(",\"burst\":", left_out.sampled_burst);
      o.Field(",\"graph_launches\":", left_out.graph_launches);
      o.Field(",\"graph_launches_traced\":", left_out.graph_launches_traced);
      o.Char('}');
    }
    if (overview) o.Raw(OverviewJson(*overview));
    o.Raw(",\"graphs\":[");
    return o.str();
  }
  std::string out = TerminalText(path) + "\n";
  if (left_out.events > 0) {
    out += "left out: " + Plural(left_out.events, "keyed event", "keyed events") +
           " of nodes past the first " + to_string(left_out.max_nodes) +
           " (the limit on distinct nodes)\n";
  }
  if (left_out.sampled_every > 1) {
    out += "sampled: about 1 launch in " + to_string(left_out.sampled_every) + " traced (" +
           to_string(left_out.graph_launches_traced) + " of " +
           Plural(left_out.graph_launches, "graph launch", "graph launches") +
           (left_out.sampled_burst > 1
                ? ", in bursts of " + to_string(left_out.sampled_burst) + " consecutive launches"
                : std::string()) +
           "); replays and totals count traced replays, means and percentiles estimate all\n";
  }
  if (overview) out += "\n" + OverviewText(*overview, width);
  return out;
}

std::string NodesGraph(NodesFormat format, const GraphStats& g, bool first, size_t width) {
  if (format == NodesFormat::kCsv) return CsvGraph(g);
  if (format == NodesFormat::kJson) return JsonGraph(g, first);
  return "\n" + GraphSummary(g) + "\n" + NodeTable(g, width);
}

std::string NodesEnd(NodesFormat format) { return format == NodesFormat::kJson ? "]}\n" : ""; }

namespace {

std::string Whole(NodesFormat format, const std::string& path,
                  const std::vector<GraphStats>& graphs, size_t width, const LeftOut& left_out) {
  std::string out = NodesBegin(format, path, left_out);
  for (size_t i = 0; i < graphs.size(); ++i) out += NodesGraph(format, graphs[i], i == 0, width);
  return out + NodesEnd(format);
}

}  // namespace

std::string NodesText(const std::string& path, const std::vector<GraphStats>& graphs, size_t width,
                      const LeftOut& left_out) {
  return Whole(NodesFormat::kText, path, graphs, width, left_out);
}

std::string NodesCsv(const std::vector<GraphStats>& graphs) {
  LeftOut left_out;
  left_out.dags = !graphs.empty() && graphs[0].critical_path.has_value();
  return Whole(NodesFormat::kCsv, "", graphs, 0, left_out);
}

std::string NodesJson(const std::string& path, const std::vector<GraphStats>& graphs,
                      const LeftOut& left_out) {
  return Whole(NodesFormat::kJson, path, graphs, 0, left_out);
}

// ---- --diff

namespace {

std::string DiffHeader(const GraphDiff& d) {
  const std::string a = d.graph_a ? to_string(*d.graph_a) : "";
  const std::string b = d.graph_b ? to_string(*d.graph_b) : "";
  switch (d.match) {
    case GraphMatch::kSameIdSameNodes:
      return "graph " + a + ": the same nodes in A and B";
    case GraphMatch::kSameNodes:
      return "graph " + a + " (A) = graph " + b + " (B): the same nodes, other graph ids";
    case GraphMatch::kSameIdOtherNodes:
      return "graph " + a + ": other nodes in B, aligned by name and scope";
    case GraphMatch::kOnlyA:
      return "graph " + a + ": only in A (" + Plural(d.node_count_a, "node", "nodes") + ", " +
             Plural(d.replays_a, "replay", "replays") + ")";
    case GraphMatch::kOnlyB:
      return "graph " + b + ": only in B (" + Plural(d.node_count_b, "node", "nodes") + ", " +
             Plural(d.replays_b, "replay", "replays") + ")";
  }
  return "";
}

std::string DiffNodeLabel(const NodeDiff& n) {
  if (n.fused()) {
    return NodeLabel(n.fused_a.front().graph_id, n.fused_a.front().node_id) + ".." +
           NodeLabel(n.fused_a.back().graph_id, n.fused_a.back().node_id) + "/" +
           NodeLabel(n.b->graph_id, n.b->node_id);
  }
  std::string a = n.a ? NodeLabel(n.a->graph_id, n.a->node_id) : "";
  std::string b = n.b ? NodeLabel(n.b->graph_id, n.b->node_id) : "";
  if (!n.a) return b;
  return !n.b || a == b ? a : a + "/" + b;
}

std::string DiffName(const NodeDiff& n) {
  if (n.fused()) {
    std::string names;
    for (const NodeSide& f : n.fused_a) names += (names.empty() ? "" : " + ") + Cell(f.name);
    return names + " -> " + Cell(n.b->name);
  }
  if (n.a && n.b && n.a->name != n.b->name) {
    return Cell(n.a->name) + " -> " + Cell(n.b->name);
  }
  return Cell(n.a ? n.a->name : n.b->name);
}

// A diff's name cell, "A -> B" when the names differ (DiffName), each side fitted as a kernel
// name into its half.
std::string FitDiffName(std::string_view cell, size_t width) {
  int depth = 0;
  for (size_t i = 0; i + 4 <= cell.size(); ++i) {
    if (cell[i] == '(' || cell[i] == '<') ++depth;
    if ((cell[i] == ')' || cell[i] == '>') && depth > 0) --depth;
    if (depth == 0 && cell.substr(i, 4) == " -> ") {
      if (width == 0 || DisplayWidth(cell) <= width) return std::string(cell);
      const size_t side = width > 4 ? (width - 4) / 2 : 1;
      return analysis::FitKernelName(cell.substr(0, i), side) + " -> " +
             analysis::FitKernelName(cell.substr(i + 4), width > 4 + side ? width - 4 - side : 1);
    }
  }
  return analysis::FitKernelName(cell, width);
}

// The mean of A's side: the node's, or the sum of the nodes a fusion took the place of.
std::optional<double> MeanA(const NodeDiff& n) {
  if (n.a) return n.a->mean_us;
  if (!n.fused()) return std::nullopt;
  double sum = 0;
  for (const NodeSide& f : n.fused_a) sum += f.mean_us;
  return sum;
}

// A's scope and B's, one when they agree ("layer0", "layer0 -> layer1").
std::string DiffScope(const NodeDiff& n) {
  const std::string_view a = n.a ? n.a->scope : n.fused() ? n.fused_a.front().scope : "";
  const std::string_view b = n.b ? n.b->scope : "";
  if (!n.b || a == b) return Cell(a);
  if (!n.a && !n.fused()) return Cell(b);
  return Cell(a) + " -> " + Cell(b);
}

std::string DiffTable(const GraphDiff& d, size_t width) {
  double max_mean = 0;
  bool scopes = false;
  for (const NodeDiff& n : d.nodes) {
    max_mean = std::max(max_mean, MeanA(n).value_or(0));
    if (n.b) max_mean = std::max(max_mean, n.b->mean_us);
    scopes = scopes || (n.a && !n.a->scope.empty()) || (n.b && !n.b->scope.empty());
  }
  const TimeUnit unit = UnitFor(max_mean);
  // The scope column only where the traces have capture-time ranges.
  std::vector<std::string> heads = {"node", "mean A", "mean B", "delta", "delta"};
  if (scopes) heads.push_back("scope");
  heads.push_back("name");
  TextTable table(heads, heads.size() - 1);
  table.SetShortener(heads.size() - 1, FitDiffName);
  table.UnitRow({"", unit.name, unit.name, unit.name});
  for (const NodeDiff& n : d.nodes) {
    std::string delta = n.a && n.b  ? Percent(n.delta_fraction, true)
                        : n.fused() ? "fused " + to_string(n.fused_a.size())
                        : n.a       ? "only A"
                                    : "only B";
    const std::optional<double> mean_a = MeanA(n);
    std::vector<std::string> row = {DiffNodeLabel(n), mean_a ? InUnit(*mean_a, unit) : "-",
                                    n.b ? InUnit(n.b->mean_us, unit) : "-",
                                    InUnit(n.delta_us, unit), delta};
    if (scopes) row.push_back(DiffScope(n));
    row.push_back(DiffName(n));
    table.Row(row);
  }
  return table.Render(2, width);
}

std::string OptionalUint(const std::optional<uint64_t>& v, const char* missing) {
  return v ? to_string(*v) : missing;
}

// "node_id_a":..,"name_a":..,"replays_a":..,"mean_a_us":.. with nulls for a missing side.
void WriteSide(JsonOutput& o, const std::optional<NodeSide>& side, const std::string& suffix) {
  o.Raw("\"node_id" + suffix + "\":" + (side ? to_string(side->node_id) : "null"));
  o.Raw(",\"name" + suffix + "\":");
  if (side) {
    o.String(side->name);
  } else {
    o.Raw("null");
  }
  o.Raw(",\"scope" + suffix + "\":");
  if (side) {
    o.String(side->scope);
  } else {
    o.Raw("null");
  }
  o.Raw(",\"replays" + suffix + "\":" + (side ? to_string(side->replays) : "null"));
  o.Raw(",\"mean" + suffix + "_us\":" + (side ? JsonUs(side->mean_us) : "null"));
}

}  // namespace

namespace {

std::string DiffTextGraph(const GraphDiff& d, size_t width) {
  std::string out;
  out += "\n" + DiffHeader(d) + "\n";
  if (d.graph_a && d.graph_b) {
    size_t fused_a = 0;
    for (const NodeDiff& n : d.nodes) fused_a += n.fused_a.size();
    const size_t only_a =
        d.node_count_a - d.matched - std::min(fused_a, d.node_count_a - d.matched);
    const size_t only_b =
        d.node_count_b - d.matched - std::min(d.fused, d.node_count_b - d.matched);
    Label(out, "replays", "A " + to_string(d.replays_a) + "   B " + to_string(d.replays_b));
    Label(out, "GPU time per replay",
          "p50 A " + Duration(d.gpu_p50_a_us) + "   B " + Duration(d.gpu_p50_b_us) + "   (" +
              Percent(d.gpu_p50_a_us > 0 ? d.gpu_p50_b_us / d.gpu_p50_a_us - 1 : NAN, true) + ")");
    Label(out, "nodes",
          to_string(d.matched) + " matched, " +
              (d.fused > 0 ? to_string(d.fused) + " fused (from " + to_string(fused_a) + " of A), "
                           : std::string()) +
              to_string(only_a) + " only in A, " + to_string(only_b) + " only in B" +
              (d.nodes.size() < d.matched + d.fused + only_a + only_b ? " (top rows shown)" : ""));
  }
  out += "\n" + DiffTable(d, width);
  return out;
}

// A fusion's node ids of A, separated by `sep` (empty for other rows).
std::string FusedIds(const NodeDiff& n, const char* sep = ";") {
  std::string ids;
  for (const NodeSide& f : n.fused_a) {
    if (!ids.empty()) ids += sep;
    ids += to_string(f.node_id);
  }
  return ids;
}

std::string DiffCsvGraph(const GraphDiff& d) {
  std::string out;
  for (const NodeDiff& n : d.nodes) {
    const std::optional<NodeSide>& a = n.a;
    const std::optional<NodeSide>& b = n.b;
    const std::string fields[] = {GraphMatchName(d.match),        OptionalUint(d.graph_a, ""),
                                  a ? to_string(a->node_id) : "", OptionalUint(d.graph_b, ""),
                                  b ? to_string(b->node_id) : "", a ? CsvField(a->name) : "",
                                  b ? CsvField(b->name) : "",     a ? to_string(a->replays) : "",
                                  b ? to_string(b->replays) : "", a ? CsvUs(a->mean_us) : "",
                                  b ? CsvUs(b->mean_us) : "",     CsvUs(n.delta_us),
                                  CsvFraction(n.delta_fraction),  a ? CsvField(a->scope) : "",
                                  b ? CsvField(b->scope) : "",    FusedIds(n)};
    for (size_t i = 0; i < std::size(fields); ++i) out += (i ? "," : "") + fields[i];
    out += "\r\n";
  }
  return out;
}

std::string DiffJsonGraph(const GraphDiff& d, bool first) {
  StringJsonOutput o;
  o.Raw(first ? "{\"match\":" : ",{\"match\":");
  o.String(GraphMatchName(d.match));
  o.Raw(",\"graph_id_a\":" + OptionalUint(d.graph_a, "null") +
        ",\"graph_id_b\":" + OptionalUint(d.graph_b, "null"));
  o.Raw(",\"replays_a\":" + to_string(d.replays_a) + ",\"replays_b\":" + to_string(d.replays_b));
  o.Raw(",\"gpu_per_replay_p50_us_a\":" + JsonUs(d.gpu_p50_a_us) +
        ",\"gpu_per_replay_p50_us_b\":" + JsonUs(d.gpu_p50_b_us));
  o.Raw(",\"node_count_a\":" + to_string(d.node_count_a) +
        ",\"node_count_b\":" + to_string(d.node_count_b) + ",\"matched\":" + to_string(d.matched) +
        ",\"fused\":" + to_string(d.fused) + ",\"nodes\":[");
  for (size_t k = 0; k < d.nodes.size(); ++k) {
    const NodeDiff& n = d.nodes[k];
    o.Raw(k ? ",{" : "{");
    WriteSide(o, n.a, "_a");
    o.Char(',');
    WriteSide(o, n.b, "_b");
    o.Raw(",\"fused_node_ids_a\":[" + FusedIds(n, ",") + "]");
    o.Raw(",\"delta_us\":" + JsonUs(n.delta_us) +
          ",\"delta_fraction\":" + JsonFraction(n.delta_fraction) + "}");
  }
  o.Raw("]}");
  return o.str();
}

}  // namespace

std::string DiffBegin(NodesFormat format, const std::string& path_a, const std::string& path_b) {
  if (format == NodesFormat::kCsv) {
    return "graph_match,graph_id_a,node_id_a,graph_id_b,node_id_b,name_a,name_b,replays_a,"
           "replays_b,mean_a_us,mean_b_us,delta_us,delta_fraction,scope_a,scope_b,"
           "fused_node_ids_a\r\n";
  }
  if (format == NodesFormat::kJson) {
    StringJsonOutput o;
    o.StringField("{\"trace_a\":", path_a);
    o.StringField(",\"trace_b\":", path_b);
    o.Raw(",\"graphs\":[");
    return o.str();
  }
  return "A: " + TerminalText(path_a) + "\nB: " + TerminalText(path_b) + "\n";
}

std::string DiffGraph(NodesFormat format, const GraphDiff& graph, bool first, size_t width) {
  if (format == NodesFormat::kCsv) return DiffCsvGraph(graph);
  if (format == NodesFormat::kJson) return DiffJsonGraph(graph, first);
  return DiffTextGraph(graph, width);
}

namespace {

std::string WholeDiff(NodesFormat format, const std::string& path_a, const std::string& path_b,
                      const std::vector<GraphDiff>& graphs, size_t width) {
  std::string out = DiffBegin(format, path_a, path_b);
  for (size_t i = 0; i < graphs.size(); ++i) out += DiffGraph(format, graphs[i], i == 0, width);
  return out + NodesEnd(format);
}

}  // namespace

std::string DiffText(const std::string& path_a, const std::string& path_b,
                     const std::vector<GraphDiff>& graphs, size_t width) {
  return WholeDiff(NodesFormat::kText, path_a, path_b, graphs, width);
}

std::string DiffCsv(const std::vector<GraphDiff>& graphs) {
  return WholeDiff(NodesFormat::kCsv, "", "", graphs, 0);
}

std::string DiffJson(const std::string& path_a, const std::string& path_b,
                     const std::vector<GraphDiff>& graphs) {
  return WholeDiff(NodesFormat::kJson, path_a, path_b, graphs, 0);
}

}  // namespace nodescope::cli
