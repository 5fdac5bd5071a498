// What a plot draws, by weight: the graphs with the most GPU time as panels (their heaviest nodes
// within the picture's node cap), the graphs that ran once as rows of one table, and the account
// of what is left out.
#include <algorithm>
#include <map>

#include "analysis/plot/plot_panel.h"

namespace nodescope::analysis::plot {
namespace {

std::string GraphList(const std::vector<uint64_t>& graphs) {
  std::string out;
  for (size_t i = 0; i < graphs.size() && i < 10; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(graphs[i]);
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

// A graph with the nodes the options select from it.
struct Candidate {
  uint64_t graph_id = 0;
  size_t graph_nodes = 0;
  std::vector<const NodeSeries*> nodes;  // in node-id order
  double gpu_us = 0;
  bool once = true;  // every node ran once
};

bool Heavier(const NodeSeries* a, const NodeSeries* b) {
  if (a->durations.sum != b->durations.sum) return a->durations.sum > b->durations.sum;
  return a->node_id < b->node_id;
}

}  // namespace

StatusOr<Selection> SelectPlot(const GraphNodes& trace, const PlotOptions& options) {
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
  // A graph or nodes named: each is a panel, whatever its replays. Graphs that ran once share a
  // table when there are several.
  const bool named = options.graph_id.has_value() || !wanted.empty();
  size_t once = 0;

  Selection s;
  std::vector<Candidate> candidates;
  for (const auto& [graph, nodes] : by_graph) {
    if (options.graph_id && graph != *options.graph_id) continue;
    Candidate c;
    c.graph_id = graph;
    c.graph_nodes = nodes.size();
    for (const NodeSeries* node : nodes) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), node->node_id) == wanted.end())
        continue;
      c.nodes.push_back(node);
      c.gpu_us += node->durations.sum;
      c.once = c.once && node->count() <= 1;
    }
    if (c.nodes.empty()) continue;
    once += c.once ? 1 : 0;
    s.left_out.graphs_total += 1;
    s.left_out.nodes_total += c.nodes.size();
    s.left_out.gpu_us_total += c.gpu_us;
    candidates.push_back(std::move(c));
  }
  // Heaviest first; ties by graph id, so that the same trace gives the same picture.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.gpu_us > b.gpu_us; });

  auto leave_out = [&](const Candidate& c) {
    s.left_out.graphs += 1;
    s.left_out.nodes += c.nodes.size();
    s.left_out.gpu_us += c.gpu_us;
  };
  size_t drawn = 0;  // nodes in panels
  s.one_shots.total_gpu_us = s.left_out.gpu_us_total;
  for (Candidate& c : candidates) {
    if (c.once && !named && once > 1) {
      OneShotTable& table = s.one_shots;
      table.graphs += 1;
      table.gpu_us += c.gpu_us;
      if (table.rows.size() >= options.max_one_shot_rows) {
        leave_out(c);
        continue;
      }
      table.rows.push_back({c.graph_id, c.nodes.size(), c.gpu_us,
                            *std::min_element(c.nodes.begin(), c.nodes.end(), Heavier)});
      continue;
    }
    if (s.panels.size() >= options.max_graphs || drawn >= options.max_nodes) {
      leave_out(c);
      continue;
    }
    Panel panel;
    panel.graph_id = c.graph_id;
    panel.graph_nodes = c.graph_nodes;
    panel.graph_gpu_us = c.gpu_us;
    panel.total_gpu_us = s.left_out.gpu_us_total;
    panel.share = candidates.size() > 1;
    panel.nodes = c.nodes;
    if (panel.nodes.size() > options.max_nodes - drawn) {  // the heaviest, in node-id order
      std::stable_sort(panel.nodes.begin(), panel.nodes.end(), Heavier);
      for (size_t i = options.max_nodes - drawn; i < panel.nodes.size(); ++i) {
        s.left_out.nodes += 1;
        s.left_out.nodes_cut += 1;
        s.left_out.gpu_us += panel.nodes[i]->durations.sum;
      }
      panel.nodes.resize(options.max_nodes - drawn);
      std::stable_sort(
          panel.nodes.begin(), panel.nodes.end(),
          [](const NodeSeries* a, const NodeSeries* b) { return a->node_id < b->node_id; });
    }
    drawn += panel.nodes.size();
    for (const NodeSeries* node : panel.nodes) panel.gpu_us += node->durations.sum;
    panel.min_replays = panel.nodes[0]->occurrences.size();
    for (const NodeSeries* node : panel.nodes) {
      panel.replays = std::max(panel.replays, node->occurrences.size());
      panel.min_replays = std::min(panel.min_replays, node->occurrences.size());
    }
    panel.index = s.panels.size();
    panel.width = options.width;
    s.panels.push_back(std::move(panel));
  }
  return s;
}

}  // namespace nodescope::analysis::plot
