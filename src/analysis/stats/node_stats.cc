// Per-node and per-graph cost across replays, and the node-by-node comparison of two traces.
#include "analysis/stats/node_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <utility>

#include "analysis/stats/node_align.h"
#include "analysis/stats/replay_stats.h"

namespace nodescope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double AsDouble(size_t n) { return static_cast<double>(n); }

double MeanOf(const std::vector<double>& v, size_t begin, size_t end) {
  double sum = 0;
  for (size_t i = begin; i < end; ++i) sum += v[i];
  return sum / AsDouble(end - begin);
}

// `durations`: scratch, reused from node to node.
NodeStats ComputeNode(const NodeSeries& s, std::vector<double>& durations) {
  NodeStats n;
  n.graph_id = s.graph_id;
  n.node_id = s.node_id;
  n.name = s.name;
  n.cat = s.cat;
  n.scope = s.scope;
  n.drift = kNaN;
  durations.clear();
  durations.reserve(s.occurrences.size());
  for (const NodeOccurrence& o : s.occurrences) durations.push_back(o.dur_us);
  const size_t count = durations.size();
  n.replays = s.sampled() ? s.count() : count;
  n.samples = count;
  n.min_us = s.durations.min;
  if (s.sampled()) {
    // Exact over every occurrence, from the streaming figures.
    n.total_us = s.durations.sum;
    n.mean_us = n.total_us / AsDouble(s.count());
    n.stddev_us = s.durations.PopulationStddev();
    n.max_us = s.durations.max;
    n.p50_us = n.p95_us = n.p99_us = kNaN;
    if (count == 0) return n;
  } else {
    if (count == 0) return n;
    for (double d : durations) n.total_us += d;
    n.mean_us = n.total_us / AsDouble(count);
    double squares = 0;
    for (double d : durations) squares += (d - n.mean_us) * (d - n.mean_us);
    n.stddev_us = std::sqrt(squares / AsDouble(count));
  }
  if (count >= 10) {
    // Occurrences are sorted by start, so these are the first and the last replays in time.
    const size_t k = (count + 9) / 10;
    double first = MeanOf(durations, 0, k);
    double last = MeanOf(durations, count - k, count);
    if (first > 0) n.drift = last / first - 1;
  }
  static constexpr unsigned kPercents[] = {50, 95, 99};
  double p[3];
  SelectNearestRanks(durations, kPercents, p);
  n.p50_us = p[0];
  n.p95_us = p[1];
  n.p99_us = p[2];
  if (!s.sampled()) n.max_us = *std::max_element(durations.begin(), durations.end());
  return n;
}

bool ByTotalDescending(const NodeStats& x, const NodeStats& y) {
  return x.total_us != y.total_us ? x.total_us > y.total_us : x.node_id < y.node_id;
}

// The critical-path figures of `g` (its nodes still in series order) when the trace records DAGs.
void AddCriticalPath(const GraphNodes& trace, size_t begin, size_t end, double speedup,
                     GraphStats& g) {
  if (trace.dags.empty() || speedup <= 0) return;
  g.critical_path.emplace();
  GraphCriticalPath& c = *g.critical_path;
  c.speedup = speedup;
  auto dag = std::lower_bound(trace.dags.begin(), trace.dags.end(), g.graph_id,
                              [](const GraphDag& d, uint64_t id) { return d.graph_id < id; });
  if (dag == trace.dags.end() || dag->graph_id != g.graph_id) return;
  const std::span<const NodeSeries> series(trace.nodes.data() + begin, end - begin);
  const GraphPath path = ComputeCriticalPath(*dag, series, {.speedup = speedup});
  c.dag = true;
  c.replays = path.replays;
  c.analysed = path.analysed;
  c.skipped = path.skipped;
  c.span_p50_us = path.span_p50_us;
  for (size_t k = 0; k < series.size(); ++k) {
    const int32_t at = path.node_of_series[k];
    if (at < 0) continue;
    const NodePath& p = path.nodes[static_cast<size_t>(at)];
    NodeStats::CriticalPath& n = g.nodes[k].critical_path.emplace();
    n.share = p.share;
    n.slack_p50_us = p.slack_p50_us;
    n.slack_min_us = p.slack_min_us;
    n.whatif_span_p50_us = p.whatif_span_p50_us;
    n.gain_us = p.gain_us;
    if (p.conditional && p.node_id != series[k].node_id) {
      n.conditional_node_id = p.node_id;
      n.whatif_span_p50_us = n.gain_us = kNaN;
    }
  }
}

