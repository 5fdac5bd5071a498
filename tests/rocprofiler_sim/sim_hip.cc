// The simulated HIP runtime (sim_hip.h) on top of the simulated SDK: devices and agents, streams,
// launches, copies, capture and code objects (graphs and execs: sim_graphs.cc), each call
// reported to the tool as the real HIP + rocprofiler-sdk pair reports it.
//
// The hardware-queue hazard. Each device has GPU_MAX_HW_QUEUES hardware queues (default 4);
// streams are given queues round robin in creation order. A graph launch appends its packets to
// its stream's queue in topological order. The first is written at once; each later one, while
// k other threads are inside a graph launch on the same queue, is left pending (batched) with
// probability SIM_HAZARD_PERCENT * k(k+1)/2 until the next time a thread rings that queue's
// doorbell: its launcher at its next packet or at the end of its launch, or ANOTHER launching
// thread in the meantime. Whoever writes a packet is, to the SDK, the thread the dispatch comes
// from: the request callback runs there, with that thread's id, and the dispatch takes that
// thread's latest correlation id (RS/lib/rocprofiler-sdk/hsa/queue.cpp:281-310 in
// ROCM-PTI-FACTS.md). A queue used by one launching stream is therefore always clean.
//
// Issue 29 adds what ROCr and HIP do beyond that, each from the sources
// (ROCm/rocm-systems@1b1610fc, ROCr
// projects/rocr-runtime/runtime/hsa-runtime/core/runtime/intercept_queue.cpp):
//  - Plain launches (simhipLaunchKernel) are packets like any other: the thread that rings a
//    queue's doorbell processes every valid packet on it, whoever wrote it (:324-398), so a plain
//    launch's packet may be left pending and processed by a graph launcher, and the reverse.
//  - ROCr's overflow path (SIM_ASYNC_PERCENT): when processing puts packets on the overflow list it
//    stops (:389-392) and a barrier's async handler rings the doorbell later (:174-183, :333-346):
//    the rest of the queue is processed on ROCr's own thread, in no HIP call (a fresh correlation
//    id, RS/lib/rocprofiler-sdk/hsa/queue.cpp:281-298), unless a launching thread rings first.
//  - HIP's worker thread (SIM_WORKER_PERCENT, AMD_DIRECT_DISPATCH=0): a launch handed to the
//    runtime's worker is written, and the queue processed, there: in no HIP call.
//
// Calibration (not derived from HIP's source): the runtime keeps one queue of a small pool to
// itself (queues for streams = q - 1 when q <= 4, else q), so with the default 4 queues a fourth
// launching thread shares a queue and with 8 queues 8 threads do not; the batching chance and its
// growth with contention were chosen so that the plain per-thread recipe sees about the aliasing
// measured on MI355X (issue 12). README.md in this folder gives what this model produces.
#include "sim_hip.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim_runtime.h"

using sim::ApiCall;
using sim::Args;
using sim::Config;
using sim::Device;
using sim::HwQueue;
using sim::NewGraph;
using sim::R;
using sim::Runtime;

