// Inside the simulated HIP runtime (sim_hip.cc, sim_graphs.cc): its objects and state.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sim_hip.h"
#include "sim_internal.h"

struct SimFunction {
  std::string name;
  std::vector<uint64_t> kernel_ids;  // by device
};

namespace sim {

struct HwQueue {
  std::mutex mutex;
  uint64_t id = 0;
  uint64_t busy_until_ns = 0;
  std::atomic<int> launching{0};  // threads inside a launch (graph or plain) on this queue
  struct Packet {
    const SimFunction* function;
    int device;
    uint64_t launcher;
    uint32_t blocks;  // workgroups of 256 (a blit kernel's grid depends on its size)
  };
  std::deque<Packet> pending;
};

struct Device {
  uint64_t agent = 0;
  std::vector<std::unique_ptr<HwQueue>> queues;
  int streams = 0;
};

struct Config {
  int devices = 2;
  int hw_queues = 4;
  int stream_queues = 3;
  uint32_t hazard_per_million = 0;
  uint64_t seed = 1;
  // The CPU cost of writing one node's packet at a graph launch (SIM_NODE_CPU_NS; 0: none, for
  // runs of millions of launches).
  long node_cpu_ns = 2000;
  // Issue 29's hazards (sim_hip.cc): the chance, per million packets processed, that ROCr's
  // overflow path stops processing and leaves the rest of the queue to its async doorbell thread
  // (SIM_ASYNC_PERCENT); per million plain launches, that HIP hands the launch to its worker
  // thread (SIM_WORKER_PERCENT); and AMD_DIRECT_DISPATCH=0 (every launch by the worker).
  uint32_t async_per_million = 0;
  uint32_t worker_per_million = 0;
  bool direct_dispatch = true;
};

inline int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// Default chance, in percent, that a packet is batched while one other thread launches on its
// queue (check_plain_recipe.py and README.md show what it gives).
inline constexpr double kDefaultHazardPercent = 1.5;

}  // namespace sim

struct SimGraphNode {
  SimGraph* graph;
  size_t index;
};
// What a node does at launch, as HIP's CLR does it (f9f995c6, hipamd/src/hip_graph_internal.*,
// rocclr/device/rocm/rocblit.cpp): a kernel node and a memset node (the fill blit kernel
// __amd_rocclr_fillBufferAligned) and a device-to-device copy node (the blit kernel
// __amd_rocclr_copyBuffer) are AQL packets formed at instantiation and written to the launch
// stream's queue; a copy node to or from (pinned) host memory is an SDMA copy the launching thread
// submits with hsa_amd_memory_async_copy in its turn: a MEMORY_COPY record, no dispatch.
struct SimNodeOp {
  enum Kind : uint8_t { kKernel, kMemset, kCopyBlit, kCopySdma } kind = kKernel;
  int copy_kind = 0;  // simMemcpyKind of a copy
  size_t bytes = 0;
  void* dst = nullptr;
  const void* src = nullptr;
  bool operator==(const SimNodeOp&) const = default;
};
struct SimGraph {
  std::vector<std::unique_ptr<SimGraphNode>> nodes;
  std::vector<const SimFunction*> functions;  // the kernel of each packet node (null: SDMA copy)
  std::vector<SimNodeOp> ops;
  std::vector<std::vector<size_t>> deps;
};
// An exec runs its nodes in the order HIP's CLR does (Graph::TopologicalOrder, f9f995c6
// hip_graph_internal.cpp:302-326): breadth first from the roots in node order, each node's
// dependents in the order their edges were added. For a chain or a graph built in layers that is
// node order; for a capture forked to other streams it is not the capture order.
struct SimGraphExec {
  bool live = false;
  const SimGraph* origin = nullptr;
  std::vector<const SimFunction*> functions;  // in the order the packets are written
  std::vector<SimNodeOp> ops;
  std::vector<size_t> position;  // by template node index: where it runs
  std::vector<std::vector<size_t>> deps;
};
struct SimStream {
  uint64_t id;
  int device;
  sim::HwQueue* queue;
  SimGraph* capture = nullptr;       // capturing (began here, or joined through an event)
  std::vector<size_t> capture_tail;  // the nodes its next captured work depends on
};
// An event recorded on a capturing stream carries that capture's tail nodes to the streams that
// wait on it: the fork (a stream joins the capture) and the join (its nodes become dependencies
// again), as HIP's stream capture does.
struct SimEvent {
  SimGraph* capture = nullptr;
  std::vector<size_t> tail;
};

namespace sim {

struct Runtime {
  Config config;
  std::vector<Device> devices;
  std::mutex mutex;  // execs, streams, code objects
  std::vector<std::unique_ptr<SimGraphExec>> execs;
  std::vector<SimGraphExec*> free_execs;  // LIFO: a destroyed exec's address comes back first
  std::vector<std::unique_ptr<SimStream>> streams;
  std::vector<std::unique_ptr<SimGraph>> graphs;  // live graphs (created or captured)
  std::vector<std::unique_ptr<SimFunction>> functions;
  std::vector<std::unique_ptr<SimEvent>> events;
  std::vector<rocprofiler_callback_tracing_code_object_load_data_t> code_objects;
  std::vector<rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t> symbols;
  std::atomic<uint64_t> next_dispatch{1};
  std::atomic<uint64_t> cross_thread{0};
  std::atomic<uint64_t> runtime_thread_dispatches{0};  // processed by the async or worker thread
  std::atomic<uint64_t> next_thread_index{0};
  uint64_t next_code_object = 1;
  uint64_t next_kernel = 1;
};

Runtime& R();          // created at first use, never destroyed
SimGraph* NewGraph();  // owned by the runtime until simhipGraphDestroy
// The order an exec of `graph` runs its nodes in (SimGraphExec).
std::vector<size_t> RunOrder(const SimGraph& graph);
void SetExecNodes(SimGraphExec* exec, const SimGraph& graph);
// CLR's blit kernels, loaded (code-object and kernel-symbol callbacks) at the first use.
const SimFunction* FillKernel();
const SimFunction* CopyKernel();
// Workgroups of a blit kernel for `bytes` (CLR's blits: 256 lanes, 4 bytes a lane).
inline uint32_t BlitBlocks(size_t bytes) { return static_cast<uint32_t>((bytes + 1023) / 1024); }

inline rocprofiler_hip_api_args_t Args() { return rocprofiler_hip_api_args_t{}; }

}  // namespace sim