// A node's total as ComputeNode() sums it (the same order, so the same bits).
double NodeTotal(const NodeSeries& s) {
  if (s.sampled()) return s.durations.sum;
  double total = 0;
  for (const NodeOccurrence& o : s.occurrences) total += o.dur_us;
  return total;
}

// Everything of the graph of nodes [begin, end) but its nodes' rows.
GraphStats ComputeSummary(const GraphNodes& trace, size_t begin, size_t end) {
  const std::vector<NodeSeries>& nodes = trace.nodes;
  GraphStats g;
  g.strings = trace.strings;
  g.graph_id = nodes[begin].graph_id;
  g.node_count = end - begin;
  for (size_t i = begin; i < end; ++i) {
    if ((nodes[i].node_id >> 32) != g.graph_id) ++g.mismatched_nodes;
    g.sampled = g.sampled || nodes[i].sampled();
    g.sample_level = std::max<unsigned>(g.sample_level, nodes[i].sample_level);
    g.gpu_total_us += NodeTotal(nodes[i]);
  }
  ComputeReplays(std::span<const NodeSeries>(nodes.data() + begin, end - begin), g);
  g.replays_held = g.replays;
  if (g.sampled) {
    g.replays =
        g.sample_level >= 64
            ? UINT64_MAX
            : static_cast<uint64_t>(std::ldexp(static_cast<double>(g.replays), g.sample_level));
  }
  return g;
}

// The rows of nodes [begin, end) into `g` (its summary computed), at most `top` (0: all).
// With `speedup` > 0, the critical-path figures too where the trace has the graph's DAG.
void ComputeRows(const GraphNodes& trace, size_t begin, size_t end, size_t top, double speedup,
                 GraphStats& g) {
  g.nodes.clear();
  g.nodes.reserve(end - begin);
  std::vector<double> durations;
  for (size_t i = begin; i < end; ++i) g.nodes.push_back(ComputeNode(trace.nodes[i], durations));
  for (NodeStats& n : g.nodes) n.share = g.gpu_total_us > 0 ? n.total_us / g.gpu_total_us : kNaN;
  AddCriticalPath(trace, begin, end, speedup, g);
  std::sort(g.nodes.begin(), g.nodes.end(), ByTotalDescending);
  if (top > 0 && g.nodes.size() > top) g.nodes.resize(top);
}

// [begin, end) of graph `graph_id`'s nodes in `trace` (sorted by graph id); empty when absent.
std::pair<size_t, size_t> RangeOf(const GraphNodes& trace, uint64_t graph_id) {
  const auto lo =
      std::lower_bound(trace.nodes.begin(), trace.nodes.end(), graph_id,
                       [](const NodeSeries& n, uint64_t id) { return n.graph_id < id; });
  const auto hi = std::partition_point(lo, trace.nodes.end(),
                                       [&](const NodeSeries& n) { return n.graph_id == graph_id; });
  return {static_cast<size_t>(lo - trace.nodes.begin()),
          static_cast<size_t>(hi - trace.nodes.begin())};
}

// ---- Comparison.

uint64_t Ordinal(uint64_t node_id) { return node_id & 0xFFFFFFFFu; }

using Sequence = std::vector<const NodeStats*>;

Sequence InOrdinalOrder(const GraphStats& g) {
  Sequence s;
  for (const NodeStats& n : g.nodes) s.push_back(&n);
  std::sort(s.begin(), s.end(), [](const NodeStats* x, const NodeStats* y) {
    return Ordinal(x->node_id) != Ordinal(y->node_id) ? Ordinal(x->node_id) < Ordinal(y->node_id)
                                                      : x->node_id < y->node_id;
  });
  return s;
}