namespace sim {

Runtime& R() {
  static Runtime* runtime = [] {
    auto* r = new Runtime;  // never destroyed: used until the SDK's finalize at exit
    Config& c = r->config;
    c.devices = std::max(1, EnvInt("SIM_DEVICE_COUNT", 2));
    c.hw_queues = std::max(1, EnvInt("GPU_MAX_HW_QUEUES", 4));
    c.stream_queues = c.hw_queues <= 4 ? std::max(1, c.hw_queues - 1) : c.hw_queues;
    const char* hazard = std::getenv("SIM_HAZARD_PERCENT");
    const double percent = hazard != nullptr ? std::atof(hazard) : kDefaultHazardPercent;
    c.hazard_per_million = static_cast<uint32_t>(percent * 10000.0);
    c.seed = static_cast<uint64_t>(EnvInt("SIM_SEED", 1));
    c.node_cpu_ns = std::max(0, EnvInt("SIM_NODE_CPU_NS", 2000));
    auto per_million = [](const char* name) {
      const char* v = std::getenv(name);
      return v != nullptr ? static_cast<uint32_t>(std::atof(v) * 10000.0) : 0u;
    };
    c.async_per_million = per_million("SIM_ASYNC_PERCENT");
    c.worker_per_million = per_million("SIM_WORKER_PERCENT");
    const char* direct = std::getenv("AMD_DIRECT_DISPATCH");
    c.direct_dispatch = direct == nullptr || std::string(direct) != "0";
    uint64_t queue_id = 1;
    r->devices.resize(static_cast<size_t>(c.devices));
    for (size_t d = 0; d < r->devices.size(); ++d) {
      r->devices[d].agent = 2 + d;  // agent 1 is the CPU
      for (int q = 0; q < c.stream_queues; ++q) {
        r->devices[d].queues.push_back(std::make_unique<HwQueue>());
        r->devices[d].queues.back()->id = queue_id++;
      }
    }
    return r;
  }();
  return *runtime;
}

}  // namespace sim

namespace {

thread_local int t_device = 0;

// Per-thread random choices: reproducible for a given seed and thread start order.
uint32_t NextRandom() {
  static thread_local uint64_t state = 0;
  if (state == 0)
    state = (R().config.seed * 0x9E3779B97F4A7C15ull) ^
            (R().next_thread_index++ + 1) * 0xBF58476D1CE4E5B9ull;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return static_cast<uint32_t>(state % 1000000);
}

void SleepNs(long ns) {
  timespec ts{0, ns};
  nanosleep(&ts, nullptr);
}

// A thread of the runtime's own (ROCr's async doorbell handler, HIP's worker): runs jobs in order,
// in no HIP call. Never destroyed (used until the process exits).
class RuntimeThread {
 public:
  void Post(std::function<void()> job) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!started_) {
      started_ = true;
      std::thread([this] { Run(); }).detach();
    }
    jobs_.push_back(std::move(job));
    ++posted_;
    cv_.notify_all();
  }
  // Until every job posted so far has run.
  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    const uint64_t target = posted_;
    cv_.wait(lock, [&] { return done_ >= target; });
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return !jobs_.empty(); });
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
      ++done_;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  uint64_t posted_ = 0, done_ = 0;
  bool started_ = false;
};
RuntimeThread& AsyncThread() {
  static auto* t = new RuntimeThread;
  return *t;
}
RuntimeThread& WorkerThread() {
  static auto* t = new RuntimeThread;
  return *t;
}
thread_local bool t_runtime_thread = false;  // this thread is the async or the worker thread

void Drain(HwQueue& queue, bool may_overflow = true);

// ROCr's overflow path: the rest of the queue processed on its async doorbell thread.
void DeferToAsync(HwQueue* queue) {
  AsyncThread().Post([queue] {
    t_runtime_thread = true;
    std::lock_guard<std::mutex> lock(queue->mutex);
    Drain(*queue, /*may_overflow=*/false);
  });
}

