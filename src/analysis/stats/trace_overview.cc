#include "analysis/stats/trace_overview.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "model/graph_name.h"

namespace nodescope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const GraphDag* DagOf(const GraphNodes& trace, uint64_t graph_id) {
  const auto it = std::lower_bound(trace.dags.begin(), trace.dags.end(), graph_id,
                                   [](const GraphDag& d, uint64_t id) { return d.graph_id < id; });
  return it != trace.dags.end() && it->graph_id == graph_id ? &*it : nullptr;
}

int KindRank(OverviewLine::Kind k) { return static_cast<int>(k); }

}  // namespace

std::vector<std::pair<uint64_t, std::string>> GraphNames(const GraphNodes& trace) {
  std::vector<std::pair<uint64_t, std::string>> out;
  std::vector<GraphNameNode> names;
  std::vector<std::string_view> scopes;
  const std::vector<NodeSeries>& nodes = trace.nodes;  // by (graph id, node id)
  for (size_t begin = 0; begin < nodes.size();) {
    size_t end = begin;
    names.clear();
    scopes.clear();
    for (; end < nodes.size() && nodes[end].graph_id == nodes[begin].graph_id; ++end) {
      names.push_back({static_cast<uint32_t>(nodes[end].node_id & 0xffffffffu), nodes[end].name});
      scopes.push_back(nodes[end].scope);
    }
    const uint64_t id = nodes[begin].graph_id;
    out.emplace_back(id, GraphName(names, DagOf(trace, id), CommonScope(scopes)));
    begin = end;
  }
  std::vector<std::string> unique;
  unique.reserve(out.size());
  for (auto& [id, name] : out) unique.push_back(std::move(name));
  UniqueGraphNames(unique);
  for (size_t i = 0; i < out.size(); ++i) out[i].second = std::move(unique[i]);
  return out;
}

std::optional<uint64_t> FindGraph(const GraphNodes& trace, std::string_view spec) {
  if (!spec.empty() &&
      std::all_of(spec.begin(), spec.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    uint64_t id = 0;
    const auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), id);
    if (ec != std::errc() || end != spec.data() + spec.size()) return std::nullopt;
    const bool present = std::any_of(trace.nodes.begin(), trace.nodes.end(),
                                     [&](const NodeSeries& n) { return n.graph_id == id; });
    return present ? std::optional<uint64_t>(id) : std::nullopt;
  }
  for (const auto& [id, name] : GraphNames(trace)) {
    if (name == spec) return id;
  }
  return std::nullopt;
}

TraceOverview ComputeOverview(const GraphNodes& trace) {
  TraceOverview o;
  o.graphs = ComputeGraphSummaries(trace);
  std::vector<std::pair<uint64_t, std::string>> names = GraphNames(trace);
  for (size_t i = 0; i < o.graphs.size(); ++i) o.graphs[i].name = std::move(names[i].second);
  o.graph_count = o.graphs.size();
  o.eager_names_limit = trace.limits.max_eager_names;
  std::stable_sort(o.graphs.begin(), o.graphs.end(), [](const GraphStats& a, const GraphStats& b) {
    return a.gpu_total_us > b.gpu_total_us;  // ties keep graph-id order
  });
  for (const GraphStats& g : o.graphs) {
    OverviewLine l;
    l.kind = OverviewLine::Kind::kGraph;
    l.graph_id = g.graph_id;
    l.name = g.name;
    l.count = g.replays;
    l.total_us = g.gpu_total_us;
    l.mean_us = g.replays > 0 ? g.gpu_total_us / static_cast<double>(g.replays) : kNaN;
    l.p50_us = g.gpu_p50_us;
    l.p99_us = g.gpu_p99_us;
    l.max_us = kNaN;
    l.node_count = g.node_count;
    l.sampled = g.sampled;
    o.graphs_us += l.total_us;
    o.lines.push_back(l);
  }
  auto eager_line = [&](OverviewLine::Kind kind, std::string_view name, std::string_view cat,
                        const RunningStats& d) {
    OverviewLine l;
    l.kind = kind;
    l.name = name;
    l.cat = cat;
    l.count = d.count;
    l.total_us = d.sum;
    l.mean_us = d.count > 0 ? d.sum / static_cast<double>(d.count) : kNaN;
    l.p50_us = l.p99_us = kNaN;
    l.max_us = d.max;
    o.eager_us += d.sum;
    o.eager_events += d.count;
    o.lines.push_back(l);
  };
  for (const EagerSeries& e : trace.eager) {
    eager_line(OverviewLine::Kind::kEager, e.name, e.cat, e.durations);
  }
  if (trace.eager_other.count > 0) {
    eager_line(OverviewLine::Kind::kEagerOther, "", "", trace.eager_other);
  }
  o.gpu_total_us = o.graphs_us + o.eager_us;
  for (OverviewLine& l : o.lines) l.share = o.gpu_total_us > 0 ? l.total_us / o.gpu_total_us : kNaN;
  // Graphs and eager lines are each ranked already: merge them.
  std::stable_sort(o.lines.begin(), o.lines.end(),
                   [](const OverviewLine& a, const OverviewLine& b) {
                     if (a.total_us != b.total_us) return a.total_us > b.total_us;
                     return KindRank(a.kind) < KindRank(b.kind);
                   });
  return o;
}

