// Builds the DAG the critical-path passes run on (critical_path_plan.h).
#include "analysis/stats/critical_path_plan.h"

#include <algorithm>
#include <utility>

namespace nodescope::analysis {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

bool MakesRecords(DagNodeType type) {
  return type == DagNodeType::kKernel || type == DagNodeType::kMemcpy ||
         type == DagNodeType::kMemset;
}

class Builder {
 public:
  explicit Builder(const GraphDag& dag) : dag_(dag) {
    const size_t n = dag.nodes.size();
    by_id_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) by_id_.emplace_back(dag.nodes[i].node_id, i);
    std::sort(by_id_.begin(), by_id_.end());
    renamed_ = dag.renamed;
    std::sort(renamed_.begin(), renamed_.end());
  }

  uint32_t Find(uint64_t id) const {
    auto it = std::lower_bound(by_id_.begin(), by_id_.end(), std::make_pair(id, uint32_t{0}));
    return it != by_id_.end() && it->first == id ? it->second : kNone;
  }

  // The DAG node a record's node id runs at: itself or, renamed, the node it stands for.
  uint32_t FindRecord(uint64_t id) const {
    uint32_t i = Find(id);
    if (i != kNone) return i;
    auto it = std::lower_bound(renamed_.begin(), renamed_.end(), std::make_pair(id, uint64_t{0}));
    return it != renamed_.end() && it->first == id ? Find(it->second) : kNone;
  }

  bool Build(PathPlan& plan, std::span<const NodeSeries> series) {
    const size_t n = dag_.nodes.size();
    for (size_t i = 1; i < by_id_.size(); ++i) {
      if (by_id_[i].first == by_id_[i - 1].first) return false;  // a node listed twice
    }
    if (!Parents()) return false;
    // Points: every node outside conditional bodies, and an exit after each child graph.
    point_.assign(n, kNone);
    exit_.assign(n, kNone);
    std::vector<PointRole> role;
    for (uint32_t i = 0; i < n; ++i) {
      if (conditional_[i] != kNone) continue;
      const DagNodeType type = dag_.nodes[i].type;
      point_[i] = static_cast<uint32_t>(role.size());
      role.push_back(MakesRecords(type)                  ? PointRole::kRecorded
                     : type == DagNodeType::kConditional ? PointRole::kConditional
                                                         : PointRole::kPass);
      if (type == DagNodeType::kChildGraph) {
        exit_[i] = static_cast<uint32_t>(role.size());
        role.push_back(PointRole::kPass);
      }
    }
    if (!Edges()) return false;
    if (!Order(role.size(), plan)) return false;
    plan.role.resize(role.size());
    plan.reported.assign(role.size(), -1);
    for (uint32_t p = 0; p < role.size(); ++p) plan.role[position_[p]] = role[p];
    for (const auto& [id, i] : by_id_) {  // ascending ids
      const uint32_t p = point_[i];
      if (p == kNone || role[p] == PointRole::kPass) continue;
      plan.reported[position_[p]] = static_cast<int32_t>(plan.reported_ids.size());
      plan.reported_ids.push_back(id);
      plan.reported_point.push_back(position_[p]);
      if (role[p] == PointRole::kRecorded) ++plan.recorded;
    }
    plan.series_point.assign(series.size(), -1);
    for (size_t k = 0; k < series.size(); ++k) {
      const uint32_t i = FindRecord(series[k].node_id);
      if (i == kNone) continue;
      const uint32_t at = conditional_[i] != kNone ? point_[conditional_[i]] : point_[i];
      if (at != kNone && role[at] != PointRole::kPass) {
        plan.series_point[k] = static_cast<int32_t>(position_[at]);
      }
    }
    return true;
  }

 private:
  // parent_[i]; conditional_[i]: the outermost conditional node among i's ancestors.
  bool Parents() {
    const size_t n = dag_.nodes.size();
    parent_.assign(n, kNone);
    conditional_.assign(n, kNone);
    for (uint32_t i = 0; i < n; ++i) {
      if (dag_.nodes[i].parent_id == 0) continue;
      parent_[i] = Find(dag_.nodes[i].parent_id);
      if (parent_[i] == kNone) return false;
      const DagNodeType type = dag_.nodes[parent_[i]].type;
      if (type != DagNodeType::kChildGraph && type != DagNodeType::kConditional) return false;
    }
    for (uint32_t i = 0; i < n; ++i) {
      size_t depth = 0;
      for (uint32_t p = parent_[i]; p != kNone; p = parent_[p]) {
        if (++depth > n) return false;  // parents in a loop
        if (dag_.nodes[p].type == DagNodeType::kConditional) conditional_[i] = p;
      }
    }
    return true;
  }