// Writes every pending packet of `queue` on this thread (the caller holds queue.mutex), as ROCr's
// InterceptQueue::StoreRelaxed processes every valid packet; with SIM_ASYNC_PERCENT, after a
// packet, processing may stop there (the overflow list) and the rest go to ROCr's async thread.
void Drain(HwQueue& queue, bool may_overflow) {
  Runtime& r = R();
  // Overflow packets that could not all be submitted: no space for the others either
  // (intercept_queue.cpp:333-342); the async handler's doorbell ring processes them later.
  if (may_overflow && !queue.pending.empty() && r.config.async_per_million > 0 &&
      NextRandom() < r.config.async_per_million) {
    DeferToAsync(&queue);
    return;
  }
  while (!queue.pending.empty()) {
    HwQueue::Packet packet = queue.pending.front();
    queue.pending.pop_front();
    const sim::Correlation c =
        sim::CorrelateAsync(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
                            ROCPROFILER_KERNEL_DISPATCH_ENQUEUE);
    if (packet.launcher != sim::ThreadId()) r.cross_thread.fetch_add(1);
    if (t_runtime_thread) r.runtime_thread_dispatches.fetch_add(1);
    rocprofiler_kernel_dispatch_info_t info{};
    info.agent_id.handle = r.devices[static_cast<size_t>(packet.device)].agent;
    info.queue_id.handle = queue.id;
    info.kernel_id = packet.function->kernel_ids[static_cast<size_t>(packet.device)];
    info.dispatch_id = r.next_dispatch.fetch_add(1);
    info.workgroup_size = {256, 1, 1};
    info.grid_size = {256 * packet.blocks, 1, 1};
    const uint64_t start = std::max(sim::BootNs() + 1000, queue.busy_until_ns);
    queue.busy_until_ns = start + 2000;
    sim::EmitKernelDispatch(c, info, start, start + 2000);
    if (may_overflow && !queue.pending.empty() && r.config.async_per_million > 0 &&
        NextRandom() < r.config.async_per_million) {
      DeferToAsync(&queue);
      return;
    }
  }
}

// Appends one packet; writes it (and whatever else is pending) now unless it is batched.
void Submit(SimStream* stream, const SimFunction* function, bool may_batch, uint32_t blocks = 1) {
  HwQueue& queue = *stream->queue;
  std::lock_guard<std::mutex> lock(queue.mutex);
  queue.pending.push_back({function, stream->device, sim::ThreadId(), blocks});
  // Batching grows with contention: each other thread launching on this queue adds the chance.
  const int others = queue.launching.load(std::memory_order_relaxed) - 1;
  const uint64_t chance = may_batch && others > 0
                              ? uint64_t{R().config.hazard_per_million} *
                                    static_cast<uint64_t>(others * (others + 1) / 2)
                              : 0;
  if (NextRandom() >= chance) Drain(queue);
}

constexpr rocprofiler_memory_copy_operation_t kDirection[] = {
    ROCPROFILER_MEMORY_COPY_HOST_TO_HOST, ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
    ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST, ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE};

// A copy of `bytes` of simMemcpyKind `kind` on `stream`'s device as the SDK's async-copy wrapper
// reports it: the request callback on this thread, this thread's latest correlation id, and a
// record timed by the copy engine, starting no earlier than `not_before`. Returns its end.
uint64_t EmitCopy(const SimStream& stream, int kind, const void* dst, const void* src, size_t bytes,
                  uint64_t not_before) {
  const rocprofiler_memory_copy_operation_t direction = kDirection[kind];
  const sim::Correlation c =
      sim::CorrelateAsync(ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY, direction);
  const uint64_t gpu = R().devices[static_cast<size_t>(stream.device)].agent;
  const bool src_host = kind == simMemcpyHostToHost || kind == simMemcpyHostToDevice;
  const bool dst_host = kind == simMemcpyHostToHost || kind == simMemcpyDeviceToHost;
  const uint64_t start = std::max(sim::BootNs() + 1000, not_before);
  const uint64_t end = start + 500 + bytes / 16;
  sim::EmitMemoryCopy(c, direction, dst_host ? 1 : gpu, src_host ? 1 : gpu, bytes, dst, src, start,
                      end);
  return end;
}

// An SDMA copy node in its turn: the launching thread rings its queue (the packets before the
// copy must be written for the copy to wait on them), then submits the copy itself (the
// correlation id it takes is the hipGraphLaunch's), after the queue's work.
void CopyNode(SimStream* stream, const SimNodeOp& op) {
  HwQueue& queue = *stream->queue;
  std::lock_guard<std::mutex> lock(queue.mutex);
  Drain(queue);
  queue.busy_until_ns =
      EmitCopy(*stream, op.copy_kind, op.dst, op.src, op.bytes, queue.busy_until_ns);
}

void Ring(SimStream* stream) {
  std::lock_guard<std::mutex> lock(stream->queue->mutex);
  Drain(*stream->queue);
}