bool SameNames(const Sequence& x, const Sequence& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const NodeStats* p, const NodeStats* q) { return p->name == q->name; });
}

NodeSide Side(const NodeStats& n) {
  return NodeSide{n.graph_id, n.node_id, n.name, n.scope, n.replays, n.mean_us, n.total_us};
}

NodeDiff Fused(const Sequence& a, size_t begin, size_t end, const NodeStats& b) {
  NodeDiff d;
  d.b = Side(b);
  double sum = 0;
  for (size_t i = begin; i < end; ++i) {
    d.fused_a.push_back(Side(*a[i]));
    sum += a[i]->mean_us;
  }
  d.delta_us = b.mean_us - sum;
  d.delta_fraction = sum > 0 ? d.delta_us / sum : kNaN;
  return d;
}

std::vector<AlignNode> AlignInput(const Sequence& s) {
  std::vector<AlignNode> out;
  out.reserve(s.size());
  for (const NodeStats* n : s) out.push_back({n->name, n->scope, -1});
  return out;
}

NodeDiff Matched(const NodeStats& a, const NodeStats& b) {
  NodeDiff d;
  d.a = Side(a);
  d.b = Side(b);
  d.delta_us = b.mean_us - a.mean_us;
  d.delta_fraction = a.mean_us > 0 ? d.delta_us / a.mean_us : kNaN;
  return d;
}

NodeDiff OnlyIn(const NodeStats& n, bool in_a) {
  NodeDiff d;
  (in_a ? d.a : d.b) = Side(n);
  d.delta_us = kNaN;
  d.delta_fraction = kNaN;
  return d;
}

// Orders and cuts the four groups of `nodes` (matched, fused, only in A, only in B).
void Arrange(std::vector<NodeDiff>& nodes, size_t top) {
  auto group = [](const NodeDiff& d) { return d.a && d.b ? 0 : d.fused() ? 1 : d.a ? 2 : 3; };
  auto key_id = [](const NodeDiff& d) { return d.a ? d.a->node_id : d.b->node_id; };
  auto key = [&](const NodeDiff& d) {
    return group(d) <= 1 ? std::fabs(d.delta_us) : d.a ? d.a->total_us : d.b->total_us;
  };
  std::sort(nodes.begin(), nodes.end(), [&](const NodeDiff& x, const NodeDiff& y) {
    if (group(x) != group(y)) return group(x) < group(y);
    const double kx = key(x), ky = key(y);
    return kx != ky ? kx > ky : key_id(x) < key_id(y);
  });
  if (top == 0) return;
  std::vector<NodeDiff> kept;
  size_t in_group[4] = {0, 0, 0, 0};
  for (NodeDiff& d : nodes) {
    if (in_group[group(d)]++ < top) kept.push_back(std::move(d));
  }
  nodes = std::move(kept);
}