  uint32_t Out(uint32_t i) const { return exit_[i] != kNone ? exit_[i] : point_[i]; }

  // edges_: the DAG's edges between points, and each child graph's entry to its body's roots
  // and its body's sinks to its exit.
  bool Edges() {
    const size_t n = dag_.nodes.size();
    std::vector<bool> has_in(n, false), has_out(n, false), has_body(n, false);
    for (const DagEdge& e : dag_.edges) {
      const uint32_t a = Find(e.from);
      const uint32_t b = Find(e.to);
      if (a == kNone || b == kNone) return false;
      has_out[a] = true;
      has_in[b] = true;
      if (point_[a] == kNone || point_[b] == kNone) continue;  // inside a conditional body
      edges_.emplace_back(Out(a), point_[b]);
    }
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t c = parent_[i];
      if (c == kNone || point_[i] == kNone || exit_[c] == kNone) continue;
      has_body[c] = true;
      if (!has_in[i]) edges_.emplace_back(point_[c], point_[i]);
      if (!has_out[i]) edges_.emplace_back(Out(i), exit_[c]);
    }
    for (uint32_t c = 0; c < n; ++c) {
      if (exit_[c] != kNone && !has_body[c]) edges_.emplace_back(point_[c], exit_[c]);
    }
    return true;
  }

  // position_[point]: a topological order (Kahn's, last ready first, so that a branch's nodes
  // stay together and few edges jump over others); the plan's CSR lists by position.
  bool Order(size_t m, PathPlan& plan) {
    std::vector<uint32_t> out_begin(m + 1, 0), out(edges_.size()), in_degree(m, 0);
    for (const auto& [a, b] : edges_) {
      ++out_begin[a + 1];
      ++in_degree[b];
    }
    for (size_t p = 1; p <= m; ++p) out_begin[p] += out_begin[p - 1];
    std::vector<uint32_t> next(out_begin.begin(), out_begin.end() - 1);
    for (const auto& [a, b] : edges_) out[next[a]++] = b;
    std::vector<uint32_t> ready;
    for (uint32_t p = static_cast<uint32_t>(m); p-- > 0;) {
      if (in_degree[p] == 0) ready.push_back(p);
    }
    position_.assign(m, kNone);
    uint32_t placed = 0;
    while (!ready.empty()) {
      const uint32_t p = ready.back();
      ready.pop_back();
      position_[p] = placed++;
      for (uint32_t i = out_begin[p + 1]; i-- > out_begin[p];) {
        if (--in_degree[out[i]] == 0) ready.push_back(out[i]);
      }
    }
    if (placed != m) return false;  // a cycle
    plan.pred_begin.assign(m + 1, 0);
    plan.succ_begin.assign(m + 1, 0);
    for (const auto& [a, b] : edges_) {
      ++plan.succ_begin[position_[a] + 1];
      ++plan.pred_begin[position_[b] + 1];
    }
    for (size_t p = 1; p <= m; ++p) {
      plan.succ_begin[p] += plan.succ_begin[p - 1];
      plan.pred_begin[p] += plan.pred_begin[p - 1];
    }
    plan.succs.resize(edges_.size());
    plan.preds.resize(edges_.size());
    std::vector<uint32_t> succ_next(plan.succ_begin.begin(), plan.succ_begin.end() - 1);
    std::vector<uint32_t> pred_next(plan.pred_begin.begin(), plan.pred_begin.end() - 1);
    for (const auto& [a, b] : edges_) {
      plan.succs[succ_next[position_[a]]++] = position_[b];
      plan.preds[pred_next[position_[b]]++] = position_[a];
    }
    return true;
  }

  const GraphDag& dag_;
  std::vector<std::pair<uint64_t, uint32_t>> by_id_;  // (node id, index in dag_.nodes)
  std::vector<std::pair<uint64_t, uint64_t>> renamed_;
  std::vector<uint32_t> parent_, conditional_;
  std::vector<uint32_t> point_, exit_;  // by DAG node: its point (entry), a child graph's exit
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // between points
  std::vector<uint32_t> position_;                    // by point
};

}  // namespace

PathPlan BuildPathPlan(const GraphDag& dag, std::span<const NodeSeries> series) {
  PathPlan plan;
  Builder builder(dag);
  plan.valid = builder.Build(plan, series);
  if (!plan.valid) plan = PathPlan{};
  return plan;
}

}  // namespace nodescope::analysis