// Every job the runtime's own threads were given so far has run (a synchronize waits for them).
void WaitRuntimeThreads() {
  if (!R().config.direct_dispatch || R().config.worker_per_million > 0) WorkerThread().WaitIdle();
  if (R().config.async_per_million > 0) AsyncThread().WaitIdle();
}

// HIP's stream callbacks around a call taking a stream.
struct StreamSet {
  explicit StreamSet(SimStream* s) : stream(s) {
    if (stream)
      sim::EmitStream(ROCPROFILER_HIP_STREAM_SET, ROCPROFILER_CALLBACK_PHASE_ENTER, stream->id,
                      stream, slots);
  }
  ~StreamSet() {
    if (stream)
      sim::EmitStream(ROCPROFILER_HIP_STREAM_SET, ROCPROFILER_CALLBACK_PHASE_EXIT, stream->id,
                      stream, slots);
  }
  SimStream* stream;
  rocprofiler_user_data_t slots[sim::kMaxContexts]{};
};

}  // namespace

namespace sim {
void UnloadCodeObjects() {
  Runtime& r = R();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.symbols.rbegin(); it != r.symbols.rend(); ++it)
    EmitKernelSymbol(*it, ROCPROFILER_CALLBACK_PHASE_UNLOAD);
  for (auto it = r.code_objects.rbegin(); it != r.code_objects.rend(); ++it)
    EmitCodeObject(*it, ROCPROFILER_CALLBACK_PHASE_UNLOAD);
}
}  // namespace sim

extern "C" {

int simhipGetDeviceCount(int* count) {
  sim::EnsureInitialized();
  *count = R().config.devices;
  return simSuccess;
}

int simhipSetDevice(int device) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipSetDevice.deviceId = device;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipSetDevice, args);
  if (device < 0 || device >= R().config.devices) return call.Return(simErrorInvalidValue);
  t_device = device;
  return call.Return(simSuccess);
}

int simhipDeviceSynchronize(void) {
  sim::EnsureInitialized();
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipDeviceSynchronize, Args());
  return call.Return(simSuccess);
}

int simhipStreamCreate(simStream_t* out) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipStreamCreate.stream = reinterpret_cast<void**>(out);
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamCreate, args);
  Runtime& r = R();
  SimStream* stream;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    Device& device = r.devices[static_cast<size_t>(t_device)];
    auto s = std::make_unique<SimStream>();
    s->id = r.streams.size() + 1;
    s->device = t_device;
    s->queue = device.queues[static_cast<size_t>(device.streams++) % device.queues.size()].get();
    stream = s.get();
    r.streams.push_back(std::move(s));
  }
  *out = stream;
  sim::EmitStream(ROCPROFILER_HIP_STREAM_CREATE, ROCPROFILER_CALLBACK_PHASE_NONE, stream->id,
                  stream);
  return call.Return(simSuccess);
}

int simhipStreamDestroy(simStream_t stream) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipStreamDestroy.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamDestroy, args);
  Ring(stream);
  sim::EmitStream(ROCPROFILER_HIP_STREAM_DESTROY, ROCPROFILER_CALLBACK_PHASE_NONE, stream->id,
                  stream);
  return call.Return(simSuccess);
}

int simhipStreamSynchronize(simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipStreamSynchronize.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamSynchronize, args);
  WaitRuntimeThreads();
  Ring(stream);
  return call.Return(simSuccess);
}