GraphDiff DiffPair(const GraphStats* a, const Sequence* seq_a, const GraphStats* b,
                   const Sequence* seq_b, GraphMatch match, size_t top) {
  GraphDiff d;
  d.match = match;
  if (a != nullptr) d.strings_a = a->strings;
  if (b != nullptr) d.strings_b = b->strings;
  if (a != nullptr) {
    d.graph_a = a->graph_id;
    d.replays_a = a->replays;
    d.gpu_p50_a_us = a->gpu_p50_us;
    d.node_count_a = a->node_count;
  }
  if (b != nullptr) {
    d.graph_b = b->graph_id;
    d.replays_b = b->replays;
    d.gpu_p50_b_us = b->gpu_p50_us;
    d.node_count_b = b->node_count;
  }
  if (a == nullptr || b == nullptr) {
    for (const NodeStats& n : (a != nullptr ? a : b)->nodes)
      d.nodes.push_back(OnlyIn(n, a != nullptr));
  } else if (match != GraphMatch::kSameIdOtherNodes) {
    for (size_t k = 0; k < seq_a->size(); ++k)
      d.nodes.push_back(Matched(*(*seq_a)[k], *(*seq_b)[k]));
  } else {
    const AlignResult aligned = AlignNodes(AlignInput(*seq_a), AlignInput(*seq_b));
    for (const AlignStep& step : aligned.steps) {
      switch (step.kind) {
        case AlignKind::kPaired:
          d.nodes.push_back(Matched(*(*seq_a)[step.a_begin], *(*seq_b)[step.b]));
          break;
        case AlignKind::kOnlyA:
          d.nodes.push_back(OnlyIn(*(*seq_a)[step.a_begin], true));
          break;
        case AlignKind::kOnlyB:
          d.nodes.push_back(OnlyIn(*(*seq_b)[step.b], false));
          break;
        case AlignKind::kFused:
          d.nodes.push_back(Fused(*seq_a, step.a_begin, step.a_end, *(*seq_b)[step.b]));
          break;
      }
    }
  }
  d.matched = static_cast<size_t>(
      std::count_if(d.nodes.begin(), d.nodes.end(), [](const NodeDiff& n) { return n.a && n.b; }));
  d.fused = static_cast<size_t>(
      std::count_if(d.nodes.begin(), d.nodes.end(), [](const NodeDiff& n) { return n.fused(); }));
  Arrange(d.nodes, top);
  return d;
}

}  // namespace

namespace {

// The 1-based nearest rank of `percent` among n > 0 values: ceil(percent * n / 100), exact,
// clamped to [1, n].
uint64_t NearestRank(uint64_t n, unsigned percent) {
  return std::clamp<uint64_t>((uint64_t{percent} * n + 99) / 100, 1, n);
}

}  // namespace

double NearestRankPercentile(const std::vector<double>& sorted, unsigned percent) {
  if (sorted.empty()) return kNaN;
  return sorted[NearestRank(sorted.size(), percent) - 1];
}

void SelectNearestRanks(std::vector<double>& values, std::span<const unsigned> percents,
                        std::span<double> out) {
  auto from = values.begin();  // values before it are at most the last one selected
  for (size_t i = 0; i < percents.size(); ++i) {
    if (values.empty()) {
      out[i] = kNaN;
      continue;
    }
    const auto at =
        values.begin() + static_cast<ptrdiff_t>(NearestRank(values.size(), percents[i]) - 1);
    if (at >= from) {
      std::nth_element(from, at, values.end());
      from = at + 1;
    }
    out[i] = *at;
  }
}

const char* GraphMatchName(GraphMatch match) {
  switch (match) {
    case GraphMatch::kSameIdSameNodes:
      return "same_id";
    case GraphMatch::kSameNodes:
      return "same_nodes";
    case GraphMatch::kSameIdOtherNodes:
      return "same_id_other_nodes";
    case GraphMatch::kOnlyA:
      return "only_a";
    case GraphMatch::kOnlyB:
      return "only_b";
  }
  return "?";
}

void ForEachGraphStats(const GraphNodes& trace, const NodeStatsOptions& options,
                       const std::function<bool(GraphStats&&)>& visit) {
  const std::vector<NodeSeries>& nodes = trace.nodes;  // sorted by (graph id, node id)
  for (size_t begin = 0; begin < nodes.size();) {
    size_t end = begin;
    while (end < nodes.size() && nodes[end].graph_id == nodes[begin].graph_id) ++end;
    if (!options.graph_id || *options.graph_id == nodes[begin].graph_id) {
      GraphStats g = ComputeSummary(trace, begin, end);
      // A speedup of 0: no critical path.
      ComputeRows(trace, begin, end, options.top, options.critical_path ? options.speedup : 0, g);
      if (!visit(std::move(g))) return;
    }
    begin = end;
  }
}

