// Critical path, slack and what-if on hand-computed DAGs (times in microseconds).
#include "analysis/stats/critical_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {
namespace {

constexpr uint64_t kGraph = 7;
uint64_t Id(uint64_t ordinal) { return kGraph << 32 | ordinal; }

struct Rec {
  uint64_t ordinal;  // node id Id(ordinal), or a whole id when >= 1 << 32
  double start;
  double dur;
  int64_t replay;
};

// One NodeSeries per node id, occurrences sorted by start, as CollectNodeSeries makes them.
std::vector<NodeSeries> Series(const std::vector<Rec>& records) {
  std::map<uint64_t, NodeSeries> by_id;
  for (const Rec& r : records) {
    const uint64_t id = r.ordinal >= (uint64_t{1} << 32) ? r.ordinal : Id(r.ordinal);
    NodeSeries& s = by_id[id];
    s.graph_id = kGraph;
    s.node_id = id;
    s.occurrences.push_back({r.start, r.dur, r.replay});
    s.durations.Add(r.dur);
  }
  std::vector<NodeSeries> out;
  for (auto& [id, s] : by_id) {
    std::sort(
        s.occurrences.begin(), s.occurrences.end(),
        [](const NodeOccurrence& a, const NodeOccurrence& b) { return a.start_us < b.start_us; });
    out.push_back(std::move(s));
  }
  return out;
}

struct DagBuilder {
  GraphDag dag;
  DagBuilder() { dag.graph_id = kGraph; }
  DagBuilder& Node(uint64_t ordinal, DagNodeType type = DagNodeType::kKernel,
                   std::optional<uint64_t> parent = std::nullopt) {
    dag.nodes.push_back({Id(ordinal), type, parent ? Id(*parent) : 0});
    return *this;
  }
  DagBuilder& Edge(uint64_t from, uint64_t to, DagEdgeType type = DagEdgeType::kFull) {
    dag.edges.push_back({Id(from), Id(to), type});
    return *this;
  }
  // A chain of kernels over the ordinals given.
  DagBuilder& Chain(std::initializer_list<uint64_t> ordinals) {
    for (uint64_t o : ordinals) Node(o);
    for (auto it = ordinals.begin(); it + 1 < ordinals.end(); ++it) Edge(*it, *(it + 1));
    return *this;
  }
};

const NodePath& At(const GraphPath& path, uint64_t ordinal) {
  for (const NodePath& n : path.nodes) {
    if (n.node_id == Id(ordinal)) return n;
  }
  ADD_FAILURE() << "no node " << ordinal;
  static const NodePath none;
  return none;
}

uint64_t Skipped(const GraphPath& path, PathSkip why) {
  return path.skipped[static_cast<size_t>(why)];
}

// A -> B -> C, replayed twice; B starts 2 after A ends (its launch latency, kept).
TEST(CriticalPath, Chain) {
  const GraphDag dag = DagBuilder().Chain({0, 1, 2}).dag;
  const std::vector<NodeSeries> series = Series({{0, 0, 10, 1},
                                                 {1, 12, 5, 1},
                                                 {2, 17, 3, 1},
                                                 {0, 100, 10, 2},
                                                 {1, 112, 5, 2},
                                                 {2, 117, 3, 2}});
  const GraphPath p = ComputeCriticalPath(dag, series);
  EXPECT_EQ(p.replays, 2u);
  EXPECT_EQ(p.analysed, 2u);
  EXPECT_DOUBLE_EQ(p.span_p50_us, 20);
  ASSERT_EQ(p.nodes.size(), 3u);
  for (const NodePath& n : p.nodes) {
    EXPECT_EQ(n.on_path, 2u);
    EXPECT_DOUBLE_EQ(n.share, 1);
    EXPECT_DOUBLE_EQ(n.slack_p50_us, 0);
    EXPECT_DOUBLE_EQ(n.slack_min_us, 0);
    EXPECT_EQ(n.ran, 2u);
  }
  // 2x faster: the node's duration halves, the gaps stay.
  EXPECT_DOUBLE_EQ(At(p, 0).whatif_span_p50_us, 15);
  EXPECT_DOUBLE_EQ(At(p, 0).gain_us, 5);
  EXPECT_DOUBLE_EQ(At(p, 1).gain_us, 2.5);
  EXPECT_DOUBLE_EQ(At(p, 2).gain_us, 1.5);
  EXPECT_EQ(p.node_of_series, (std::vector<int32_t>{0, 1, 2}));
  // k = 4.
  const GraphPath q = ComputeCriticalPath(dag, series, {.speedup = 4});
  EXPECT_DOUBLE_EQ(At(q, 0).gain_us, 7.5);
}

// A -> {B (5), C (8)} -> D: B's slack is 8 - 5.
TEST(CriticalPath, ForkJoinSlack) {
  const GraphDag dag =
      DagBuilder().Node(0).Node(1).Node(2).Node(3).Edge(0, 1).Edge(0, 2).Edge(1, 3).Edge(2, 3).dag;
  const GraphPath p = ComputeCriticalPath(
      dag, Series({{0, 0, 10, 1}, {1, 10, 5, 1}, {2, 10, 8, 1}, {3, 18, 2, 1}}));
  EXPECT_EQ(p.analysed, 1u);
  EXPECT_DOUBLE_EQ(p.span_p50_us, 20);
  EXPECT_DOUBLE_EQ(At(p, 1).slack_p50_us, 3);
  EXPECT_DOUBLE_EQ(At(p, 1).share, 0);
  for (uint64_t o : {0, 2, 3}) {
    EXPECT_DOUBLE_EQ(At(p, o).slack_p50_us, 0) << o;
    EXPECT_DOUBLE_EQ(At(p, o).share, 1) << o;
  }
  EXPECT_DOUBLE_EQ(At(p, 1).gain_us, 0);  // off the path: nothing gained
  EXPECT_DOUBLE_EQ(At(p, 0).gain_us, 5);
  // C at 4: A-C-D 16, but A-B-D 17.
  EXPECT_DOUBLE_EQ(At(p, 2).whatif_span_p50_us, 17);
  EXPECT_DOUBLE_EQ(At(p, 2).gain_us, 3);
}

// A -> {B, C} -> D with equal branches: both on the path, neither alone gains anything.
TEST(CriticalPath, DiamondTiesFollowBothBranches) {
  const GraphDag dag =
      DagBuilder().Node(0).Node(1).Node(2).Node(3).Edge(0, 1).Edge(0, 2).Edge(1, 3).Edge(2, 3).dag;
  // 0.1 + 0.2 != 0.3 in doubles: ends within kTieUs tie.
  const GraphPath p = ComputeCriticalPath(dag, Series({{0, 0, 0.1, 1},
                                                       {1, 0.1, 0.2, 1},
                                                       {2, 0.1, 0.2, 1},
                                                       {3, 0.3, 1, 1},
                                                       {0, 10, 10, 2},
                                                       {1, 20, 5, 2},
                                                       {2, 20, 5, 2},
                                                       {3, 25, 1, 2}}));
  EXPECT_EQ(p.analysed, 2u);
  for (uint64_t o : {0, 1, 2, 3}) {
    EXPECT_EQ(At(p, o).on_path, 2u) << o;
    EXPECT_NEAR(At(p, o).slack_p50_us, 0, 1e-9) << o;
  }
  EXPECT_NEAR(At(p, 1).gain_us, 0, 1e-9);
  EXPECT_NEAR(At(p, 2).gain_us, 0, 1e-9);
}

// A -> K (WHILE) -> C, K's body one kernel W repeated 3 times; in replay 3 the body did not run
// and K passes through.
TEST(CriticalPath, ConditionalBodyIsOneInterval) {
  const GraphDag dag = DagBuilder()
                           .Node(0)
                           .Node(1, DagNodeType::kConditional)
                           .Node(2)
                           .Node(3, DagNodeType::kKernel, 1)
                           .Edge(0, 1)
                           .Edge(1, 2)
                           .dag;
  std::vector<Rec> records;
  for (int64_t r = 1; r <= 3; ++r) {
    const double t = 100.0 * static_cast<double>(r);
    records.push_back({0, t, 2, r});
    if (r < 3) {
      for (int i = 0; i < 3; ++i) records.push_back({3, t + 2 + i, 1, r});
      records.push_back({2, t + 5, 1, r});
    } else {
      records.push_back({2, t + 2, 1, r});
    }
  }
  const std::vector<NodeSeries> series = Series(records);
  const GraphPath p = ComputeCriticalPath(dag, series);
  EXPECT_EQ(p.analysed, 3u);
  EXPECT_DOUBLE_EQ(p.span_p50_us, 6);  // 6, 6, 3
  ASSERT_EQ(p.nodes.size(), 3u);       // 0, the conditional, 2
  const NodePath& k = At(p, 1);
  EXPECT_TRUE(k.conditional);
  EXPECT_EQ(k.ran, 2u);
  EXPECT_EQ(k.on_path, 2u);
  EXPECT_DOUBLE_EQ(k.slack_p50_us, 0);
  EXPECT_DOUBLE_EQ(k.whatif_span_p50_us, 4.5);  // 4.5, 4.5, 3
  EXPECT_DOUBLE_EQ(k.gain_us, 1.5);
  EXPECT_EQ(At(p, 2).on_path, 3u);
  EXPECT_EQ(At(p, 0).on_path, 3u);
  // W's series stands for the conditional.
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[2].node_id, Id(3));
  EXPECT_EQ(p.node_of_series, (std::vector<int32_t>{0, 2, 1}));
}

