// Matching a graph's nodes across ranks; spread, straggler and collective waits (rank_stats.h).
#include "analysis/stats/rank_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace nodescope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using NodeRef = std::pair<uint64_t, uint64_t>;  // (graph id, node id)

const NodeSeries* FindSeries(const GraphNodes& g, uint64_t graph_id, uint64_t node_id) {
  auto it = std::lower_bound(g.nodes.begin(), g.nodes.end(), NodeRef{graph_id, node_id},
                             [](const NodeSeries& s, const NodeRef& k) {
                               return NodeRef{s.graph_id, s.node_id} < k;
                             });
  return it != g.nodes.end() && it->graph_id == graph_id && it->node_id == node_id ? &*it : nullptr;
}

// Waits of one collective node: per rank, over the replays compared.
void ComputeWaits(const std::vector<RankInput>& inputs, CrossNode& node, CrossGraph& graph) {
  std::vector<const NodeSeries*> series;
  uint64_t base = UINT64_MAX;
  for (const RankNode& r : node.ranks) {
    series.push_back(FindSeries(*inputs[r.input].nodes, r.graph_id, r.node_id));
    base = std::min(base, inputs[r.input].base_time_ns);
  }
  size_t replays = SIZE_MAX;
  bool differ = false;
  for (const NodeSeries* s : series) {
    if (s == nullptr || s->sampled()) {
      graph.sampled = graph.sampled || (s != nullptr && s->sampled());
      return;  // NaN waits: not comparable replay by replay
    }
    if (replays != SIZE_MAX && s->occurrences.size() != replays) differ = true;
    replays = std::min(replays, s->occurrences.size());
  }
  if (series.size() < 2 || replays == 0 || replays == SIZE_MAX) return;
  graph.replays_differ = graph.replays_differ || differ;
  graph.replays_compared =
      graph.replays_compared == 0 ? replays : std::min<uint64_t>(graph.replays_compared, replays);
  // Each rank's starts on one axis: microseconds after the earliest base.
  std::vector<double> offset_us;
  for (const RankNode& r : node.ranks) {
    offset_us.push_back(static_cast<double>(inputs[r.input].base_time_ns - base) / 1000.0);
  }
  for (RankNode& r : node.ranks) r.wait_total_us = r.wait_max_us = 0;
  for (size_t i = 0; i < replays; ++i) {
    double latest = -std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < series.size(); ++k) {
      latest = std::max(latest, offset_us[k] + series[k]->occurrences[i].start_us);
    }
    for (size_t k = 0; k < series.size(); ++k) {
      const double wait = latest - (offset_us[k] + series[k]->occurrences[i].start_us);
      node.ranks[k].wait_total_us += wait;
      node.ranks[k].wait_max_us = std::max(node.ranks[k].wait_max_us, wait);
    }
  }
  node.most_wait_us = -1;
  for (RankNode& r : node.ranks) {
    r.wait_mean_us = r.wait_total_us / static_cast<double>(replays);
    if (r.wait_mean_us > node.most_wait_us) {
      node.most_wait_us = r.wait_mean_us;
      node.most_waiting_rank = r.rank;
    }
  }
}

void Summarize(CrossNode& node) {
  std::vector<double> means;
  double slowest = -1;
  for (const RankNode& r : node.ranks) {
    means.push_back(r.mean_us);
    if (r.mean_us > slowest) {
      slowest = r.mean_us;
      node.slowest_rank = r.rank;
    }
  }
  std::sort(means.begin(), means.end());
  node.min_mean_us = means.front();
  node.max_mean_us = means.back();
  node.median_mean_us = NearestRankPercentile(means, 50);
}

RankNode FromStats(const NodeStats& s, size_t input, int64_t rank) {
  RankNode r;
  r.input = input;
  r.rank = rank;
  r.graph_id = s.graph_id;
  r.node_id = s.node_id;
  r.replays = s.replays;
  r.mean_us = s.mean_us;
  r.p50_us = s.p50_us;
  r.max_us = s.max_us;
  r.total_us = s.total_us;
  r.wait_mean_us = r.wait_max_us = r.wait_total_us = kNaN;
  return r;
}

// GPU time of a node over every rank where it was matched.
double TotalOverRanks(const CrossNode& node) {
  double total = 0;
  for (const RankNode& r : node.ranks) total += r.total_us;
  return total;
}

// Keeps the `top` nodes of `graph` with the most GPU time (0: all), the straggler's among them
// (when it is above its median at all; else a straggler cut is none).
void KeepHeaviest(CrossGraph& graph, size_t top) {
  if (top == 0 || graph.nodes.size() <= top) return;
  std::vector<size_t> order(graph.nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return TotalOverRanks(graph.nodes[a]) > TotalOverRanks(graph.nodes[b]);
  });
  order.resize(top);
  if (graph.straggler_node && graph.straggler_excess_us > 0 &&
      std::find(order.begin(), order.end(), *graph.straggler_node) == order.end()) {
    order.back() = *graph.straggler_node;
  }
  std::sort(order.begin(), order.end());
  std::vector<CrossNode> kept;
  std::optional<size_t> straggler;
  for (size_t i : order) {
    if (graph.straggler_node == i) straggler = kept.size();
    kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  graph.straggler_node = straggler;
}

}  // namespace

