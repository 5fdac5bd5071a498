// The critical path, slack and a what-if per node of one graph, from its dependency DAG
// (model/graph_dag.h) and its nodes' measured occurrences, replay by replay (one replay: one
// correlation id). Pure computation; no I/O.
//
// The DAG the passes run on. Nodes without GPU records (empty, event, host, ...) stay in it as
// points of no duration: their time is the latest end of their predecessors, so an edge through
// them acts as the transitive edge between the recorded nodes on either side (without building
// the transitive closure). A child graph's node is its body's entry, and a point added after its
// body its exit: the body runs between the child node's predecessors and successors. A
// conditional node with its body (every node below it, nested bodies too) is one interval per
// replay, from the body's first start to its last end (a WHILE loop repeats body node ids in one
// replay: all count), or, when the body did not run, a point like an empty node.
//
// Per replay, with end(v) = start(v) + dur(v) measured and P(v) = the latest end among v's
// predecessors (a node without a predecessor with an end is a root):
//   d(v)   = start(v) - P(v), the node's own launch latency, kept as measured. Negative for a
//            node that starts before its predecessor ends: programmatic dependent launch (PDL;
//            also a launch-order edge). The overlap is kept as a constant offset: a predecessor
//            made faster moves its PDL dependent earlier by as much, and the dependent's
//            measured duration, which includes its wait for the predecessor inside, is its
//            duration. So the what-if gain of a PDL node is an upper bound (part of what would
//            be shortened is waiting), and its GPU time counts the wait too.
//   ES(v)  = max over preds EF(u) + d(v); roots at their measured start; EF = ES + dur. With the
//            measured durations this is the measured schedule.
//   LF(v)  = min(replay end, min over succs s of LS(s) - d(s)), LS = LF - dur; slack = LF - EF:
//            how much longer v could run before the replay ends later. The shorter branch of a
//            fork/join gets the longer branch's duration minus its own.
//   The critical path: from the node(s) with the latest end, back to the predecessor(s) with the
//   latest end, until a root. Ends within kTieUs of each other are ties, and every tied
//   predecessor is followed: both branches of a diamond with equal branches are on the path
//   (deterministic, and the tie shows as two nodes on the path in the same replay).
//   What-if: the replay's span if node N ran `speedup` times faster, as re-running the forward
//   pass with dur(N) / speedup would give; computed for every node at once (paths through N
//   shorten by dur(N) * (1 - 1/speedup); the longest path avoiding N is taken from the paths
//   ending before N, starting after N, or holding an edge over N in a topological order).
//
// A replay is skipped (and counted by reason) when a kernel/copy/fill node of the DAG outside
// conditional bodies has no record in it, or more than one, or when it holds a record whose
// node id is neither in the DAG nor in its `renamed` list; every replay is skipped when the DAG
// is incomplete or unusable (a cycle, an edge to an unknown node). Only the occurrences held are
// read: for a sampled graph (NodeSeries::sampled), the held sample of its replays.
//
// Cost per replay O(V + E) (plus a heap over the edges that skip over nodes in the topological
// order: none in a chain), with buffers allocated once per graph; memory 8 bytes per (node,
// replay analysed) for the percentiles, 12 bytes per occurrence for the regrouping.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/stats/node_series.h"
#include "model/graph_dag.h"

namespace nodescope::analysis {

// Ends closer than this (microseconds) are a tie: half the trace's 1 ns resolution.
inline constexpr double kTieUs = 0.0005;

enum class PathSkip : uint8_t {
  kMissingNode = 0,  // a kernel/copy/fill node of the DAG has no record in the replay
  kUnknownNode,      // a record's node id is not in the DAG (nor renamed to one of its nodes)
  kRepeatedNode,     // a node outside conditional bodies has several records in the replay
  kIncompleteDag,    // GraphDag::complete is false: a path through the missing part is unknown
  kInvalidDag,       // a cycle, an edge or parent naming an unknown node
  kCount,
};
const char* PathSkipName(PathSkip reason);  // "missing_node", "unknown_node", ...

struct CriticalPathOptions {
  double speedup = 2;  // the what-if's factor k
};

// One node of the DAG the passes run on: a kernel/copy/fill node, or a conditional node (its
// body as one interval). Figures over the replays analysed.
struct NodePath {
  uint64_t node_id = 0;      // the DAG's node id
  bool conditional = false;  // a conditional node, standing for its body
  uint64_t ran = 0;          // replays analysed in which it ran (a conditional: its body did)
  uint64_t on_path = 0;      // replays in which it was on the critical path
  double share = 0;          // on_path / replays analysed; NaN when none was analysed
  double slack_p50_us = 0;   // nearest rank over the replays in which it ran; NaN when none
  double slack_min_us = 0;
  // Nearest-rank median over every replay analysed of the span if it ran `speedup` times faster
  // (a replay in which it did not run: the measured span), and GraphPath::span_p50_us minus it.
  double whatif_span_p50_us = 0;
  double gain_us = 0;
};

struct GraphPath {
  uint64_t graph_id = 0;
  double speedup = 2;
  uint64_t replays = 0;   // replays held (distinct correlation ids among the occurrences)
  uint64_t analysed = 0;  // of which analysed
  std::array<uint64_t, static_cast<size_t>(PathSkip::kCount)> skipped{};  // the others, by reason
  double span_p50_us = 0;       // measured span of the replays analysed; NaN when none
  std::vector<NodePath> nodes;  // by node id
  // For each NodeSeries given, the index in `nodes` of the node it ran as (itself, the node its
  // renamed id stands for, or the conditional whose body holds it); -1: none (not in the DAG).
  std::vector<int32_t> node_of_series;
};

// `series`: the graph's NodeSeries (those of dag.graph_id), in any order.
GraphPath ComputeCriticalPath(const GraphDag& dag, std::span<const NodeSeries> series,
                              const CriticalPathOptions& options = {});

}  // namespace nodescope::analysis