// A -> G (child graph: X -> Y, and Z alone) -> D. The body runs between A and D.
TEST(CriticalPath, ChildGraphBodyRunsBetweenItsNeighbours) {
  const GraphDag dag = DagBuilder()
                           .Node(0)
                           .Node(1, DagNodeType::kChildGraph)
                           .Node(2)
                           .Node(3, DagNodeType::kKernel, 1)
                           .Node(4, DagNodeType::kKernel, 1)
                           .Node(5, DagNodeType::kKernel, 1)
                           .Edge(0, 1)
                           .Edge(1, 2)
                           .Edge(3, 4)
                           .dag;
  const GraphPath p = ComputeCriticalPath(
      dag, Series({{0, 0, 1, 1}, {3, 1, 2, 1}, {4, 3, 3, 1}, {5, 1, 1, 1}, {2, 6, 1, 1}}));
  EXPECT_EQ(p.analysed, 1u);
  ASSERT_EQ(p.nodes.size(), 5u);  // the child node is a point without records
  EXPECT_DOUBLE_EQ(p.span_p50_us, 7);
  for (uint64_t o : {0, 2, 3, 4}) EXPECT_EQ(At(p, o).on_path, 1u) << o;
  EXPECT_EQ(At(p, 5).on_path, 0u);
  EXPECT_DOUBLE_EQ(At(p, 5).slack_p50_us, 4);  // Z ends at 2, Y at 6
  EXPECT_DOUBLE_EQ(At(p, 4).gain_us, 1.5);
  EXPECT_DOUBLE_EQ(At(p, 5).gain_us, 0);
}