int simhipModuleLoad(const char* const* kernel_names, int count, simFunction_t* functions) {
  sim::EnsureInitialized();
  Runtime& r = R();
  std::vector<SimFunction*> made;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (int i = 0; i < count; ++i) {
      r.functions.push_back(std::make_unique<SimFunction>());
      r.functions.back()->name = kernel_names[i];
      made.push_back(r.functions.back().get());
    }
  }
  for (size_t d = 0; d < r.devices.size(); ++d) {
    rocprofiler_callback_tracing_code_object_load_data_t load{};
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      load.size = sizeof(load);
      load.code_object_id = r.next_code_object++;
      load.agent_id.handle = r.devices[d].agent;
      load.uri = "memory://sim_program#offset=0&size=4096";
      load.load_base = 0x7f0000000000ull + load.code_object_id * 0x100000;
      load.load_size = 4096;
      load.storage_type = ROCPROFILER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
      r.code_objects.push_back(load);
    }
    sim::EmitCodeObject(load, ROCPROFILER_CALLBACK_PHASE_LOAD);
    for (SimFunction* f : made) {
      rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t symbol{};
      {
        std::lock_guard<std::mutex> lock(r.mutex);
        symbol.size = sizeof(symbol);
        symbol.kernel_id = r.next_kernel++;
        symbol.code_object_id = load.code_object_id;
        symbol.kernel_name = f->name.c_str();
        symbol.kernel_object = load.load_base + symbol.kernel_id * 64;
        f->kernel_ids.push_back(symbol.kernel_id);
        r.symbols.push_back(symbol);
      }
      sim::EmitKernelSymbol(symbol, ROCPROFILER_CALLBACK_PHASE_LOAD);
      // The host stub HIP registers for it (__hipRegisterFunction): what hipLaunchKernel names.
      rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t host{};
      host.size = sizeof(host);
      host.host_function_id = symbol.kernel_id;
      host.kernel_id = symbol.kernel_id;
      host.code_object_id = load.code_object_id;
      host.host_function.ptr = f;
      host.device_function = f->name.c_str();
      sim::EmitHostKernelSymbol(host, ROCPROFILER_CALLBACK_PHASE_LOAD);
    }
  }
  for (int i = 0; i < count; ++i) functions[i] = made[static_cast<size_t>(i)];
  return simSuccess;
}

int simhipLaunchKernel(simFunction_t function, simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipLaunchKernel.function_address = function;
  args.hipLaunchKernel.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, args);
  if (stream->capture != nullptr) {
    SimGraph& g = *stream->capture;
    std::lock_guard<std::mutex> lock(R().mutex);  // streams of one capture may be on two threads
    g.nodes.push_back(std::make_unique<SimGraphNode>(SimGraphNode{&g, g.nodes.size()}));
    g.functions.push_back(function);
    g.ops.push_back(SimNodeOp{});
    g.deps.push_back(stream->capture_tail);
    stream->capture_tail = {g.nodes.size() - 1};
    return call.Return(simSuccess);
  }
  // HIP hands the launch to its worker thread (AMD_DIRECT_DISPATCH=0: always), which writes the
  // packet and rings the doorbell there, after this call may have returned.
  const bool worker = !R().config.direct_dispatch || (R().config.worker_per_million > 0 &&
                                                      NextRandom() < R().config.worker_per_million);
  if (worker) {
    const uint64_t launcher = sim::ThreadId();
    stream->queue->launching.fetch_add(1, std::memory_order_relaxed);  // a launch in flight
    WorkerThread().Post([stream, function, launcher] {
      t_runtime_thread = true;
      std::lock_guard<std::mutex> lock(stream->queue->mutex);
      stream->queue->pending.push_back({function, stream->device, launcher, 1});
      Drain(*stream->queue);
      stream->queue->launching.fetch_sub(1, std::memory_order_relaxed);
    });
    return call.Return(simSuccess);
  }
  // A plain launch's packet is a packet like a graph's: it may be left pending while other
  // threads launch on its queue, for whoever rings the doorbell next (issue 29).
  stream->queue->launching.fetch_add(1, std::memory_order_relaxed);
  Submit(stream, function, /*may_batch=*/true);
  if (R().config.node_cpu_ns > 0) SleepNs(R().config.node_cpu_ns);
  Ring(stream);
  stream->queue->launching.fetch_sub(1, std::memory_order_relaxed);
  return call.Return(simSuccess);
}

