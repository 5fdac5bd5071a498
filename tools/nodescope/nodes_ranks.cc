// `nodescope nodes` across ranks: the three renderings (nodes_ranks.h); the loading is
// analysis/stats/rank_traces.h.
#include "nodes_ranks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "analysis/stats/kernel_name.h"
#include "base/terminal_text.h"
#include "export/json_output.h"
#include "nodes_format.h"
#include "nodes_overview.h"

namespace nodescope::cli {
namespace {

using analysis::CrossGraph;
using analysis::CrossNode;
using analysis::GraphNodes;
using analysis::RankInput;
using analysis::RankNode;
using std::to_string;

}  // namespace

std::string AliasedWarning(const analysis::GraphNodes& nodes) {
  if (nodes.aliased_nodes == 0) return "";
  std::string message = std::to_string(nodes.aliased_nodes);
  message += " of ";
  message += std::to_string(nodes.nodes.size());
  message += nodes.nodes.size() == 1 ? " node key is" : " node keys are";
  message +=
      " aliased (events of different names on one key), so their figures mix different "
      "nodes; `nodescope check` lists them";
  return message;
}

std::string LeftOutWarning(const FileLimits& file, size_t max_nodes) {
  if (file.untracked_events == 0) return "";
  return to_string(file.untracked_events) + " keyed events of nodes past the first " +
         to_string(file.nodes_held) + " are left out (at most " + to_string(max_nodes) +
         " distinct nodes are held" +
         (file.processes > 1
              ? " per trace, its " + to_string(file.processes) + " processes together)"
              : ")");
}

namespace {

std::string Rank(int64_t rank) { return rank >= 0 ? "rank " + to_string(rank) : "rank ?"; }
std::string RankNumber(int64_t rank) { return rank >= 0 ? to_string(rank) : ""; }
std::string JsonRank(int64_t rank) { return rank >= 0 ? to_string(rank) : "null"; }

std::string Num(double v, const char* missing) {
  if (!std::isfinite(v)) return missing;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

std::string NodeLabel(uint64_t graph_id, uint64_t node_id) {
  return (node_id >> 32) == graph_id ? to_string(node_id & 0xFFFFFFFFu) : to_string(node_id);
}

std::string Text(const std::vector<RankInput>& inputs, const std::vector<CrossGraph>& graphs,
                 size_t width) {
  std::string out = "ranks:";
  for (const RankInput& in : inputs) out += "  " + Rank(in.rank) + " " + TerminalText(in.source);
  out += "\n";
  for (const CrossGraph& g : graphs) {
    out += "\ngraph " + to_string(g.graph_id) + " on " + to_string(g.ranks_matched) + " of " +
           to_string(inputs.size()) + " ranks";
    std::string others;
    for (size_t r = 1; r < inputs.size(); ++r) {
      if (g.graph_ids[r] != 0 && g.graph_ids[r] != g.graph_id) {
        others += (others.empty() ? " (" : ", ") + Rank(inputs[r].rank) + ": graph " +
                  to_string(g.graph_ids[r]);
      }
    }
    out += others.empty() ? "" : others + ")";
    out += ", " + to_string(g.node_count) + " nodes";
    if (g.nodes.size() < g.node_count) out += " (top " + to_string(g.nodes.size()) + " shown)";
    out += "\n";
    if (g.straggler_node) {
      const CrossNode& n = g.nodes[*g.straggler_node];
      double mean = 0;
      for (const RankNode& r : n.ranks) mean = r.rank == g.straggler_rank ? r.mean_us : mean;
      out += "  straggler      " + Rank(g.straggler_rank) + " at node " +
             NodeLabel(g.graph_id, n.node_id) + " (" +
             TerminalText(analysis::FitKernelName(n.name, 60)) + "): mean " + Duration(mean) +
             ", " + Duration(g.straggler_excess_us) + " above the median of the ranks' means\n";
    }
    for (const CrossNode& n : g.nodes) {
      if (!n.collective || !std::isfinite(n.most_wait_us)) continue;
      out += "  waiting        " + Rank(n.most_waiting_rank) + " at node " +
             NodeLabel(g.graph_id, n.node_id) + " (" +
             TerminalText(analysis::FitKernelName(n.name, 60)) + "): " + Duration(n.most_wait_us) +
             " per replay on average, over " + to_string(g.replays_compared) + " replays\n";
    }
    if (g.replays_differ) {
      out += "  note           the ranks replayed it a different number of times: the first " +
             to_string(g.replays_compared) + " replays are compared\n";
    }
    if (g.sampled) out += "  note           sampled occurrences: no waits computed\n";
    double max_us = 0;
    for (const CrossNode& n : g.nodes) max_us = std::max(max_us, n.max_mean_us);
    const TimeUnit unit = UnitFor(max_us);
    TextTable table({"node", "ranks", "min", "median", "max", "slowest", "wait", "by", "name"}, 8);
    table.SetShortener(8, &analysis::FitKernelName);
    table.UnitRow({"", "", unit.name, unit.name, unit.name, "", unit.name, "", ""});
    for (const CrossNode& n : g.nodes) {
      auto in_unit = [&](double us) { return Fixed4(us / unit.us_per_unit); };
      const bool waits = n.collective && std::isfinite(n.most_wait_us);
      table.Row({NodeLabel(g.graph_id, n.node_id), to_string(n.ranks.size()),
                 in_unit(n.min_mean_us), in_unit(n.median_mean_us), in_unit(n.max_mean_us),
                 n.max_mean_us > n.min_mean_us ? RankNumber(n.slowest_rank) : "-",
                 waits ? in_unit(n.most_wait_us) : "-",
                 waits ? RankNumber(n.most_waiting_rank) : "-",
                 TerminalText(analysis::CappedName(n.name))});
    }
    out += table.Render(2, width);
  }
  return out;
}

constexpr char kCsvHeader[] =
    "graph_id,node_id,rank,source,rank_graph_id,rank_node_id,name,collective,replays,mean_us,"
    "p50_us,max_us,total_us,min_mean_us,median_mean_us,max_mean_us,slowest_rank,wait_mean_us,"
    "wait_max_us,wait_total_us,replays_compared\n";

// One (rank, node) row's fields after the reference's graph and node, for CSV (`csv`) or JSON.
void Row(std::string& out, bool csv, const std::vector<RankInput>& inputs, const CrossGraph& g,
         const CrossNode& n, const RankNode& r) {
  const char* missing = csv ? "" : "null";
  auto text = [&](std::string_view s) {
    if (csv) return CsvField(s);
    std::string quoted;
    JsonOutput::AppendEscaped(s, quoted);
    return quoted;
  };
  const std::string values[] = {
      to_string(g.graph_id),
      to_string(n.node_id),
      r.rank >= 0 ? to_string(r.rank) : missing,
      text(inputs[r.input].source),
      to_string(r.graph_id),
      to_string(r.node_id),
      text(n.name),
      n.collective ? "true" : "false",
      to_string(r.replays),
      Num(r.mean_us, missing),
      Num(r.p50_us, missing),
      Num(r.max_us, missing),
      Num(r.total_us, missing),
      Num(n.min_mean_us, missing),
      Num(n.median_mean_us, missing),
      Num(n.max_mean_us, missing),
      n.slowest_rank >= 0 ? to_string(n.slowest_rank) : missing,
      Num(r.wait_mean_us, missing),
      Num(r.wait_max_us, missing),
      Num(r.wait_total_us, missing),
      to_string(std::isfinite(r.wait_mean_us) ? g.replays_compared : 0),
  };
  std::string_view header(kCsvHeader);
  for (size_t i = 0; i < std::size(values); ++i) {
    const size_t end = header.find_first_of(",\n");
    if (!csv)
      out += std::string(i ? "," : "{") + "\"" + std::string(header.substr(0, end)) + "\":";
    else if (i)
      out += ",";
    out += values[i];
    header.remove_prefix(end + 1);
  }
  out += csv ? "\n" : "}";
}

}  // namespace

std::string RanksOutput(NodesFormat format, const std::vector<RankInput>& inputs,
                        const std::vector<CrossGraph>& graphs, size_t width,
                        const analysis::TraceOverview* overview) {
  if (format == NodesFormat::kText) {
    if (overview == nullptr) return Text(inputs, graphs, width);
    std::string ranks_line;
    std::string rest = Text(inputs, graphs, width);
    const size_t eol = rest.find('\n') + 1;
    ranks_line = rest.substr(0, eol);
    ranks_line += '\n';
    ranks_line += OverviewText(*overview, width);
    ranks_line += rest.substr(eol);
    return ranks_line;
  }
  const bool csv = format == NodesFormat::kCsv;
  std::string out = csv ? kCsvHeader : "{\"ranks\":[";
  if (!csv) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string source;
      JsonOutput::AppendEscaped(inputs[i].source, source);
      out += std::string(i ? "," : "") +
             "{\"rank\":" + (inputs[i].rank >= 0 ? to_string(inputs[i].rank) : "null") +
             ",\"source\":" + source + "}";
    }
    out += "]";
    if (overview != nullptr) out += OverviewJson(*overview);
    out += ",\"graphs\":[";
  }
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const CrossGraph& g = graphs[gi];
    if (!csv) {
      out += std::string(gi ? "," : "") + "{\"graph_id\":" + to_string(g.graph_id) +
             ",\"ranks_matched\":" + to_string(g.ranks_matched) +
             ",\"node_count\":" + to_string(g.node_count) +
             ",\"replays_compared\":" + to_string(g.replays_compared) + ",\"straggler\":";
      if (g.straggler_node) {
        out += "{\"rank\":" + JsonRank(g.straggler_rank) +
               ",\"node_id\":" + to_string(g.nodes[*g.straggler_node].node_id) +
               ",\"excess_us\":" + Num(g.straggler_excess_us, "null") + "}";
      } else {
        out += "null";
      }
      out += ",\"nodes\":[";
    }
    bool first = true;
    for (const CrossNode& n : g.nodes) {
      for (const RankNode& r : n.ranks) {
        if (!csv && !first) out += ",";
        first = false;
        Row(out, csv, inputs, g, n, r);
      }
    }
    if (!csv) out += "]}";
  }
  if (!csv) out += "]}\n";
  return out;
}

}  // namespace nodescope::cli