// A and C -> E (empty) -> B: the edge through E acts as A -> B and C -> B.
TEST(CriticalPath, NodesWithoutRecordsPassThrough) {
  const GraphDag dag = DagBuilder()
                           .Node(0)
                           .Node(1)
                           .Node(2)
                           .Node(3, DagNodeType::kEmpty)
                           .Edge(0, 3)
                           .Edge(2, 3)
                           .Edge(3, 1)
                           .dag;
  const GraphPath p = ComputeCriticalPath(dag, Series({{0, 0, 4, 1}, {2, 0, 6, 1}, {1, 7, 2, 1}}));
  EXPECT_EQ(p.analysed, 1u);
  EXPECT_EQ(At(p, 2).on_path, 1u);
  EXPECT_EQ(At(p, 1).on_path, 1u);
  EXPECT_EQ(At(p, 0).on_path, 0u);
  EXPECT_DOUBLE_EQ(At(p, 0).slack_p50_us, 2);
  EXPECT_DOUBLE_EQ(At(p, 2).gain_us, 2);  // C at 3: A (4) bounds the join
}

// PDL: B starts 1 before A ends, C 0.5 before B ends. The overlap stays as measured.
TEST(CriticalPath, ProgrammaticOverlapKeepsNegativeGaps) {
  const GraphDag dag = DagBuilder()
                           .Node(0)
                           .Node(1)
                           .Node(2)
                           .Edge(0, 1, DagEdgeType::kProgrammatic)
                           .Edge(1, 2, DagEdgeType::kProgrammatic)
                           .dag;
  const GraphPath p =
      ComputeCriticalPath(dag, Series({{0, 0, 5, 1}, {1, 4, 5, 1}, {2, 8.5, 3.5, 1}}));
  EXPECT_DOUBLE_EQ(p.span_p50_us, 12);  // GPU time 13.5
  for (uint64_t o : {0, 1, 2}) {
    EXPECT_EQ(At(p, o).on_path, 1u) << o;
    EXPECT_DOUBLE_EQ(At(p, o).slack_p50_us, 0) << o;
  }
  EXPECT_DOUBLE_EQ(At(p, 0).whatif_span_p50_us, 9.5);
  EXPECT_DOUBLE_EQ(At(p, 1).gain_us, 2.5);
  EXPECT_DOUBLE_EQ(At(p, 2).gain_us, 1.75);
}