std::vector<GraphStats> ComputeGraphSummaries(const GraphNodes& trace) {
  std::vector<GraphStats> out;
  const std::vector<NodeSeries>& nodes = trace.nodes;
  for (size_t begin = 0; begin < nodes.size();) {
    size_t end = begin;
    while (end < nodes.size() && nodes[end].graph_id == nodes[begin].graph_id) ++end;
    out.push_back(ComputeSummary(trace, begin, end));
    begin = end;
  }
  return out;
}

void ComputeGraphRows(const GraphNodes& trace, size_t top, GraphStats& graph, double speedup) {
  const auto [begin, end] = RangeOf(trace, graph.graph_id);
  ComputeRows(trace, begin, end, top, speedup, graph);
}

std::vector<GraphStats> ComputeNodeStats(const GraphNodes& trace, const NodeStatsOptions& options) {
  std::vector<GraphStats> out;
  ForEachGraphStats(trace, options, [&out](GraphStats&& g) {
    out.push_back(std::move(g));
    return true;
  });
  return out;
}

std::vector<GraphDiff> DiffNodeStats(const std::vector<GraphStats>& a,
                                     const std::vector<GraphStats>& b,
                                     const NodeStatsOptions& options) {
  std::vector<Sequence> seq_a, seq_b;
  for (const GraphStats& g : a) seq_a.push_back(InOrdinalOrder(g));
  for (const GraphStats& g : b) seq_b.push_back(InOrdinalOrder(g));
  std::map<uint64_t, size_t> b_by_id;
  for (size_t j = 0; j < b.size(); ++j) b_by_id.emplace(b[j].graph_id, j);

  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<std::pair<size_t, GraphMatch>> pair_of_a(a.size(), {kNone, GraphMatch::kOnlyA});
  std::vector<bool> b_paired(b.size(), false);
  auto pair = [&](size_t i, size_t j, GraphMatch m) {
    pair_of_a[i] = {j, m};
    b_paired[j] = true;
  };
  auto same_id = [&](size_t i) {
    auto it = b_by_id.find(a[i].graph_id);
    return it != b_by_id.end() && !b_paired[it->second] ? it->second : kNone;
  };
  for (size_t i = 0; i < a.size(); ++i) {  // 1. same id, same node sequence
    size_t j = same_id(i);
    if (j != kNone && SameNames(seq_a[i], seq_b[j])) pair(i, j, GraphMatch::kSameIdSameNodes);
  }
  for (size_t i = 0; i < a.size(); ++i) {  // 2. same node sequence
    for (size_t j = 0; j < b.size() && pair_of_a[i].first == kNone; ++j) {
      if (!b_paired[j] && SameNames(seq_a[i], seq_b[j])) pair(i, j, GraphMatch::kSameNodes);
    }
  }
  for (size_t i = 0; i < a.size(); ++i) {  // 3. same id
    size_t j = pair_of_a[i].first == kNone ? same_id(i) : kNone;
    if (j != kNone) pair(i, j, GraphMatch::kSameIdOtherNodes);
  }

  auto wanted = [&](std::optional<uint64_t> id_a, std::optional<uint64_t> id_b) {
    return !options.graph_id || id_a == options.graph_id || id_b == options.graph_id;
  };
  std::vector<GraphDiff> out;
  for (size_t i = 0; i < a.size(); ++i) {
    auto [j, match] = pair_of_a[i];
    if (j == kNone) {
      if (wanted(a[i].graph_id, std::nullopt)) {
        out.push_back(DiffPair(&a[i], &seq_a[i], nullptr, nullptr, match, options.top));
      }
    } else if (wanted(a[i].graph_id, b[j].graph_id)) {
      out.push_back(DiffPair(&a[i], &seq_a[i], &b[j], &seq_b[j], match, options.top));
    }
  }
  for (size_t j = 0; j < b.size(); ++j) {
    if (!b_paired[j] && wanted(std::nullopt, b[j].graph_id)) {
      out.push_back(DiffPair(nullptr, nullptr, &b[j], &seq_b[j], GraphMatch::kOnlyB, options.top));
    }
  }
  return out;
}

}  // namespace nodescope::analysis
