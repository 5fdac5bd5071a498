// Reading an exec's DAG (exec_dag.h).
#include "backends/cuda/exec_dag.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace nodescope::cupti {
namespace {

Status DriverError(const char* call, CUresult r) {
  return InternalError(std::string(call) + " failed (CUresult " + std::to_string(r) + ")");
}

Status ReadOne(const CudaDriver& d, CUgraph graph, CUgraphNode parent, TemplateGraph* out,
               size_t max_nodes, int depth) {
  if (depth > 64) return InternalError("child graphs nested more than 64 deep");
  size_t n = 0;
  if (CUresult r = d.cuGraphGetNodes(graph, nullptr, &n); r != CUDA_SUCCESS) {
    return DriverError("cuGraphGetNodes", r);
  }
  if (out->nodes.size() + n > max_nodes) {
    return FailedPreconditionError("the graph has more than " + std::to_string(max_nodes) +
                                   " nodes");
  }
  std::vector<CUgraphNode> nodes(n);
  if (CUresult r = d.cuGraphGetNodes(graph, nodes.data(), &n); r != CUDA_SUCCESS) {
    return DriverError("cuGraphGetNodes", r);
  }
  nodes.resize(n);
  size_t e = 0;
  if (CUresult r = d.cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &e); r != CUDA_SUCCESS) {
    return DriverError("cuGraphGetEdges", r);
  }
  std::vector<CUgraphNode> from(e), to(e);
  std::vector<CUgraphEdgeData> data(e);
  if (e > 0) {
    if (CUresult r = d.cuGraphGetEdges(graph, from.data(), to.data(), data.data(), &e);
        r != CUDA_SUCCESS) {
      return DriverError("cuGraphGetEdges", r);
    }
  }
  for (size_t i = 0; i < std::min(e, from.size()); ++i) {
    out->edges.push_back({from[i], to[i], DagTypeOf(data[i])});
  }
  for (CUgraphNode node : nodes) {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    if (CUresult r = d.cuGraphNodeGetType(node, &type); r != CUDA_SUCCESS) {
      return DriverError("cuGraphNodeGetType", r);
    }
    out->nodes.push_back({node, DagTypeOf(type), parent});
    if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
      CUgraph body = nullptr;
      if (CUresult r = d.cuGraphChildGraphNodeGetGraph(node, &body); r != CUDA_SUCCESS) {
        return DriverError("cuGraphChildGraphNodeGetGraph", r);
      }
      RETURN_IF_ERROR(ReadOne(d, body, node, out, max_nodes, depth + 1));
    } else if (type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
      out->bodies_unread = true;
    }
  }
  return OkStatus();
}

bool RunsWork(DagNodeType t) {
  return t == DagNodeType::kKernel || t == DagNodeType::kMemcpy || t == DagNodeType::kMemset;
}

// Names the nodes of child-graph bodies that no clone named: ordinals after the highest one
// named, the bodies in the order of their containers' ordinals (nested bodies after), each body
// in the driver's order of its nodes.
void DeriveBodyIds(uint32_t exec_id, const TemplateGraph& graph,
                   std::unordered_map<CUgraphNode, uint64_t>* id_of) {
  uint64_t next = 0;
  for (const auto& [node, id] : *id_of) next = std::max(next, (id & 0xffffffffu) + 1);
  std::vector<std::pair<uint64_t, CUgraphNode>> containers;
  for (const TemplateGraph::Node& n : graph.nodes) {
    auto it = id_of->find(n.node);
    if (n.type == DagNodeType::kChildGraph && n.parent == nullptr && it != id_of->end()) {
      containers.emplace_back(it->second, n.node);
    }
  }
  std::sort(containers.begin(), containers.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < containers.size(); ++i) {  // grows as nested containers are named
    for (const TemplateGraph::Node& n : graph.nodes) {
      if (n.parent != containers[i].second || id_of->count(n.node) > 0) continue;
      const uint64_t id = (uint64_t{exec_id} << 32) | next++;
      id_of->emplace(n.node, id);
      if (n.type == DagNodeType::kChildGraph) containers.emplace_back(id, n.node);
    }
  }
}

}  // namespace

DagNodeType DagTypeOf(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      return DagNodeType::kKernel;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      return DagNodeType::kMemcpy;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      return DagNodeType::kMemset;
    case CU_GRAPH_NODE_TYPE_HOST:
      return DagNodeType::kHost;
    case CU_GRAPH_NODE_TYPE_GRAPH:
      return DagNodeType::kChildGraph;
    case CU_GRAPH_NODE_TYPE_EMPTY:
      return DagNodeType::kEmpty;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      return DagNodeType::kWaitEvent;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return DagNodeType::kEventRecord;
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
      return DagNodeType::kSemaphoreSignal;
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
      return DagNodeType::kSemaphoreWait;
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return DagNodeType::kMemAlloc;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return DagNodeType::kMemFree;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
      return DagNodeType::kBatchMemOp;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
      return DagNodeType::kConditional;
    default:
      return DagNodeType::kOther;
  }
}

DagEdgeType DagTypeOf(const CUgraphEdgeData& edge) {
  if (edge.from_port == CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER) return DagEdgeType::kLaunchOrder;
  if (edge.type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC ||
      edge.from_port == CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC) {
    return DagEdgeType::kProgrammatic;
  }
  return DagEdgeType::kFull;
}

Status ReadTemplateGraph(const CudaDriver& driver, CUgraph graph, TemplateGraph* out,
                         size_t max_nodes) {
  if (!driver.can_read_graphs()) {
    return UnavailableError("the CUDA driver lacks cuGraphGetEdges_v2 (CUDA 12.3 or later)");
  }
  return ReadOne(driver, graph, nullptr, out, max_nodes, 0);
}

