// One graph exec's dependency DAG: its nodes (with the bodies of child-graph and conditional
// nodes) and the edges between them, as the runtime reported them when the exec was
// instantiated. Backends record it (CUPTI: cuGraphGetNodes / cuGraphGetEdges on the template the
// exec was cloned from), the writer stores it in the trace ("nodescopeGraphs", docs/TRACE-DAG.md),
// the analysis reads it back for the critical path and the graph's stable name. Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace nodescope {

// What a node does. Only kernel, copy and fill nodes produce GPU activity records; the others
// (empty, event, host, ...) take part in the DAG's ordering only. The names are the trace's.
enum class DagNodeType : uint8_t {
  kKernel = 0,
  kMemcpy,
  kMemset,
  kHost,
  kChildGraph,  // its body's nodes name it as parent; they run between its predecessors and
                // its successors
  kEmpty,
  kEventRecord,
  kWaitEvent,
  kSemaphoreSignal,
  kSemaphoreWait,
  kMemAlloc,
  kMemFree,
  kBatchMemOp,
  kConditional,  // its body's nodes name it as parent; they run 0..n times per replay
  kOther,
  kCount,
};
const char* DagNodeTypeName(DagNodeType type);  // "kernel", "memcpy", ..., "child_graph", ...
std::optional<DagNodeType> ParseDagNodeType(std::string_view name);

// How the destination waits for the source (CUDA's edge ports; other runtimes: kFull only).
enum class DagEdgeType : uint8_t {
  kFull = 0,          // the destination starts after the source has finished
  kProgrammatic = 1,  // programmatic dependent launch: the destination may start once the
                      // source triggers it, and waits inside (cudaGridDependencySynchronize)
  kLaunchOrder = 2,   // the destination is launched after the source, no completion wait
  kCount,
};
const char* DagEdgeTypeName(DagEdgeType type);  // "full", "programmatic", "launch_order"
std::optional<DagEdgeType> ParseDagEdgeType(std::string_view name);

struct DagNode {
  uint64_t node_id = 0;  // the trace's "graph node id": (graph id << 32) | ordinal
  DagNodeType type = DagNodeType::kOther;
  uint64_t parent_id = 0;  // the child-graph or conditional node whose body holds it; 0: none
};

struct DagEdge {
  uint64_t from = 0;  // node ids; both ends have the same parent
  uint64_t to = 0;
  DagEdgeType type = DagEdgeType::kFull;
};

struct GraphDag {
  uint64_t graph_id = 0;
  int32_t device = -1;         // -1: not known
  uint32_t process = 0;        // a merged trace's process slot (`nodescope merge`); else 0
  std::vector<DagNode> nodes;  // by node id ascending
  std::vector<DagEdge> edges;  // by (from, to) ascending
  // Node ids the attribution issued after an in-place change made a node run something else
  // (node_keys.h), each with the DAG node it runs at: (issued id, node id in `nodes`).
  std::vector<std::pair<uint64_t, uint64_t>> renamed;
  // False when part of the DAG could not be read (e.g. a conditional node's body); the nodes and
  // edges present are right, but a path through the missing part is unknown.
  bool complete = true;
};

}  // namespace nodescope
