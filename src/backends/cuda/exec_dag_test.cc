// BuildExecDag: template nodes named by their clones, unnamed ones spliced out, bodies parented.
#include "backends/cuda/exec_dag.h"

#include <gtest/gtest.h>

#include "backends/cuda/conditional_bodies.h"

namespace nodescope::cupti {
namespace {

CUgraphNode H(uintptr_t n) { return reinterpret_cast<CUgraphNode>(n); }
constexpr uint64_t kG = uint64_t{7} << 32;

TemplateGraph ForkJoin() {
  // 1 -> {2, 3} -> 4, with 3 -> 4 programmatic.
  TemplateGraph g;
  for (uintptr_t n = 1; n <= 4; ++n) g.nodes.push_back({H(n), DagNodeType::kKernel, nullptr});
  g.edges = {{H(1), H(2), DagEdgeType::kFull},
             {H(1), H(3), DagEdgeType::kFull},
             {H(2), H(4), DagEdgeType::kFull},
             {H(3), H(4), DagEdgeType::kProgrammatic}};
  return g;
}

TEST(BuildExecDag, NamesEveryNodeByItsClone) {
  GraphDag dag =
      BuildExecDag(7, ForkJoin(), {{H(4), kG | 3}, {H(1), kG | 0}, {H(3), kG | 2}, {H(2), kG | 1}});
  EXPECT_EQ(dag.graph_id, 7u);
  EXPECT_TRUE(dag.complete);
  ASSERT_EQ(dag.nodes.size(), 4u);
  EXPECT_EQ(dag.nodes[0].node_id, kG | 0);
  EXPECT_EQ(dag.nodes[3].node_id, kG | 3);
  ASSERT_EQ(dag.edges.size(), 4u);
  EXPECT_EQ(dag.edges[0].from, kG | 0);
  EXPECT_EQ(dag.edges[0].to, kG | 1);
  EXPECT_EQ(dag.edges[3].from, kG | 2);
  EXPECT_EQ(dag.edges[3].to, kG | 3);
  EXPECT_EQ(dag.edges[3].type, DagEdgeType::kProgrammatic);
}

TEST(BuildExecDag, SplicesOutAnUnclonedNodeKeepingTheOrderThroughIt) {
  TemplateGraph g = ForkJoin();
  g.nodes[1].type = DagNodeType::kEmpty;  // node 2: an empty node without a clone
  GraphDag dag = BuildExecDag(7, g, {{H(1), kG | 0}, {H(3), kG | 2}, {H(4), kG | 3}});
  EXPECT_TRUE(dag.complete);  // an empty node runs nothing
  ASSERT_EQ(dag.nodes.size(), 3u);
  ASSERT_EQ(dag.edges.size(), 3u);  // 1 -> 4 through it, 1 -> 3, 3 -> 4
  EXPECT_EQ(dag.edges[0].from, kG | 0);
  EXPECT_EQ(dag.edges[0].to, kG | 2);
  EXPECT_EQ(dag.edges[1].from, kG | 0);
  EXPECT_EQ(dag.edges[1].to, kG | 3);
}

TEST(BuildExecDag, AKernelWithoutACloneMakesTheDagIncomplete) {
  GraphDag dag = BuildExecDag(7, ForkJoin(), {{H(1), kG | 0}, {H(3), kG | 2}, {H(4), kG | 3}});
  EXPECT_FALSE(dag.complete);
}

TEST(BuildExecDag, ChildBodiesNameTheirContainer) {
  // 1 -> child 2 {5 -> 6} -> 3
  TemplateGraph g;
  g.nodes = {{H(1), DagNodeType::kKernel, nullptr},
             {H(2), DagNodeType::kChildGraph, nullptr},
             {H(5), DagNodeType::kKernel, H(2)},
             {H(6), DagNodeType::kKernel, H(2)},
             {H(3), DagNodeType::kKernel, nullptr}};
  g.edges = {{H(1), H(2), DagEdgeType::kFull},
             {H(2), H(3), DagEdgeType::kFull},
             {H(5), H(6), DagEdgeType::kFull}};
  GraphDag dag = BuildExecDag(
      7, g, {{H(1), kG | 0}, {H(2), kG | 1}, {H(5), kG | 2}, {H(6), kG | 3}, {H(3), kG | 4}});
  ASSERT_EQ(dag.nodes.size(), 5u);
  EXPECT_EQ(dag.nodes[1].type, DagNodeType::kChildGraph);
  EXPECT_EQ(dag.nodes[2].parent_id, kG | 1);
  EXPECT_EQ(dag.nodes[3].parent_id, kG | 1);
  EXPECT_EQ(dag.nodes[4].parent_id, 0u);
  EXPECT_EQ(dag.edges.size(), 3u);
}

TEST(BuildExecDag, BodyNodesClonedUnderAnotherGraphIdGetTheExecsNextOrdinals) {
  // As CUDA 13.0 reports a child body: its clones carry an inner graph's id (8), while the
  // records carry the exec's ordinals after the top-level ones.
  TemplateGraph g;
  g.nodes = {{H(1), DagNodeType::kKernel, nullptr},
             {H(2), DagNodeType::kChildGraph, nullptr},
             {H(5), DagNodeType::kKernel, H(2)},
             {H(6), DagNodeType::kKernel, H(2)},
             {H(3), DagNodeType::kKernel, nullptr}};
  g.edges = {{H(1), H(2), DagEdgeType::kFull},
             {H(2), H(3), DagEdgeType::kFull},
             {H(5), H(6), DagEdgeType::kFull}};
  const uint64_t inner = uint64_t{8} << 32;
  GraphDag dag = BuildExecDag(
      7, g, {{H(1), kG | 0}, {H(2), kG | 1}, {H(5), inner | 0}, {H(6), inner | 1}, {H(3), kG | 2}});
  EXPECT_TRUE(dag.complete);
  ASSERT_EQ(dag.nodes.size(), 5u);
  EXPECT_EQ(dag.nodes[3].node_id, kG | 3);
  EXPECT_EQ(dag.nodes[3].parent_id, kG | 1);
  EXPECT_EQ(dag.nodes[4].node_id, kG | 4);
  ASSERT_EQ(dag.edges.size(), 3u);
  EXPECT_EQ(dag.edges[2].from, kG | 3);
  EXPECT_EQ(dag.edges[2].to, kG | 4);
}

TEST(BuildExecDag, AnUnclonedContainerInlinesItsBody) {
  TemplateGraph g;
  g.nodes = {{H(1), DagNodeType::kKernel, nullptr},
             {H(2), DagNodeType::kChildGraph, nullptr},
             {H(5), DagNodeType::kKernel, H(2)},
             {H(6), DagNodeType::kKernel, H(2)},
             {H(3), DagNodeType::kKernel, nullptr}};
  g.edges = {{H(1), H(2), DagEdgeType::kFull},
             {H(2), H(3), DagEdgeType::kFull},
             {H(5), H(6), DagEdgeType::kFull}};
  GraphDag dag =
      BuildExecDag(7, g, {{H(1), kG | 0}, {H(5), kG | 2}, {H(6), kG | 3}, {H(3), kG | 4}});
  ASSERT_EQ(dag.nodes.size(), 4u);
  for (const DagNode& n : dag.nodes) EXPECT_EQ(n.parent_id, 0u);
  // 1 -> 5 -> 6 -> 3, the container's place taken by its body.
  ASSERT_EQ(dag.edges.size(), 3u);
  EXPECT_EQ(dag.edges[0].from, kG | 0);
  EXPECT_EQ(dag.edges[0].to, kG | 2);
  EXPECT_EQ(dag.edges[1].from, kG | 2);
  EXPECT_EQ(dag.edges[1].to, kG | 3);
  EXPECT_EQ(dag.edges[2].from, kG | 3);
  EXPECT_EQ(dag.edges[2].to, kG | 4);
}

TEST(DagTypeOf, EdgePorts) {
  CUgraphEdgeData e{};
  EXPECT_EQ(DagTypeOf(e), DagEdgeType::kFull);
  e.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
  e.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
  EXPECT_EQ(DagTypeOf(e), DagEdgeType::kProgrammatic);
  e.from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER;
  EXPECT_EQ(DagTypeOf(e), DagEdgeType::kLaunchOrder);
  EXPECT_EQ(DagTypeOf(CU_GRAPH_NODE_TYPE_CONDITIONAL), DagNodeType::kConditional);
  EXPECT_STREQ(DagNodeTypeName(DagTypeOf(CU_GRAPH_NODE_TYPE_GRAPH)), "child_graph");
}

TEST(TemplateShape, NeedsNoClonesAndFeedsTheBodyProof) {
  // reset -> WHILE -> k, no clone reported for any node (BuildExecDag would drop them all).
  TemplateGraph g;
  g.nodes = {{H(1), DagNodeType::kKernel, nullptr},
             {H(2), DagNodeType::kConditional, nullptr},
             {H(3), DagNodeType::kKernel, nullptr},
             {H(4), DagNodeType::kKernel, H(9)}};  // in a body whose node is not listed
  g.edges = {{H(1), H(2), DagEdgeType::kFull}, {H(2), H(3), DagEdgeType::kFull}};
  g.bodies_unread = true;
  GraphDag shape = TemplateShape(g);
  ASSERT_EQ(shape.nodes.size(), 4u);
  EXPECT_EQ(shape.nodes[1].node_id, 2u);
  EXPECT_EQ(shape.nodes[1].type, DagNodeType::kConditional);
  EXPECT_NE(shape.nodes[3].parent_id, 0u);  // not top level, though its parent is unknown
  ASSERT_EQ(shape.edges.size(), 2u);
  EXPECT_EQ(shape.edges[0].from, 1u);
  EXPECT_EQ(shape.edges[0].to, 2u);
  EXPECT_FALSE(shape.complete);
  EXPECT_TRUE(ProvesBodyOwner(shape));
  EXPECT_TRUE(BuildExecDag(7, g, {}).nodes.empty());
  g.edges = {{H(2), H(1), DagEdgeType::kFull}};  // the conditional first
  EXPECT_FALSE(ProvesBodyOwner(TemplateShape(g)));
}

}  // namespace
}  // namespace nodescope::cupti