bool IsCollectiveKernel(std::string_view name) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_", "rcclDevKernel_"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  // A demangled name written with its return type: "void ncclKernel_...(...)".
  return name.substr(0, 5) == "void " && IsCollectiveKernel(name.substr(5));
}

std::vector<CrossGraph> CompareRanks(const std::vector<RankInput>& inputs,
                                     const NodeStatsOptions& options) {
  std::vector<CrossGraph> out;
  if (inputs.empty()) return out;
  std::vector<std::vector<GraphStats>> stats;
  NodeStatsOptions all;
  all.critical_path = false;  // not shown across ranks
  for (const RankInput& in : inputs) stats.push_back(ComputeNodeStats(*in.nodes, all));
  // For each other rank: (reference graph, reference node) -> that rank's (graph, node).
  std::vector<std::map<NodeRef, NodeRef>> match(inputs.size());
  std::vector<std::map<uint64_t, uint64_t>> graph_match(inputs.size());
  for (size_t r = 1; r < inputs.size(); ++r) {
    for (const GraphDiff& d : DiffNodeStats(stats[0], stats[r])) {
      if (!d.graph_a || !d.graph_b) continue;
      graph_match[r][*d.graph_a] = *d.graph_b;
      for (const NodeDiff& n : d.nodes) {
        if (n.a && n.b) match[r][{n.a->graph_id, n.a->node_id}] = {n.b->graph_id, n.b->node_id};
      }
    }
  }
  // Each rank's NodeStats by (graph, node).
  std::vector<std::map<NodeRef, const NodeStats*>> by_key(inputs.size());
  for (size_t r = 0; r < inputs.size(); ++r) {
    for (const GraphStats& g : stats[r]) {
      for (const NodeStats& n : g.nodes) by_key[r][{n.graph_id, n.node_id}] = &n;
    }
  }
  for (const GraphStats& g : stats[0]) {
    if (options.graph_id && *options.graph_id != g.graph_id) continue;
    CrossGraph cg;
    cg.graph_id = g.graph_id;
    cg.graph_ids.assign(inputs.size(), 0);
    cg.graph_ids[0] = g.graph_id;
    cg.ranks_matched = 1;
    for (size_t r = 1; r < inputs.size(); ++r) {
      auto it = graph_match[r].find(g.graph_id);
      if (it == graph_match[r].end()) continue;
      cg.graph_ids[r] = it->second;
      ++cg.ranks_matched;
    }
    for (const GraphStats& s : stats[0]) {
      if (s.graph_id == g.graph_id) cg.strings.push_back(s.strings);
    }
    std::vector<const NodeStats*> in_order;
    for (const NodeStats& n : g.nodes) in_order.push_back(&n);
    std::sort(in_order.begin(), in_order.end(),
              [](const NodeStats* a, const NodeStats* b) { return a->node_id < b->node_id; });
    for (const NodeStats* n : in_order) {
      CrossNode node;
      node.node_id = n->node_id;
      node.name = n->name;
      node.scope = n->scope;
      node.collective = IsCollectiveKernel(n->name);
      node.ranks.push_back(FromStats(*n, 0, inputs[0].rank));
      for (size_t r = 1; r < inputs.size(); ++r) {
        auto it = match[r].find({n->graph_id, n->node_id});
        if (it == match[r].end()) continue;
        auto found = by_key[r].find(it->second);
        if (found != by_key[r].end())
          node.ranks.push_back(FromStats(*found->second, r, inputs[r].rank));
      }
      Summarize(node);
      node.most_wait_us = kNaN;
      if (node.collective) ComputeWaits(inputs, node, cg);
      cg.nodes.push_back(std::move(node));
    }
    // The straggler: furthest above its node's median, among the other nodes.
    for (size_t i = 0; i < cg.nodes.size(); ++i) {
      const CrossNode& node = cg.nodes[i];
      if (node.collective || node.ranks.size() < 2) continue;
      for (const RankNode& r : node.ranks) {
        const double excess = r.mean_us - node.median_mean_us;
        if (!cg.straggler_node || excess > cg.straggler_excess_us) {
          cg.straggler_node = i;
          cg.straggler_rank = r.rank;
          cg.straggler_excess_us = excess;
        }
      }
    }
    cg.node_count = cg.nodes.size();
    KeepHeaviest(cg, options.top);
    out.push_back(std::move(cg));
  }
  return out;
}

}  // namespace nodescope::analysis
