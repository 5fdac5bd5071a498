// An exec's dependency DAG (model/graph_dag.h), read from the template graph it is instantiated
// from. During cudaGraphInstantiate CUPTI reports each template node cloned into the exec
// (GRAPHNODE_CLONED: the template node, and the exec node whose id the records carry); at the
// call's exit the template is walked through the driver (nodes, typed edges, child-graph bodies)
// and each template node is named by its clone's id.
//
// Instantiation is rare and off the hot path: this allocates freely.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_driver.h"
#include "base/status.h"
#include "model/graph_dag.h"

namespace nodescope::cupti {

// A template graph as the driver reports it, bodies included, by node handle.
struct TemplateGraph {
  struct Node {
    CUgraphNode node = nullptr;
    DagNodeType type = DagNodeType::kOther;
    CUgraphNode parent = nullptr;  // the child-graph node whose body holds it
  };
  struct Edge {
    CUgraphNode from = nullptr;
    CUgraphNode to = nullptr;
    DagEdgeType type = DagEdgeType::kFull;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  // A conditional node's body: CUDA 13.0 has no call that returns it from the node.
  bool bodies_unread = false;
};

// Walks `graph` and, recursively, its child-graph nodes' bodies (at most `max_nodes` nodes).
Status ReadTemplateGraph(const CudaDriver& driver, CUgraph graph, TemplateGraph* out,
                         size_t max_nodes = size_t{1} << 20);

DagNodeType DagTypeOf(CUgraphNodeType type);
DagEdgeType DagTypeOf(const CUgraphEdgeData& edge);

// The exec's DAG: every template node named by its clone's node id (`clones`: template node ->
// exec node id, in any order). A node without a clone (not reported, or not cloned) is spliced
// out: its predecessors are joined to its successors, so ordering through it is kept; the DAG
// is then incomplete when that node was one that runs work (kernel, copy, fill).
GraphDag BuildExecDag(uint32_t exec_id, const TemplateGraph& graph,
                      std::vector<std::pair<CUgraphNode, uint64_t>> clones);

// The template's shape as a DAG whose node ids are the template's node indices + 1 (no clone
// needed): what a property of the nodes' types and order alone is decided on (e.g. sampled
// mode's ProvesBodyOwner, conditional_bodies.h), whichever nodes CUPTI reported cloned.
GraphDag TemplateShape(const TemplateGraph& graph);

}  // namespace nodescope::cupti
