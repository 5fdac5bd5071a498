// The simulated "SYCL / Level Zero runtime" (sim_sycl.h) and what PTI 1.0 reports of it
// (docs/pti-notes.md): every runtime call takes a fresh correlation id and, when the runtime API
// view is on, leaves an API record (external correlation records first) as it returns; the Level
// Zero append inside a kernel, copy or fill call shares that id (driver API view); a GPU operation
// takes the id and a fresh kernel id when it is appended, and is reported when its queue is waited
// on, into the buffer of the thread that appended it. A graph's commands are made once: at
// finalize (each node inside its own urCommandBufferAppendKernelLaunchExp call, with that call's
// id) when the kernel view is on then, else by a command-list visit at its first submission under
// tracing (with that submission's id; SIM_PTI_NO_VISIT=1: never, as without the driver's visit
// extension); every replay reports the same commands with a new submit time and queue.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/pti_sim/sim_internal.h"
#include "tests/pti_sim/sim_sycl.h"

namespace simsycl {

using namespace ptisim;

namespace {

constexpr uint64_t kLaunchLatencyNs = 2000;
constexpr int kMaxDevices = 8;

struct Device {
  char pci[PTI_MAX_PCI_ADDRESS_SIZE];
  uint8_t uuid[PTI_MAX_DEVICE_UUID_SIZE];
};
Device g_devices[kMaxDevices];
int g_context;  // the one Level Zero context: its address is the handle
std::atomic<uint64_t> g_queue_ids{1000};
std::atomic<uint64_t> g_kernels{0}, g_copies{0}, g_fills{0};
std::once_flag g_devices_once;

// One GPU operation as PTI keeps it (its ZeKernelCommand), and one execution of it.
struct Command {
  pti_view_kind kind = PTI_VIEW_DEVICE_GPU_KERNEL;
  const char* name = "";  // interned: records point at it for good
  uint32_t correlation_id = 0;
  uint64_t id = 0;  // kernel id / memory operation id
  uint32_t tid = 0;
  uint64_t append = 0, task_begin = 0, enqk_begin = 0;
  uint64_t node_id = 0, sycl_queue_id = PTI_INVALID_QUEUE_ID;
  uint32_t invocation = 0;
  uint64_t bytes = 0, value = 0;
  pti_view_memcpy_type copy_type = PTI_VIEW_MEMCPY_TYPE_M2M;
  pti_view_memory_type src = PTI_VIEW_MEMORY_TYPE_MEMORY, dst = PTI_VIEW_MEMORY_TYPE_MEMORY;
  int device = 0, peer = -1;  // peer: the destination device of a P2P copy
  uint64_t duration = 0;
};
struct Execution {
  Command command;
  const void* queue;
  uint64_t submit, start, end;
  uint32_t engine_index;
};

// Queues, graphs and executable graphs live for the process (handles in records delivered late
// stay valid); kept reachable here.
template <typename T>
T* Keep(T* object) {
  static std::mutex mu;
  static auto* kept = new std::vector<void*>;
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(object);
  return object;
}

// Names the records point at, kept for the life of the process (PTI's kernel name storage).
const char* Intern(const std::string& name) {
  static std::mutex mu;
  static auto* names = new std::set<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(name).first->c_str();
}

// The XPTI trace event a kernel submission makes: unique id from its code location, instance
// number per event (PTI's _sycl_node_id and _sycl_invocation_id).
uint64_t TraceEventId(const std::string& name, uint32_t line) {
  uint64_t hash = 1469598103934665603ull;
  for (char c : name + ":" + std::to_string(line)) hash = (hash ^ uint8_t(c)) * 1099511628211ull;
  return hash;
}
uint32_t NextInvocation(uint64_t event) {
  static std::mutex mu;
  static std::map<uint64_t, uint32_t> counts;
  std::lock_guard<std::mutex> lock(mu);
  return ++counts[event];
}

// One runtime call: a fresh correlation id; its API record when it returns.
struct Call {
  explicit Call(pti_api_id_runtime_sycl runtime_api) : api(runtime_api) {}
  ~Call() { EmitApi(PTI_VIEW_RUNTIME_API, api, id, start, RawNs()); }
  pti_api_id_runtime_sycl api;
  uint32_t id = NextCorrelationId();
  uint64_t start = RawNs();
};

void InitDevices() {
  for (int i = 0; i < kMaxDevices; ++i) {
    std::snprintf(g_devices[i].pci, sizeof(g_devices[i].pci), "0:%x:0.0", 0x3a + 0x40 * i);
    for (int b = 0; b < PTI_MAX_DEVICE_UUID_SIZE; ++b) g_devices[i].uuid[b] = uint8_t(b * 17 + i);
    g_devices[i].uuid[0] = 0x86;
  }
}

void FillDevice(int device, char* pci, uint8_t* uuid) {
  std::memcpy(pci, g_devices[device].pci, PTI_MAX_PCI_ADDRESS_SIZE);
  std::memcpy(uuid, g_devices[device].uuid, PTI_MAX_DEVICE_UUID_SIZE);
}

// The record of one execution, in the layout ptiVersion() announces (a v2 record's first bytes
// are the v1 record: only its size differs).
void Report(const Execution& e) {
  const Command& c = e.command;
  if (!ViewEnabled(c.kind)) return;
  alignas(8) unsigned char record[sizeof(pti_view_record_memory_copy_p2p_v2)] = {};
  auto common = [&](auto* r) {
    r->_view_kind._view_kind = c.kind;
    r->_queue_handle = const_cast<void*>(e.queue);
    r->_context_handle = &g_context;
    r->_name = c.name;
    r->_correlation_id = c.correlation_id;
    r->_thread_id = c.tid;
    r->_append_timestamp = ToUserClock(c.append);
    r->_submit_timestamp = ToUserClock(e.submit);
    r->_start_timestamp = ToUserClock(e.start);
    r->_end_timestamp = ToUserClock(e.end);
    r->_sycl_queue_id = c.sycl_queue_id;
    r->_engine_ordinal = 0;
    r->_engine_index = e.engine_index;
  };
  auto copy = [&](auto* r) {  // a copy's fields, the same in a P2P copy record
    common(r);
    r->_memcpy_type = c.copy_type;
    r->_mem_src = c.src;
    r->_mem_dst = c.dst;
    r->_mem_op_id = c.id;
    r->_bytes = c.bytes;
  };
  if (c.kind == PTI_VIEW_DEVICE_GPU_KERNEL) {
    auto* r = reinterpret_cast<pti_view_record_kernel_v2*>(record);
    common(r);
    r->_source_file_name = "sim_program.cc";
    r->_kernel_id = c.id;
    FillDevice(c.device, r->_pci_address, r->_device_uuid);
    r->_sycl_task_begin_timestamp = ToUserClock(c.task_begin);
    r->_sycl_enqk_begin_timestamp = ToUserClock(c.enqk_begin);
    r->_sycl_node_id = c.node_id;
    r->_sycl_invocation_id = c.invocation;
    r->_device_handle = &g_devices[c.device];
  } else if (c.kind == PTI_VIEW_DEVICE_GPU_MEM_COPY) {
    auto* r = reinterpret_cast<pti_view_record_memory_copy_v2*>(record);
    copy(r);
    FillDevice(c.device, r->_pci_address, r->_device_uuid);
    // The source device's handle: null when the source is host memory (PTI's MemCopyEvent).
    r->_device_handle = c.src == PTI_VIEW_MEMORY_TYPE_DEVICE ? &g_devices[c.device] : nullptr;
  } else if (c.kind == PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P) {
    auto* r = reinterpret_cast<pti_view_record_memory_copy_p2p_v2*>(record);
    copy(r);
    FillDevice(c.device, r->_src_pci_address, r->_src_uuid);
    FillDevice(c.peer, r->_dst_pci_address, r->_dst_uuid);
    r->_src_device_handle = &g_devices[c.device];
    r->_dst_device_handle = &g_devices[c.peer];
  } else {
    auto* r = reinterpret_cast<pti_view_record_memory_fill_v2*>(record);
    common(r);
    r->_mem_type = c.dst;
    r->_mem_op_id = c.id;
    r->_bytes = c.bytes;
    r->_value_for_set = c.value;
    FillDevice(c.device, r->_pci_address, r->_device_uuid);
    r->_device_handle = &g_devices[c.device];
  }
  Insert(record, RecordSize(c.kind), c.tid);
  CountGpuRecord();
}

}  // namespace

struct Queue {
  int device = 0;
  int index = 0;
  uint64_t sycl_id = 0;
  std::mutex mu;
  uint64_t busy_until = 0;
  std::vector<Execution> pending;