GraphDag BuildExecDag(uint32_t exec_id, const TemplateGraph& graph,
                      std::vector<std::pair<CUgraphNode, uint64_t>> clones) {
  GraphDag dag;
  dag.graph_id = exec_id;
  dag.complete = !graph.bodies_unread;
  // A clone's id names the exec's node when it carries the exec's graph id. The nodes of a
  // child graph's body are reported with the id of an inner clone instead (measured on the H200,
  // CUDA 13.0): their records carry the exec's ordinals after its top-level nodes, body after
  // body in the order of their containers (DeriveBodyIds).
  std::unordered_map<CUgraphNode, uint64_t> id_of;
  for (const auto& [node, id] : clones) {
    if (id >> 32 == exec_id) id_of.emplace(node, id);
  }
  DeriveBodyIds(exec_id, graph, &id_of);
  std::unordered_map<CUgraphNode, const TemplateGraph::Node*> node_of;
  for (const TemplateGraph::Node& n : graph.nodes) node_of.emplace(n.node, &n);
  // Adjacency by handle, spliced as unnamed nodes are taken out.
  std::unordered_map<CUgraphNode, std::vector<std::pair<CUgraphNode, DagEdgeType>>> succ, pred;
  for (const TemplateGraph::Edge& e : graph.edges) {
    succ[e.from].push_back({e.to, e.type});
    pred[e.to].push_back({e.from, e.type});
  }
  std::unordered_map<CUgraphNode, CUgraphNode> parent_of;
  for (const TemplateGraph::Node& n : graph.nodes) parent_of[n.node] = n.parent;
  auto named = [&](CUgraphNode h) { return h == nullptr || id_of.count(h) > 0; };
  auto erase_link = [](std::vector<std::pair<CUgraphNode, DagEdgeType>>& v, CUgraphNode h) {
    v.erase(std::remove_if(v.begin(), v.end(), [h](const auto& p) { return p.first == h; }),
            v.end());
  };
  for (const TemplateGraph::Node& n : graph.nodes) {
    if (named(n.node)) continue;
    if (RunsWork(n.type)) dag.complete = false;
    // A container without a name: its body moves up to its parent, between its neighbours
    // (which then need no edge of their own through it).
    bool had_body = false;
    for (auto& [h, p] : parent_of) {
      if (p != n.node) continue;
      had_body = true;
      p = parent_of[n.node];
      if (pred[h].empty()) {
        for (const auto& [q, t] : pred[n.node])
          succ[q].push_back({h, t}), pred[h].push_back({q, t});
      }
      if (succ[h].empty()) {
        for (const auto& [s, t] : succ[n.node])
          pred[s].push_back({h, t}), succ[h].push_back({s, t});
      }
    }
    for (const auto& [q, tq] : pred[n.node]) {
      erase_link(succ[q], n.node);
      if (had_body) continue;
      for (const auto& [s, ts] : succ[n.node]) {
        succ[q].push_back({s, DagEdgeType::kFull});
        pred[s].push_back({q, DagEdgeType::kFull});
      }
    }
    for (const auto& [s, ts] : succ[n.node]) erase_link(pred[s], n.node);
    succ.erase(n.node);
    pred.erase(n.node);
  }
  for (const TemplateGraph::Node& n : graph.nodes) {
    auto it = id_of.find(n.node);
    if (it == id_of.end()) continue;
    const CUgraphNode parent = parent_of[n.node];
    dag.nodes.push_back({it->second, n.type, parent != nullptr ? id_of[parent] : 0});
  }
  for (const auto& [from, list] : succ) {
    auto f = id_of.find(from);
    if (f == id_of.end()) continue;
    for (const auto& [to, type] : list) {
      auto t = id_of.find(to);
      if (t == id_of.end()) continue;
      dag.edges.push_back({f->second, t->second, type});
    }
  }
  std::sort(dag.nodes.begin(), dag.nodes.end(),
            [](const DagNode& a, const DagNode& b) { return a.node_id < b.node_id; });
  std::sort(dag.edges.begin(), dag.edges.end(), [](const DagEdge& a, const DagEdge& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  dag.edges.erase(std::unique(dag.edges.begin(), dag.edges.end(),
                              [](const DagEdge& a, const DagEdge& b) {
                                return a.from == b.from && a.to == b.to;
                              }),
                  dag.edges.end());
  return dag;
}

GraphDag TemplateShape(const TemplateGraph& graph) {
  GraphDag dag;
  std::unordered_map<CUgraphNode, uint64_t> id;
  for (size_t i = 0; i < graph.nodes.size(); ++i) id.emplace(graph.nodes[i].node, i + 1);
  auto id_of = [&](CUgraphNode n) {
    auto it = n != nullptr ? id.find(n) : id.end();
    return it != id.end() ? it->second : uint64_t{0};
  };
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const TemplateGraph::Node& n = graph.nodes[i];
    // A parent not among the nodes: still not top level.
    const uint64_t parent = n.parent == nullptr ? 0 : id_of(n.parent);
    dag.nodes.push_back(
        {i + 1, n.type, n.parent != nullptr && parent == 0 ? ~uint64_t{0} : parent});
  }
  for (const TemplateGraph::Edge& e : graph.edges) {
    const uint64_t from = id_of(e.from), to = id_of(e.to);
    if (from != 0 && to != 0) dag.edges.push_back({from, to, e.type});
  }
  dag.complete = !graph.bodies_unread;
  return dag;
}

}  // namespace nodescope::cupti
