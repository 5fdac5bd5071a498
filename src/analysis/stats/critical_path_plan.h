// The DAG the critical-path passes run on (critical_path.h), built once per graph: child graphs
// expanded, conditional bodies collapsed into their node, in a topological order, with the
// graph's node series mapped onto it. Internal to critical_path.cc; its own file for its tests'
// sake and the size rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/stats/node_series.h"
#include "model/graph_dag.h"

namespace nodescope::analysis {

enum class PointRole : uint8_t {
  kPass,         // no record of its own: an empty/event/host/... node, a child graph's entry or
                 // exit, a conditional inside another conditional's body is not a point at all
  kRecorded,     // a kernel, copy or fill node: one record per replay
  kConditional,  // a conditional node: its body's records, 0..n per replay
};

struct PathPlan {
  bool valid = false;  // false: a cycle, or an edge or parent naming an unknown node
  // By position (a topological order): role, predecessors and successors (CSR).
  std::vector<PointRole> role;
  std::vector<uint32_t> pred_begin, preds;
  std::vector<uint32_t> succ_begin, succs;
  std::vector<int32_t> reported;         // index in reported_ids; -1 for kPass points
  std::vector<uint64_t> reported_ids;    // the DAG node ids of the non-kPass points, ascending
  std::vector<uint32_t> reported_point;  // the position of each
  std::vector<int32_t> series_point;     // by series: its position; -1: not in the DAG
  size_t recorded = 0;                   // points of role kRecorded
  size_t size() const { return role.size(); }
};

PathPlan BuildPathPlan(const GraphDag& dag, std::span<const NodeSeries> series);

}  // namespace nodescope::analysis