  // Runs `c` after what is queued (back to back on the modeled device); pending until Wait().
  void Enqueue(const Command& c, uint64_t submit, bool traced) {
    std::lock_guard<std::mutex> lock(mu);
    uint64_t start = std::max(submit + kLaunchLatencyNs, busy_until);
    busy_until = start + c.duration;
    if (traced) pending.push_back({c, this, submit, start, busy_until, uint32_t(index % 4)});
  }
};

struct Node {
  std::string name;
  uint64_t duration;
  uint32_t line;
};
struct Graph {
  int device;
  std::vector<Node> nodes;
};
struct Exec {
  int device;
  std::vector<Node> nodes;
  std::mutex mu;
  std::vector<Command> commands;  // made once (finalize or first visit), reused by every replay
};

int DeviceCount() {
  static const int count = [] {
    const char* env = std::getenv("SIM_DEVICE_COUNT");
    int n = env ? std::atoi(env) : 2;
    return std::clamp(n, 1, kMaxDevices);
  }();
  return count;
}

Queue* CreateQueue(int device) {
  std::call_once(g_devices_once, InitDevices);
  Call call(urQueueCreate_id);
  static std::atomic<int> per_device[kMaxDevices];
  auto* queue = Keep(new Queue);
  queue->device = std::clamp(device, 0, DeviceCount() - 1);
  queue->index = per_device[queue->device]++;
  queue->sycl_id = g_queue_ids++;
  return queue;
}

int QueueDevice(const Queue* queue) { return queue->device; }
const void* QueueHandle(const Queue* queue) { return queue; }
uint64_t QueueSyclId(const Queue* queue) { return queue->sycl_id; }

namespace {
// A kernel, copy or fill submitted through `call` on `queue`, with its Level Zero append.
void Append(Queue* queue, Command c, const Call& call, pti_api_id_driver_levelzero append_api) {
  const uint64_t append_start = RawNs();
  const bool traced = ViewEnabled(c.kind);
  c.correlation_id = call.id;
  c.id = NextKernelId();
  c.tid = Tid();
  c.append = RawNs();
  c.device = queue->device;
  c.sycl_queue_id = queue->sycl_id;
  queue->Enqueue(c, c.append, traced);  // an immediate command list: submitted as appended
  EmitApi(PTI_VIEW_DRIVER_API, append_api, call.id, append_start, RawNs());
}
}  // namespace

void Launch(Queue* queue, const char* kernel, uint64_t duration_ns, uint32_t line) {
  Call call(urEnqueueKernelLaunch_id);
  Command c;
  c.name = Intern(kernel);
  c.duration = duration_ns;
  c.task_begin = c.enqk_begin = call.start;
  c.node_id = TraceEventId(kernel, line);
  c.invocation = NextInvocation(c.node_id);
  Append(queue, c, call, zeCommandListAppendLaunchKernel_id);
  ++g_kernels;
}

void Memcpy(Queue* queue, Copy direction, uint64_t bytes, int peer) {
  Call call(urEnqueueUSMMemcpy_id);
  Command c;
  const bool p2p = direction == Copy::kDeviceToDevice && peer >= 0 && peer != queue->device &&
                   peer < DeviceCount();
  c.kind = p2p ? PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P : PTI_VIEW_DEVICE_GPU_MEM_COPY;
  c.peer = p2p ? peer : -1;
  c.src =
      direction == Copy::kHostToDevice ? PTI_VIEW_MEMORY_TYPE_MEMORY : PTI_VIEW_MEMORY_TYPE_DEVICE;
  c.dst =
      direction == Copy::kDeviceToHost ? PTI_VIEW_MEMORY_TYPE_MEMORY : PTI_VIEW_MEMORY_TYPE_DEVICE;
  c.copy_type = direction == Copy::kHostToDevice   ? PTI_VIEW_MEMCPY_TYPE_M2D
                : direction == Copy::kDeviceToHost ? PTI_VIEW_MEMCPY_TYPE_D2M
                                                   : PTI_VIEW_MEMCPY_TYPE_D2D;
  const char* types[] = {"M2D", "D2M", "D2D"};
  c.name = Intern(std::string("zeCommandListAppendMemoryCopy(") + types[int(direction)] +
                  (p2p ? " - P2P)" : ")"));
  c.bytes = bytes;
  c.duration = 1000 + bytes / 16;
  Append(queue, c, call, zeCommandListAppendMemoryCopy_id);
  ++g_copies;
}

void Fill(Queue* queue, uint64_t bytes, uint8_t value) {
  Call call(urEnqueueUSMFill_id);
  Command c;
  c.kind = PTI_VIEW_DEVICE_GPU_MEM_FILL;
  c.name = "zeCommandListAppendMemoryFill";
  c.dst = PTI_VIEW_MEMORY_TYPE_DEVICE;
  c.bytes = bytes;
  c.value = value;
  c.duration = 1000 + bytes / 32;
  Append(queue, c, call, zeCommandListAppendMemoryFill_id);
  ++g_fills;
}

void Wait(Queue* queue) {
  Call call(urQueueFinish_id);
  std::vector<Execution> done;
  uint64_t until;
  {
    std::lock_guard<std::mutex> lock(queue->mu);
    done.swap(queue->pending);
    until = queue->busy_until;
  }
  while (RawNs() < until) std::this_thread::yield();  // the device finishes
  for (const Execution& e : done) Report(e);
}

Graph* CreateGraph(int device) {
  return Keep(new Graph{std::clamp(device, 0, DeviceCount() - 1), {}});
}

void AddKernel(Graph* graph, const char* kernel, uint64_t duration_ns, uint32_t line) {
  graph->nodes.push_back({kernel, duration_ns, line});
}

namespace {
Command GraphCommand(const Exec& exec, const Node& node, uint32_t correlation_id,
                     uint64_t sycl_begin, uint64_t node_id, uint32_t invocation) {
  Command c;
  c.name = Intern(node.name);
  c.duration = node.duration;
  c.correlation_id = correlation_id;
  c.id = NextKernelId();
  c.tid = Tid();
  c.append = RawNs();
  c.device = exec.device;
  c.task_begin = c.enqk_begin = sycl_begin;
  c.node_id = node_id;
  c.invocation = invocation;
  return c;  // _sycl_queue_id stays PTI_INVALID_QUEUE_ID: no queue when recorded
}
}  // namespace

Exec* Finalize(Graph* graph) {
  auto* exec = Keep(new Exec);  // its commands are kept, as PTI keeps a command list's
  exec->device = graph->device;
  exec->nodes = graph->nodes;
  for (const Node& node : exec->nodes) {
    Call call(urCommandBufferAppendKernelLaunchExp_id);
    if (!ViewEnabled(PTI_VIEW_DEVICE_GPU_KERNEL)) continue;  // appends not traced
    const uint64_t start = RawNs();
    const uint64_t event = TraceEventId(node.name, node.line);
    exec->commands.push_back(
        GraphCommand(*exec, node, call.id, call.start, event, NextInvocation(event)));
    EmitApi(PTI_VIEW_DRIVER_API, zeCommandListAppendLaunchKernel_id, call.id, start, RawNs());
  }
  if (exec->commands.size() != exec->nodes.size()) exec->commands.clear();
  Call finalize(urCommandBufferFinalizeExp_id);
  return exec;
}

void Submit(Queue* queue, Exec* exec) {
  static const bool graph_api = [] {
    const char* env = std::getenv("SIM_SYCL_GRAPH_API");
    return env && std::string(env) == "graph";
  }();
  static const bool no_visit = std::getenv("SIM_PTI_NO_VISIT") != nullptr;
  // Host time a submission call takes at least (SIM_SYCL_SUBMIT_NS, default 0: as fast as the
  // simulator goes), half before the execute call and half after: real submissions take
  // microseconds, and two threads replaying back to back then overlap often.
  static const uint64_t submit_ns = [] {
    const char* env = std::getenv("SIM_SYCL_SUBMIT_NS");
    return env ? std::strtoull(env, nullptr, 10) : 0;
  }();
  // Sleeping, as a call waiting on the driver would: the other thread runs meanwhile even where
  // both share one core.
  auto spin = [](uint64_t ns) {
    if (ns != 0) std::this_thread::sleep_for(std::chrono::nanoseconds(ns));
  };
  Call call(graph_api ? urEnqueueGraphExp_id : urEnqueueCommandBufferExp_id);
  spin(submit_ns / 2);
  const uint64_t execute_start = RawNs();
  const uint32_t execute_id = NextCorrelationId();  // zeCommandQueueExecuteCommandLists' own
  std::vector<Command> commands;
  {
    std::lock_guard<std::mutex> lock(exec->mu);
    if (exec->commands.empty() && !no_visit && ViewEnabled(PTI_VIEW_DEVICE_GPU_KERNEL)) {
      for (const Node& node : exec->nodes) {
        // A visit copies the thread's current trace-event fields without clearing them; a
        // graph submission made none: 0.
        exec->commands.push_back(GraphCommand(*exec, node, call.id, call.start, 0, 0));
      }
    }
    commands = exec->commands;
  }
  const uint64_t submit = RawNs();  // host time at zeCommandQueueExecuteCommandLists entry
  const bool traced = !commands.empty() && ViewEnabled(PTI_VIEW_DEVICE_GPU_KERNEL);
  for (size_t i = 0; i < exec->nodes.size(); ++i) {
    Command c = traced ? commands[i] : Command{};
    c.duration = exec->nodes[i].duration;
    queue->Enqueue(c, submit, traced);
  }
  g_kernels += exec->nodes.size();
  EmitApi(PTI_VIEW_DRIVER_API, zeCommandQueueExecuteCommandLists_id, execute_id, execute_start,
          RawNs());
  spin(submit_ns - submit_ns / 2);
}

Truth GetTruth() {
  return {g_kernels, g_copies, g_fills, GpuRecords(), ApiRecords(), ExternalRecords(), Dropped()};
}

}  // namespace simsycl