TEST(CriticalPath, LongChain) {
  constexpr uint64_t kNodes = 2000;
  GraphDag dag;
  dag.graph_id = kGraph;
  std::vector<Rec> records;
  for (uint64_t i = 0; i < kNodes; ++i) {
    dag.nodes.push_back({Id(i), DagNodeType::kKernel, 0});
    if (i > 0) dag.edges.push_back({Id(i - 1), Id(i), DagEdgeType::kFull});
    for (int64_t r = 0; r < 3; ++r) {
      records.push_back({i, 1e4 * static_cast<double>(r) + 1.5 * static_cast<double>(i), 1, r});
    }
  }
  const GraphPath p = ComputeCriticalPath(dag, Series(records));
  EXPECT_EQ(p.analysed, 3u);
  EXPECT_DOUBLE_EQ(p.span_p50_us, 2999.5);
  ASSERT_EQ(p.nodes.size(), kNodes);
  for (const NodePath& n : p.nodes) {
    ASSERT_EQ(n.on_path, 3u);
    ASSERT_NEAR(n.slack_p50_us, 0, 1e-6);
    ASSERT_NEAR(n.gain_us, 0.5, 1e-6);
  }
}

TEST(CriticalPath, ReplaysThatCannotBeAnalysedAreCounted) {
  DagBuilder b;
  b.Chain({0, 1, 2});
  b.dag.renamed.push_back({Id(9), Id(1)});  // node 1 ran as issued id 9 after an update
  const std::vector<NodeSeries> series = Series({
      {0, 0, 1, 1},
      {1, 1, 1, 1},
      {2, 2, 1, 1},  // analysed
      {0, 10, 1, 2},
      {2, 12, 1, 2},  // 1 missing
      {0, 20, 1, 3},
      {1, 21, 1, 3},
      {2, 22, 1, 3},  // a record of node 8, not in the DAG
      {8, 22, 1, 3},  //
      {0, 30, 1, 4},
      {1, 31, 1, 4},
      {1, 32, 1, 4},  // 1 twice
      {2, 33, 1, 4},  //
      {0, 40, 1, 5},
      {9, 41, 2, 5},
      {2, 43, 1, 5},  // renamed: analysed
  });
  const GraphPath p = ComputeCriticalPath(b.dag, series);
  EXPECT_EQ(p.replays, 5u);
  EXPECT_EQ(p.analysed, 2u);
  EXPECT_EQ(Skipped(p, PathSkip::kMissingNode), 1u);
  EXPECT_EQ(Skipped(p, PathSkip::kUnknownNode), 1u);
  EXPECT_EQ(Skipped(p, PathSkip::kRepeatedNode), 1u);
  EXPECT_EQ(At(p, 1).ran, 2u);
  EXPECT_DOUBLE_EQ(At(p, 1).gain_us, 0.5);  // durations 1 and 2: median 1
  // Series by node id: 0, 1, 2, 8, 9; 9 maps to node 1, 8 to none.
  EXPECT_EQ(p.node_of_series, (std::vector<int32_t>{0, 1, 2, -1, 1}));

  GraphDag incomplete = b.dag;
  incomplete.complete = false;
  const GraphPath q = ComputeCriticalPath(incomplete, series);
  EXPECT_EQ(q.analysed, 0u);
  EXPECT_EQ(Skipped(q, PathSkip::kIncompleteDag), 5u);
  EXPECT_TRUE(std::isnan(q.span_p50_us));

  GraphDag cycle = b.dag;
  cycle.edges.push_back({Id(2), Id(0), DagEdgeType::kFull});
  const GraphPath c = ComputeCriticalPath(cycle, series);
  EXPECT_EQ(Skipped(c, PathSkip::kInvalidDag), 5u);
  EXPECT_TRUE(c.nodes.empty());
  EXPECT_STREQ(PathSkipName(PathSkip::kMissingNode), "missing_node");
}

