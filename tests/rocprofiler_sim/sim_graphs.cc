// The simulated HIP runtime's graphs and execs (sim_hip.h): creation, instantiation (a destroyed
// exec's address first, as HIP's allocator reuses it), update, node parameters, destruction.
#include <memory>
#include <mutex>
#include <vector>

#include "sim_runtime.h"

using sim::ApiCall;
using sim::Args;
using sim::NewGraph;
using sim::R;
using sim::Runtime;

namespace {

// hipGraphExecUpdate's rule: the same dependencies and the same kind of node at each place (a
// copy may change its size or addresses, a kernel node its kernel).
bool SameTopology(const SimGraphExec& exec, const SimGraph& graph) {
  if (exec.deps != graph.deps || exec.ops.size() != graph.ops.size()) return false;
  for (size_t i = 0; i < exec.ops.size(); ++i) {
    if (exec.ops[exec.position[i]].kind != graph.ops[i].kind) return false;
  }
  return true;
}

// Adds a node of `graph` after `deps` (which must be its own) and sets *node to it, as the
// hipGraphAdd*Node calls do; simErrorInvalidValue (*node untouched) on a foreign dependency.
int AddNode(simGraphNode_t* node, SimGraph* graph, const simGraphNode_t* deps, size_t num_deps,
            const SimFunction* function, const SimNodeOp& op) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < num_deps; ++i) {
    if (deps[i]->graph != graph) return simErrorInvalidValue;
    indices.push_back(deps[i]->index);
  }
  graph->nodes.push_back(std::make_unique<SimGraphNode>(SimGraphNode{graph, graph->nodes.size()}));
  graph->functions.push_back(function);
  graph->ops.push_back(op);
  graph->deps.push_back(indices);
  *node = graph->nodes.back().get();
  return simSuccess;
}

const SimFunction* BlitKernel(int which) {
  static const std::vector<simFunction_t>* blits = [] {
    static const char* const kNames[] = {"__amd_rocclr_fillBufferAligned",
                                         "__amd_rocclr_copyBuffer"};
    auto* f = new std::vector<simFunction_t>(2);  // never destroyed, like the runtime
    simhipModuleLoad(kNames, 2, f->data());
    return f;
  }();
  return (*blits)[static_cast<size_t>(which)];
}

}  // namespace

namespace sim {

std::vector<size_t> RunOrder(const SimGraph& graph) {
  const size_t n = graph.deps.size();
  std::vector<std::vector<size_t>> edges(n);
  std::vector<size_t> in(n, 0), order;
  for (size_t i = 0; i < n; ++i) {
    in[i] = graph.deps[i].size();
    for (size_t d : graph.deps[i]) edges[d].push_back(i);  // in the order edges were added
  }
  for (size_t i = 0; i < n; ++i)
    if (in[i] == 0) order.push_back(i);
  for (size_t head = 0; head < order.size(); ++head)
    for (size_t e : edges[order[head]])
      if (--in[e] == 0) order.push_back(e);
  return order;
}

void SetExecNodes(SimGraphExec* exec, const SimGraph& graph) {
  const std::vector<size_t> order = RunOrder(graph);
  exec->functions.clear();
  exec->ops.clear();
  exec->position.assign(graph.deps.size(), 0);
  for (size_t at = 0; at < order.size(); ++at) {
    exec->functions.push_back(graph.functions[order[at]]);
    exec->ops.push_back(graph.ops[order[at]]);
    exec->position[order[at]] = at;
  }
}

const SimFunction* FillKernel() { return BlitKernel(0); }
const SimFunction* CopyKernel() { return BlitKernel(1); }

SimGraph* NewGraph() {
  Runtime& r = R();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.graphs.push_back(std::make_unique<SimGraph>());
  return r.graphs.back().get();
}

}  // namespace sim

extern "C" {

int simhipGraphCreate(simGraph_t* graph) {
  sim::EnsureInitialized();
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphCreate, Args());
  *graph = NewGraph();
  return call.Return(simSuccess);
}

int simhipGraphAddKernelNode(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                             size_t num_deps, simFunction_t function) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphAddKernelNode.pGraphNode = reinterpret_cast<void**>(node);
  args.hipGraphAddKernelNode.graph = graph;
  args.hipGraphAddKernelNode.pDependencies = reinterpret_cast<void* const*>(deps);
  args.hipGraphAddKernelNode.numDependencies = num_deps;
  args.hipGraphAddKernelNode.pNodeParams = &function;  // not hipKernelNodeParams
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode, args);
  return call.Return(AddNode(node, graph, deps, num_deps, function, SimNodeOp{}));
}