TraceOverview CombineOverviews(const std::vector<TraceOverview>& ranks) {
  TraceOverview out;
  std::map<std::pair<int, std::string_view>, size_t> index;  // (kind, name) -> out.lines[i]
  std::vector<std::vector<double>> p50s;                     // per line, the ranks' p50s
  for (const TraceOverview& r : ranks) {
    out.gpu_total_us += r.gpu_total_us;
    out.graphs_us += r.graphs_us;
    out.eager_us += r.eager_us;
    out.eager_events += r.eager_events;
    out.eager_names_limit = std::max(out.eager_names_limit, r.eager_names_limit);
    for (const OverviewLine& l : r.lines) {
      const auto [it, added] = index.emplace(std::pair(KindRank(l.kind), l.name), out.lines.size());
      if (added) {
        out.lines.push_back(l);
        p50s.push_back({l.p50_us});
        if (l.kind == OverviewLine::Kind::kGraph) ++out.graph_count;
        continue;
      }
      OverviewLine& c = out.lines[it->second];
      c.count += l.count;
      c.total_us += l.total_us;
      c.p99_us = std::max(c.p99_us, l.p99_us);
      c.max_us = std::max(c.max_us, l.max_us);
      c.sampled = c.sampled || l.sampled;
      ++c.ranks;
      p50s[it->second].push_back(l.p50_us);
    }
  }
  for (size_t i = 0; i < out.lines.size(); ++i) {
    OverviewLine& l = out.lines[i];
    l.mean_us = l.count > 0 ? l.total_us / static_cast<double>(l.count) : kNaN;
    l.share = out.gpu_total_us > 0 ? l.total_us / out.gpu_total_us : kNaN;
    if (l.kind == OverviewLine::Kind::kGraph) {
      std::sort(p50s[i].begin(), p50s[i].end());
      l.p50_us = NearestRankPercentile(p50s[i], 50);
    }
  }
  std::stable_sort(out.lines.begin(), out.lines.end(),
                   [](const OverviewLine& a, const OverviewLine& b) {
                     if (a.total_us != b.total_us) return a.total_us > b.total_us;
                     return KindRank(a.kind) < KindRank(b.kind);
                   });
  return out;
}

void KeepTop(TraceOverview& overview, size_t top) {
  if (top == 0) return;
  if (overview.lines.size() > top) {
    for (size_t i = top; i < overview.lines.size(); ++i) {
      overview.left_out_us += overview.lines[i].total_us;
    }
    overview.lines_left_out += overview.lines.size() - top;
    overview.lines.resize(top);
  }
  if (overview.graphs.size() > top) {
    overview.graphs_left_out += overview.graphs.size() - top;
    overview.graphs.resize(top);
  }
}

}  // namespace nodescope::analysis