int simhipMemcpyAsync(void* dst, const void* src, size_t bytes, int kind, simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipMemcpyAsync = {dst, src, bytes, kind, stream};
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync, args);
  if (kind < 0 || kind > 3) return call.Return(simErrorInvalidValue);
  EmitCopy(*stream, kind, dst, src, bytes, /*not_before=*/0);
  return call.Return(simSuccess);
}

int simhipGraphLaunch(simGraphExec_t exec, simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipGraphLaunch.graphExec = exec;
  args.hipGraphLaunch.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch, args);
  if (!exec->live) return call.Return(simErrorInvalidValue);
  if (!R().config.direct_dispatch) {
    // AMD_DIRECT_DISPATCH=0: HIP's worker thread writes the graph's packets and rings the doorbell.
    const uint64_t launcher = sim::ThreadId();
    std::vector<HwQueue::Packet> packets;
    for (size_t i = 0; i < exec->functions.size(); ++i) {
      const SimNodeOp& op = exec->ops[i];
      if (op.kind == SimNodeOp::kCopySdma) continue;  // (copies: not modelled on this path)
      const uint32_t blocks = op.kind == SimNodeOp::kKernel ? 1 : sim::BlitBlocks(op.bytes);
      packets.push_back({exec->functions[i], stream->device, launcher, blocks});
    }
    WorkerThread().Post([stream, packets] {
      t_runtime_thread = true;
      std::lock_guard<std::mutex> lock(stream->queue->mutex);
      for (const auto& p : packets) stream->queue->pending.push_back(p);
      Drain(*stream->queue);
    });
    return call.Return(simSuccess);
  }
  stream->queue->launching.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < exec->functions.size(); ++i) {
    const SimNodeOp& op = exec->ops[i];
    if (op.kind == SimNodeOp::kCopySdma) {
      CopyNode(stream, op);
    } else {
      const uint32_t blocks = op.kind == SimNodeOp::kKernel ? 1 : sim::BlitBlocks(op.bytes);
      Submit(stream, exec->functions[i], /*may_batch=*/i > 0, blocks);
    }
    // The CPU cost of one node's packet; other launching threads run meanwhile.
    if (R().config.node_cpu_ns > 0) SleepNs(R().config.node_cpu_ns);
  }
  Ring(stream);
  stream->queue->launching.fetch_sub(1, std::memory_order_relaxed);
  return call.Return(simSuccess);
}

int simhipStreamBeginCapture(simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipStreamBeginCapture.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture, args);
  if (stream->capture != nullptr) return call.Return(simErrorInvalidValue);
  stream->capture = NewGraph();
  stream->capture_tail.clear();
  return call.Return(simSuccess);
}

int simhipStreamEndCapture(simStream_t stream, simGraph_t* graph) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipStreamEndCapture.stream = stream;
  args.hipStreamEndCapture.pGraph = reinterpret_cast<void**>(graph);
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture, args);
  if (stream->capture == nullptr) return call.Return(simErrorInvalidValue);
  *graph = stream->capture;
  std::lock_guard<std::mutex> lock(R().mutex);
  for (auto& other : R().streams) {  // streams forked into this capture leave it with it
    if (other->capture == *graph) other->capture = nullptr;
  }
  return call.Return(simSuccess);
}

int simhipEventCreate(simEvent_t* event) {
  sim::EnsureInitialized();
  auto args = Args();
  args.hipEventCreate.event = reinterpret_cast<void**>(event);
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventCreate, args);
  std::lock_guard<std::mutex> lock(R().mutex);
  R().events.push_back(std::make_unique<SimEvent>());
  *event = R().events.back().get();
  return call.Return(simSuccess);
}

int simhipEventRecord(simEvent_t event, simStream_t stream) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipEventRecord.event = event;
  args.hipEventRecord.stream = stream;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord, args);
  std::lock_guard<std::mutex> lock(R().mutex);
  event->capture = stream->capture;
  event->tail = stream->capture != nullptr ? stream->capture_tail : std::vector<size_t>();
  return call.Return(simSuccess);
}