// Replays overlapping in time (two streams): occurrences are regrouped by correlation, not rank.
TEST(CriticalPath, InterleavedReplaysRegroupByCorrelation) {
  const GraphDag dag = DagBuilder().Chain({0, 1}).dag;
  const GraphPath p =
      ComputeCriticalPath(dag, Series({{0, 0, 4, 1}, {0, 1, 1, 2}, {1, 2, 1, 2}, {1, 4, 2, 1}}));
  EXPECT_EQ(p.analysed, 2u);
  EXPECT_DOUBLE_EQ(p.span_p50_us, 2);  // spans 6 and 2
  EXPECT_DOUBLE_EQ(At(p, 0).slack_min_us, 0);
}

// Through ComputeNodeStats: figures per node row, a conditional body's node with its
// conditional's share and slack, a graph without a DAG said so, a trace without DAGs unchanged.
TEST(CriticalPath, NodeStatsCarryTheFigures) {
  GraphNodes trace;
  trace.nodes = Series({{0, 0, 2, 1}, {3, 2, 1, 1}, {3, 3, 1, 1}, {2, 4, 1, 1}});
  NodeSeries other;
  other.graph_id = kGraph + 1;
  other.node_id = (kGraph + 1) << 32;
  other.occurrences.push_back({0, 1, 9});
  other.durations.Add(1);
  trace.nodes.push_back(other);
  EXPECT_FALSE(ComputeNodeStats(trace)[0].critical_path.has_value());
  trace.dags.push_back(DagBuilder()
                           .Node(0)
                           .Node(1, DagNodeType::kConditional)
                           .Node(2)
                           .Node(3, DagNodeType::kKernel, 1)
                           .Edge(0, 1)
                           .Edge(1, 2)
                           .dag);
  const std::vector<GraphStats> stats = ComputeNodeStats(trace);
  ASSERT_EQ(stats.size(), 2u);
  ASSERT_TRUE(stats[0].critical_path.has_value());
  EXPECT_TRUE(stats[0].critical_path->dag);
  EXPECT_EQ(stats[0].critical_path->analysed, 1u);
  EXPECT_DOUBLE_EQ(stats[0].critical_path->span_p50_us, 5);
  for (const NodeStats& n : stats[0].nodes) {
    ASSERT_TRUE(n.critical_path.has_value()) << n.node_id;
    EXPECT_DOUBLE_EQ(n.critical_path->share, 1);
    if (n.node_id == Id(3)) {
      EXPECT_EQ(n.critical_path->conditional_node_id, Id(1));
      EXPECT_TRUE(std::isnan(n.critical_path->gain_us));
    } else {
      EXPECT_EQ(n.critical_path->conditional_node_id, 0u);
    }
    if (n.node_id == Id(0)) {
      EXPECT_DOUBLE_EQ(n.critical_path->gain_us, 1);
    }
  }
  ASSERT_TRUE(stats[1].critical_path.has_value());
  EXPECT_FALSE(stats[1].critical_path->dag);
  EXPECT_FALSE(stats[1].nodes[0].critical_path.has_value());
}

}  // namespace
}  // namespace nodescope::analysis
