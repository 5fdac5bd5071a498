#include "nodes_overview.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "analysis/stats/kernel_name.h"
#include "base/terminal_text.h"
#include "export/json_output.h"
#include "nodes_format.h"

namespace nodescope::cli {
namespace {

using analysis::OverviewLine;
using analysis::TraceOverview;
using std::to_string;

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", fraction * 100);
  return buf;
}

std::string Number(double v, int decimals, const char* missing) {
  if (!std::isfinite(v)) return missing;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// What a line is: "graph", or the eager work's kind ("kernel", "memcpy", "memset"), "other".
const char* What(const OverviewLine& l) {
  switch (l.kind) {
    case OverviewLine::Kind::kGraph:
      return "graph";
    case OverviewLine::Kind::kEagerOther:
      return "other";
    case OverviewLine::Kind::kEager:
      break;
  }
  if (l.cat == "gpu_memcpy") return "memcpy";
  if (l.cat == "gpu_memset") return "memset";
  return "kernel";
}

const char* RowKind(OverviewLine::Kind k) {
  switch (k) {
    case OverviewLine::Kind::kGraph:
      return "graph";
    case OverviewLine::Kind::kEager:
      return "eager";
    case OverviewLine::Kind::kEagerOther:
      return "eager_other";
  }
  return "?";
}

std::string Name(const OverviewLine& l, const TraceOverview& o) {
  if (l.kind == OverviewLine::Kind::kEagerOther) {
    std::string out = "(names past the ";
    out += to_string(o.eager_names_limit);
    out += " held)";
    return out;
  }
  return TerminalText(analysis::CappedName(l.name));
}

}  // namespace

const char kNodesCsvHeader[] =
    "graph_id,node_id,name,cat,scope,replays,total_us,mean_us,p50_us,p95_us,p99_us,max_us,"
    "stddev_us,drift,share,row,graph_name\r\n";

std::string OverviewText(const TraceOverview& o, size_t width) {
  const std::string graphs = to_string(o.graph_count) + (o.graph_count == 1 ? " graph" : " graphs");
  const std::string launches =
      to_string(o.eager_events) + (o.eager_events == 1 ? " launch" : " launches");
  auto share = [&](double us) { return Percent(o.gpu_total_us > 0 ? us / o.gpu_total_us : NAN); };
  std::string out = "GPU time ";
  out += Duration(o.gpu_total_us);
  out += ": " + Duration(o.graphs_us) + " (" + share(o.graphs_us) + ") in " + graphs + ", ";
  if (o.eager_events == 0) {
    out += "none outside graphs\n\n";
  } else {
    out +=
        Duration(o.eager_us) + " (" + share(o.eager_us) + ") outside graphs (" + launches + ")\n\n";
  }
  // One unit for the table, the one that fits the per-replay and per-launch figures (as the
  // node tables choose theirs); totals are then wide, the share giving their weight.
  double max_each = 0;
  for (const OverviewLine& l : o.lines) {
    for (double v : {l.mean_us, l.p99_us, l.max_us}) {
      if (std::isfinite(v)) max_each = std::max(max_each, v);
    }
  }
  const TimeUnit unit = UnitFor(max_each);
  auto in_unit = [&](double us) { return Fixed4(us / unit.us_per_unit); };
  TextTable table({"share", "total", "count", "mean", "p50", "p99", "graph", "what", "name"}, 7);
  table.SetShortener(8, analysis::FitKernelName);
  table.UnitRow({"", unit.name, "", unit.name, unit.name, unit.name, "", "", ""});
  for (const OverviewLine& l : o.lines) {
    const bool graph = l.kind == OverviewLine::Kind::kGraph;
    std::string count = graph && l.sampled ? "~" : "";
    count += to_string(l.count);
    table.Row({Percent(l.share), in_unit(l.total_us), count, in_unit(l.mean_us), in_unit(l.p50_us),
               in_unit(l.p99_us), graph ? to_string(l.graph_id) : "-", What(l), Name(l, o)});
  }
  out += table.Render(2, width);
  if (o.lines_left_out > 0) {
    out += "  (";
    out += to_string(o.lines_left_out) + " more lines, " + share(o.left_out_us) +
           " of GPU time, not shown: --top 0 shows every line)\n";
  }
  out += "  count: replays of a graph (p50/p99: GPU time per replay), launches outside graphs\n";
  return out;
}

std::string OverviewCsv(const TraceOverview& o) {
  std::string out;
  for (const OverviewLine& l : o.lines) {
    const bool graph = l.kind == OverviewLine::Kind::kGraph;
    const std::string fields[] = {graph ? to_string(l.graph_id) : "",
                                  "",
                                  graph ? "" : CsvField(l.name),
                                  CsvField(l.cat),
                                  "",
                                  to_string(l.count),
                                  Number(l.total_us, 3, ""),
                                  Number(l.mean_us, 3, ""),
                                  Number(l.p50_us, 3, ""),
                                  "",
                                  Number(l.p99_us, 3, ""),
                                  Number(l.max_us, 3, ""),
                                  "",
                                  "",
                                  Number(l.share, 6, ""),
                                  RowKind(l.kind),
                                  graph ? CsvField(l.name) : ""};
    for (size_t i = 0; i < std::size(fields); ++i) {
      if (i > 0) out += ',';
      out += fields[i];
    }
    out += "\r\n";
  }
  return out;
}

std::string OverviewJson(const TraceOverview& o) {
  StringJsonOutput j;
  j.Raw(",\"overview\":{\"gpu_total_us\":" + Number(o.gpu_total_us, 3, "null"));
  j.Raw(",\"graphs_us\":" + Number(o.graphs_us, 3, "null"));
  j.Raw(",\"eager_us\":" + Number(o.eager_us, 3, "null"));
  j.Field(",\"graph_count\":", o.graph_count);
  j.Field(",\"eager_launches\":", o.eager_events);
  j.Field(",\"lines_left_out\":", o.lines_left_out);
  j.Raw(",\"left_out_us\":" + Number(o.left_out_us, 3, "null"));
  j.Raw(",\"lines\":[");
  for (size_t i = 0; i < o.lines.size(); ++i) {
    const OverviewLine& l = o.lines[i];
    j.Raw(i ? ",{\"kind\":" : "{\"kind\":");
    j.String(RowKind(l.kind));
    if (l.kind == OverviewLine::Kind::kGraph) {
      j.Field(",\"graph_id\":", l.graph_id);
      j.StringField(",\"name\":", l.name);
      j.Field(",\"node_count\":", l.node_count);
      j.Raw(l.sampled ? ",\"sampled\":true" : ",\"sampled\":false");
    } else if (l.kind == OverviewLine::Kind::kEager) {
      j.StringField(",\"name\":", l.name);
      j.StringField(",\"cat\":", l.cat);
    }
    j.Field(",\"count\":", l.count);
    j.Raw(",\"total_us\":" + Number(l.total_us, 3, "null"));
    j.Raw(",\"share\":" + Number(l.share, 6, "null"));
    j.Raw(",\"mean_us\":" + Number(l.mean_us, 3, "null"));
    if (l.kind == OverviewLine::Kind::kGraph) {
      j.Raw(",\"gpu_per_replay_us\":{\"p50\":" + Number(l.p50_us, 3, "null") +
            ",\"p99\":" + Number(l.p99_us, 3, "null") + "}}");
    } else {
      j.Raw(",\"max_us\":" + Number(l.max_us, 3, "null") + "}");
    }
  }
  j.Raw("]}");
  return j.str();
}

}  // namespace nodescope::cli