int simhipStreamWaitEvent(simStream_t stream, simEvent_t event, unsigned int flags) {
  sim::EnsureInitialized();
  StreamSet set(stream);
  auto args = Args();
  args.hipStreamWaitEvent.stream = stream;
  args.hipStreamWaitEvent.event = event;
  args.hipStreamWaitEvent.flags = flags;
  ApiCall call(ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent, args);
  std::lock_guard<std::mutex> lock(R().mutex);
  if (event->capture == nullptr) return call.Return(simSuccess);  // outside capture: no node
  if (stream->capture == nullptr) {  // the fork: this stream joins the capture
    stream->capture = event->capture;
    stream->capture_tail = event->tail;
  } else if (stream->capture == event->capture) {  // the join
    for (size_t n : event->tail) {
      if (std::find(stream->capture_tail.begin(), stream->capture_tail.end(), n) ==
          stream->capture_tail.end())
        stream->capture_tail.push_back(n);
    }
  } else {
    return call.Return(simErrorInvalidValue);  // two captures mixed
  }
  return call.Return(simSuccess);
}

uint64_t simhipCrossThreadDispatches(void) { return R().cross_thread.load(); }
uint64_t simhipRuntimeThreadDispatches(void) { return R().runtime_thread_dispatches.load(); }

// The SDK's agents: the CPU (agent 1) and one GPU per simulated device (agents 2, 3, ...), as an
// MI355X-like gfx950 part; callable any time, as in the SDK (also before the first HIP call).
rocprofiler_status_t rocprofiler_query_available_agents(
    rocprofiler_agent_version_t version, rocprofiler_query_available_agents_cb_t callback,
    size_t agent_size, void* user_data) {
  if (version != ROCPROFILER_AGENT_INFO_VERSION_0) return ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI;
  if (agent_size > sizeof(rocprofiler_agent_v0_t) || callback == nullptr)
    return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
  static const std::vector<rocprofiler_agent_v0_t>* agents = [] {
    auto* list = new std::vector<rocprofiler_agent_v0_t>;  // never destroyed, like the runtime
    rocprofiler_agent_v0_t cpu{};
    cpu.size = sizeof(cpu);
    cpu.id.handle = 1;
    cpu.type = ROCPROFILER_AGENT_TYPE_CPU;
    cpu.cpu_cores_count = 2;
    cpu.name = cpu.product_name = "Simulated CPU";
    cpu.vendor_name = "sim";
    cpu.model_name = "";
    list->push_back(cpu);
    for (size_t d = 0; d < R().devices.size(); ++d) {
      rocprofiler_agent_v0_t gpu{};
      gpu.size = sizeof(gpu);
      gpu.id.handle = R().devices[d].agent;
      gpu.type = ROCPROFILER_AGENT_TYPE_GPU;
      gpu.wave_front_size = 64;
      gpu.cu_count = 256;
      gpu.gfx_target_version = 90500;
      gpu.vendor_id = 0x1002;
      gpu.location_id = static_cast<uint32_t>(0x100 * (d + 1));
      gpu.num_cp_queues = static_cast<uint32_t>(R().config.hw_queues);
      gpu.name = "gfx950";
      gpu.vendor_name = "AMD";
      gpu.product_name = "AMD Instinct MI355X (simulated)";
      gpu.model_name = "mi355x";
      gpu.node_id = static_cast<uint32_t>(d + 1);
      gpu.logical_node_id = static_cast<int32_t>(d + 1);
      gpu.logical_node_type_id = static_cast<int32_t>(d);
      gpu.runtime_visibility.hsa = gpu.runtime_visibility.hip = 1;
      gpu.uuid.bytes[0] = static_cast<uint8_t>(d + 1);
      list->push_back(gpu);
    }
    return list;
  }();
  std::vector<const void*> pointers;
  for (const auto& agent : *agents) pointers.push_back(&agent);
  return callback(version, pointers.data(), pointers.size(), user_data);
}

}  // extern "C"