int simhipGraphAddMemcpyNode1D(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                               size_t num_deps, void* dst, const void* src, size_t bytes,
                               int kind) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphAddMemcpyNode1D.pGraphNode = reinterpret_cast<void**>(node);
  args.hipGraphAddMemcpyNode1D.graph = graph;
  args.hipGraphAddMemcpyNode1D.pDependencies = reinterpret_cast<void* const*>(deps);
  args.hipGraphAddMemcpyNode1D.numDependencies = num_deps;
  args.hipGraphAddMemcpyNode1D.dst = dst;
  args.hipGraphAddMemcpyNode1D.src = src;
  args.hipGraphAddMemcpyNode1D.count = bytes;
  args.hipGraphAddMemcpyNode1D.kind = kind;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemcpyNode1D, args);
  // Host to host is a CPU memcpy in CLR (no record at all): not modelled.
  if (kind < simMemcpyHostToDevice || kind > simMemcpyDeviceToDevice)
    return call.Return(simErrorInvalidValue);
  SimNodeOp op;
  op.kind = kind == simMemcpyDeviceToDevice ? SimNodeOp::kCopyBlit : SimNodeOp::kCopySdma;
  op.copy_kind = kind;
  op.bytes = bytes;
  op.dst = dst;
  op.src = src;
  return call.Return(AddNode(node, graph, deps, num_deps,
                             op.kind == SimNodeOp::kCopyBlit ? sim::CopyKernel() : nullptr, op));
}

int simhipGraphAddMemsetNode(simGraphNode_t* node, simGraph_t graph, const simGraphNode_t* deps,
                             size_t num_deps, void* dst, int value, size_t bytes) {
  sim::EnsureInitialized();
  struct {
    void* dst;
    int value;
    size_t bytes;
  } params{dst, value, bytes};
  auto args = Args();
  args.hipGraphAddMemsetNode.pGraphNode = reinterpret_cast<void**>(node);
  args.hipGraphAddMemsetNode.graph = graph;
  args.hipGraphAddMemsetNode.pDependencies = reinterpret_cast<void* const*>(deps);
  args.hipGraphAddMemsetNode.numDependencies = num_deps;
  args.hipGraphAddMemsetNode.pMemsetParams = &params;  // not hipMemsetParams
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddMemsetNode, args);
  SimNodeOp op;
  op.kind = SimNodeOp::kMemset;
  op.bytes = bytes;
  op.dst = dst;
  return call.Return(AddNode(node, graph, deps, num_deps, sim::FillKernel(), op));
}

int simhipGraphDestroy(simGraph_t graph) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphDestroy.graph = graph;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy, args);
  Runtime& r = R();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.graphs.begin(); it != r.graphs.end(); ++it) {
    if (it->get() == graph) {
      r.graphs.erase(it);
      return call.Return(simSuccess);
    }
  }
  return call.Return(simErrorInvalidValue);
}

namespace {
// A new exec (a destroyed one's address first) copying the graph, during `call`.
SimGraphExec* NewExec(const SimGraph* graph) {
  Runtime& r = R();
  SimGraphExec* exec;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (!r.free_execs.empty()) {
      exec = r.free_execs.back();
      r.free_execs.pop_back();
    } else {
      r.execs.push_back(std::make_unique<SimGraphExec>());
      exec = r.execs.back().get();
    }
  }
  exec->live = true;
  exec->origin = graph;
  sim::SetExecNodes(exec, *graph);
  exec->deps = graph->deps;
  return exec;
}
}  // namespace

int simhipGraphInstantiate(simGraphExec_t* out, simGraph_t graph) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphInstantiate.pGraphExec = reinterpret_cast<void**>(out);
  args.hipGraphInstantiate.graph = graph;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate, args);
  *out = NewExec(graph);
  return call.Return(simSuccess);
}

int simhipGraphInstantiateWithFlags(simGraphExec_t* out, simGraph_t graph,
                                    unsigned long long flags) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphInstantiateWithFlags.pGraphExec = reinterpret_cast<void**>(out);
  args.hipGraphInstantiateWithFlags.graph = graph;
  args.hipGraphInstantiateWithFlags.flags = flags;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags, args);
  *out = NewExec(graph);
  return call.Return(simSuccess);
}

int simhipGraphExecUpdate(simGraphExec_t exec, simGraph_t graph) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphExecUpdate.hGraphExec = exec;
  args.hipGraphExecUpdate.hGraph = graph;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate, args);
  if (!exec->live || !SameTopology(*exec, *graph))
    return call.Return(simErrorGraphExecUpdateFailure);
  sim::SetExecNodes(exec, *graph);
  return call.Return(simSuccess);
}

int simhipGraphExecKernelNodeSetParams(simGraphExec_t exec, simGraphNode_t node,
                                       simFunction_t function) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphExecKernelNodeSetParams.hGraphExec = exec;
  args.hipGraphExecKernelNodeSetParams.node = node;
  args.hipGraphExecKernelNodeSetParams.pNodeParams = &function;  // not hipKernelNodeParams
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams, args);
  if (!exec->live || node->graph != exec->origin ||
      exec->ops[exec->position[node->index]].kind != SimNodeOp::kKernel)
    return call.Return(simErrorInvalidValue);
  exec->functions[exec->position[node->index]] = function;
  return call.Return(simSuccess);
}

int simhipGraphExecDestroy(simGraphExec_t exec) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipGraphExecDestroy.graphExec = exec;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy, args);
  Runtime& r = R();
  std::lock_guard<std::mutex> lock(r.mutex);
  exec->live = false;
  r.free_execs.push_back(exec);
  return call.Return(simSuccess);
}

}  // extern "C"
