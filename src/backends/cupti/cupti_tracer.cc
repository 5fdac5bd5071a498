// The CUPTI backend.
#include "backends/cupti/cupti_tracer.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backends/cupti/cuda_driver.h"
#include "base/clock.h"
#include "base/env.h"
#include "ranges/range_recorder.h"

namespace nodescope::cupti {
namespace {

std::atomic<CuptiTracer*> g_active{nullptr};
// CUPTI's buffer callbacks carry no user pointer; the active tracer is process-global.
std::atomic<BufferPool*> g_pool{nullptr};

std::string CuptiErrorText(CUptiResult r) {
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr) s = "unknown CUPTI error";
  return s;
}

Status CheckCupti(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return OkStatus();
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return AlreadyExistsError(
        std::string(what) +
        ": another CUPTI client is already attached to this process (Nsight Systems, "
        "Nsight Compute, torch.profiler or another tracer); CUDA 13 allows only one. Run "
        "without the other profiler.");
  }
  if (r == CUPTI_ERROR_NOT_INITIALIZED) {
    return UnavailableError(std::string(what) + ": " + CuptiErrorText(r));
  }
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) {
    return PermissionDeniedError(std::string(what) + ": " + CuptiErrorText(r));
  }
  return InternalError(std::string(what) + ": " + CuptiErrorText(r));
}

const char* ApiNameFromCupti(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) return nullptr;
  return name;
}

uint64_t CUPTIAPI TraceClock() { return NowNs(); }

constexpr uint8_t kCreatesExec = 1;
constexpr uint8_t kChangesExec = 2;

// The graph API call in progress on this thread (outermost: a runtime call reaches the driver's
// own entry point, which must not be reported twice).
thread_local int t_api_depth = 0;
thread_local uint8_t t_api_kind = 0;
thread_local uint64_t t_api_correlation = 0;

// User ranges become CUPTI external correlation ids (CUSTOM1, as kineto uses for annotations):
// every API call made inside a range is then linked to it by an EXTERNAL_CORRELATION record.
void RangePushed(uint64_t range_id) {
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, range_id);
}
void RangePopped(uint64_t) {
  uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &last);
}
const RangeRecorder::Listener kRangeListener{&RangePushed, &RangePopped};

std::string ReadFirstLine(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return {};
  char buf[256] = {};
  std::string line;
  if (std::fgets(buf, sizeof(buf), f) != nullptr) line = buf;
  std::fclose(f);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

CuptiTracer::CuptiTracer() = default;

CuptiTracer::~CuptiTracer() {
  if (running_) (void)Stop();
}

// Takes no tracer lock: CUPTI may call this while holding its own, and a completion holding the
// decode lock calls into CUPTI. The pool counts refusals itself.
void CUPTIAPI CuptiTracer::BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  BufferPool* pool = g_pool.load(std::memory_order_acquire);
  BufferPool::Buffer b = pool != nullptr ? pool->Request() : BufferPool::Buffer{};
  *buffer = b.data;
  *size = b.size;
}

void CUPTIAPI CuptiTracer::BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer,
                                           size_t /*size*/, size_t valid_size) {
  CuptiTracer* t = g_active.load(std::memory_order_acquire);
  if (t != nullptr && buffer != nullptr) {
    {
      std::lock_guard<std::mutex> lock(t->decode_mu_);
      if (t->decoder_) t->decoder_->DecodeBuffer(buffer, valid_size);
    }
    size_t dropped = 0;  // asked with no lock held
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) {
      t->vendor_dropped_.fetch_add(dropped, std::memory_order_relaxed);
    }
  }
  if (buffer != nullptr) {
    if (BufferPool* pool = g_pool.load(std::memory_order_acquire)) pool->Complete(buffer);
  }
}

void CUPTIAPI CuptiTracer::OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                      CUpti_CallbackId cbid, const void* data) {
  auto* self = static_cast<CuptiTracer*>(userdata);
  if (data == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    self->OnResource(cbid, *static_cast<const CUpti_ResourceData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    self->OnApi(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
  }
}

namespace {
uint64_t NodeId(CUgraphNode node) {
  uint64_t id = 0;
  return node != nullptr && cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}
bool DebugGraphCallbacks() {
  static const bool on = [] {
    bool flag = false;
    Status s = ReadEnvFlag("NODESCOPE_DEBUG_GRAPH_CALLBACKS", &flag);
    if (!s.ok()) std::fprintf(stderr, "nodescope: warning: %s (ignored)\n", s.message().c_str());
    return flag;
  }();
  return on;
}
}  // namespace

void CuptiTracer::OnGraphNode(CUpti_CallbackId cbid, const CUpti_GraphData& g) {
  if (DebugGraphCallbacks()) {
    uint32_t exec_id = 0;
    if (g.graphExec != nullptr) cuptiGetGraphExecId(g.graphExec, &exec_id);
    std::fprintf(stderr,
                 "nodescope-debug: cbid=%u node=%llx original=%llx exec=%u api_kind=%u "
                 "api_corr=%llu range=%llu\n",
                 static_cast<unsigned>(cbid), static_cast<unsigned long long>(NodeId(g.node)),
                 static_cast<unsigned long long>(NodeId(g.originalNode)), exec_id,
                 static_cast<unsigned>(t_api_kind),
                 static_cast<unsigned long long>(t_api_correlation),
                 static_cast<unsigned long long>(RangeRecorder::Get().CurrentRange()));
  }
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
      // Stream capture or explicit creation: the innermost open range is the node's scope.
      scopes_.OnTemplateNode(NodeId(g.node), RangeRecorder::Get().CurrentRange());
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      if (t_api_kind == kCreatesExec) {
        scopes_.OnExecNode(NodeId(g.node), NodeId(g.originalNode), t_api_correlation);
      } else {
        scopes_.OnTemplateCloned(NodeId(g.node), NodeId(g.originalNode));  // cudaGraphClone
      }
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
      // cudaGraphExecUpdate: the exec node now runs the new graph's node. Observed on the H200
      // (CUDA 13.0): `node` is the new graph's node and `originalNode` the exec's node.
      if (g.originalNode != nullptr) {
        scopes_.OnExecNode(NodeId(g.originalNode), NodeId(g.node), t_api_correlation);
      }
      break;
    default:
      break;
  }
}

void CuptiTracer::OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
      if (data.resourceDescriptor != nullptr) {
        OnGraphNode(cbid, *static_cast<const CUpti_GraphData*>(data.resourceDescriptor));
      }
      break;
    default:
      break;
  }
  // Context/stream/module callbacks carry other descriptors: only graph cbids are counted here.
  // The attribution engine consumes the CUpti_GraphData payload (issue 2).
  auto bump = [](std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); };
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
      bump(graph_counts_.graphs_created);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
      bump(graph_counts_.graphs_cloned);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      bump(graph_counts_.nodes_cloned);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
      bump(graph_counts_.execs_created);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
      bump(graph_counts_.execs_destroyed);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
      bump(graph_counts_.nodes_updated);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
      bump(graph_counts_.node_params_set);
      break;
    default:
      break;
  }
}

namespace {

// Which API calls create or change a graph exec, by name, so new CUDA versions' variants
// (_v2, _ptsz, ...) are caught without a cbid list to keep up to date.
uint8_t GraphApiKind(std::string_view name) {
  name = StripApiVersionSuffix(name);
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
  if (starts("cuGraphInstantiate") || starts("cudaGraphInstantiate")) return kCreatesExec;
  if (starts("cuGraphNodeSetEnabled") || starts("cudaGraphNodeSetEnabled")) return kChangesExec;
  if ((starts("cuGraphExec") || starts("cudaGraphExec")) &&
      (has("SetParams") || has("Update") || has("SetEvent"))) {
    return kChangesExec;
  }
  return 0;
}

}  // namespace

Status CuptiTracer::EnableGraphApiCallbacks() {
  struct Domain {
    CUpti_CallbackDomain domain;
    uint32_t size;
    std::vector<uint8_t>* kinds;
  };
  for (const Domain& d :
       {Domain{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, &runtime_api_kind_},
        Domain{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, &driver_api_kind_}}) {
    d.kinds->assign(d.size, 0);
    for (uint32_t cbid = 1; cbid < d.size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(d.domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
      uint8_t kind = GraphApiKind(name);
      if (kind == 0) continue;
      RETURN_IF_ERROR(
          CheckCupti(cuptiEnableCallback(1, subscriber_, d.domain, cbid), "cuptiEnableCallback"));
      (*d.kinds)[cbid] = kind;
    }
  }
  return OkStatus();
}

void CuptiTracer::OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData& data) {
  const std::vector<uint8_t>& kinds =
      domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_api_kind_ : driver_api_kind_;
  const uint8_t kind = cbid < kinds.size() ? kinds[cbid] : 0;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (t_api_depth++ == 0) {
      t_api_kind = kind;
      t_api_correlation = data.correlationId;
    }
    return;
  }
  if (t_api_depth > 0 && --t_api_depth > 0) return;
  t_api_kind = 0;
  if (attributor_ == nullptr || kind == 0) return;
  // cudaError_t and CUresult are both int-sized enums where 0 means success.
  if (data.functionReturnValue == nullptr ||
      *static_cast<const int*>(data.functionReturnValue) != 0 || data.functionParams == nullptr) {
    return;
  }
  // Every one of these calls takes the exec first: by pointer when it creates it.
  void* first = *static_cast<void* const*>(data.functionParams);
  CUgraphExec exec = kind == kCreatesExec
                         ? (first != nullptr ? *static_cast<CUgraphExec*>(first) : nullptr)
                         : static_cast<CUgraphExec>(first);
  uint32_t exec_id = 0;
  if (exec == nullptr || cuptiGetGraphExecId(exec, &exec_id) != CUPTI_SUCCESS) return;
  if (kind == kCreatesExec) {
    attributor_->OnExecCreated(exec_id, data.correlationId);
  } else {
    attributor_->OnExecChanged(exec_id, data.correlationId);
  }
}

Status CuptiTracer::Start(const TracerOptions& options) {
  if (running_) return FailedPreconditionError("the CUPTI tracer is already running");
  CuptiTracer* expected = nullptr;
  if (!g_active.compare_exchange_strong(expected, this)) {
    return AlreadyExistsError("a nodescope CUPTI session is already active in this process");
  }
  auto fail = [this](Status s) {
    if (subscriber_ != nullptr) {
      cuptiUnsubscribe(subscriber_);
      subscriber_ = nullptr;
    }
    for (CUpti_ActivityKind k : enabled_) cuptiActivityDisable(k);
    enabled_.clear();
    g_active.store(nullptr, std::memory_order_release);
    return s;
  };

  trace_.start_ns = NowNs();
  // Refusing a buffer is only safe from CUPTI API version 27; unknown counts as older.
  uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) != CUPTI_SUCCESS) cupti_version = 0;
  pool_ = std::make_unique<BufferPool>(options.buffer_bytes, options.max_buffers, cupti_version);
  g_pool.store(pool_.get(), std::memory_order_release);
  if (options.graph_attribution) attributor_ = std::make_unique<NativeIdAttributor>();
  decoder_.emplace(&trace_, options.max_events, &ApiNameFromCupti, attributor_.get(), &scopes_);

  Status s =
      CheckCupti(cuptiSubscribe(&subscriber_, &CuptiTracer::OnCallback, this), "cuptiSubscribe");
  if (!s.ok()) {
    subscriber_ = nullptr;
    return fail(s);
  }
  s = CheckCupti(cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE),
                 "cuptiEnableDomain(RESOURCE)");
  if (!s.ok()) return fail(s);
  // Graph API calls: exec lifecycle for attribution, and instantiate boundaries for scopes.
  s = EnableGraphApiCallbacks();
  if (!s.ok()) return fail(s);
  // One clock for CPU and GPU: CUPTI stamps records with ours. System thread ids, like gettid.
  s = CheckCupti(cuptiActivityRegisterTimestampCallback(&TraceClock),
                 "cuptiActivityRegisterTimestampCallback");
  if (!s.ok()) return fail(s);
  s = CheckCupti(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
                 "cuptiSetThreadIdType");
  if (!s.ok()) return fail(s);
  s = CheckCupti(cuptiActivityRegisterCallbacks(&BufferRequested, &BufferCompleted),
                 "cuptiActivityRegisterCallbacks");
  if (!s.ok()) return fail(s);

  std::vector<CUpti_ActivityKind> kinds = {
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
      CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
      CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  if (options.trace_driver_api) kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  for (CUpti_ActivityKind k : kinds) {
    s = CheckCupti(cuptiActivityEnable(k), "cuptiActivityEnable");
    if (!s.ok())
      return fail(
          Status(s.code(), s.message() + " (kind " + std::to_string(static_cast<int>(k)) + ")"));
    enabled_.push_back(k);
  }
  RangeRecorder::Get().SetListener(&kRangeListener);
  running_ = true;
  return OkStatus();
}

Status CuptiTracer::Stop() {
  if (!running_) return OkStatus();
  running_ = false;
  // Work still queued on the calling thread's context would otherwise be lost from the trace.
  const CudaDriver& cu = Driver();
  CUcontext ctx = nullptr;
  if (cu.ok() && cu.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr) {
    (void)cu.cuCtxSynchronize();
  }
  Status flushed =
      CheckCupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  for (CUpti_ActivityKind k : enabled_) cuptiActivityDisable(k);
  enabled_.clear();
  if (subscriber_ != nullptr) {
    cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
  }
  // Records dropped with no context/stream to report them against; asked with no lock held.
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    vendor_dropped_.fetch_add(dropped, std::memory_order_relaxed);
  }
  {
    std::lock_guard<std::mutex> lock(decode_mu_);
    trace_.drops.vendor_dropped += vendor_dropped_.exchange(0, std::memory_order_relaxed);
    trace_.drops.buffers_refused += pool_->refused();
    trace_.end_ns = NowNs();
    CollectEnvironment();
    AttributionInfo& info = trace_.attribution;
    info.mode = attributor_ != nullptr ? "native" : "disabled";
    if (attributor_ != nullptr) {
      info.fresh_graph_ids = attributor_->fresh_ids_issued();
      for (size_t r = 0; r < kWithheldReasonName.size(); ++r) {
        info.withheld.emplace_back(kWithheldReasonName[r], attributor_->withheld().by_reason[r]);
      }
    }
  }
  g_active.store(nullptr, std::memory_order_release);
  // The pool stays alive with the tracer: CUPTI may still hold a buffer it never returns.
  return flushed;
}

void CuptiTracer::CollectEnvironment() {
  uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) {
    trace_.versions.emplace_back("cupti_version", cupti_version);
  }
  // The runtime may be linked statically (nvcc's default): only ask it when it is exported.
  using RuntimeVersionFn = int (*)(int*);
  if (auto fn = reinterpret_cast<RuntimeVersionFn>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
    int v = 0;
    if (fn(&v) == 0) trace_.versions.emplace_back("cuda_runtime_version", v);
  }
  const CudaDriver& cu = Driver();
  int driver_version = 0;
  if (cu.ok() && cu.cuDriverGetVersion(&driver_version) == CUDA_SUCCESS) {
    trace_.versions.emplace_back("cuda_driver_version", driver_version);
  }
  int count = 0;
  if (cu.ok() && cu.cuDeviceGetCount(&count) == CUDA_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      CUdevice dev;
      if (cu.cuDeviceGet(&dev, i) != CUDA_SUCCESS) continue;
      DeviceProperties p;
      p.id = static_cast<uint32_t>(i);
      char name[256] = {};
      if (cu.cuDeviceGetName(name, sizeof(name), dev) == CUDA_SUCCESS) p.name = name;
      size_t mem = 0;
      if (cu.cuDeviceTotalMem(&mem, dev) == CUDA_SUCCESS) p.total_global_mem = mem;
      auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        return cu.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS ? v : 0;
      };
      p.compute_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
      p.compute_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
      p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
      p.max_threads_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
      p.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
      p.regs_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
      p.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
      p.shared_mem_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
      p.shared_mem_per_multiprocessor =
          attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
      p.shared_mem_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
      p.num_sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
      trace_.devices.push_back(std::move(p));
    }
  }
  auto load = [](const std::atomic<uint64_t>& c) {
    return static_cast<int64_t>(c.load(std::memory_order_relaxed));
  };
  trace_.counters.emplace_back("graphs_created", load(graph_counts_.graphs_created));
  trace_.counters.emplace_back("graph_execs_created", load(graph_counts_.execs_created));
  trace_.counters.emplace_back("graph_execs_destroyed", load(graph_counts_.execs_destroyed));
  trace_.counters.emplace_back("graph_nodes_cloned", load(graph_counts_.nodes_cloned));
  trace_.counters.emplace_back("graph_nodes_updated", load(graph_counts_.nodes_updated));
  trace_.counters.emplace_back("graph_node_params_set", load(graph_counts_.node_params_set));
  trace_.counters.emplace_back("activity_buffers_allocated",
                               static_cast<int64_t>(pool_ ? pool_->allocated() : 0));
  // Buffers handed out past the bound because this CUPTI cannot take a refusal (before 27).
  if (pool_ != nullptr && pool_->overflowed() > 0) {
    trace_.counters.emplace_back("activity_buffers_overflowed",
                                 static_cast<int64_t>(pool_->overflowed()));
  }

  trace_.pid = static_cast<uint32_t>(getpid());
  trace_.process_name = ReadFirstLine("/proc/self/comm");
  std::vector<uint32_t> tids;
  trace_.api.ForEach([&](const ApiCall& c) {
    if (tids.empty() || tids.back() != c.tid) tids.push_back(c.tid);
  });
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  for (uint32_t tid : tids) {
    std::string comm = ReadFirstLine("/proc/self/task/" + std::to_string(tid) + "/comm");
    trace_.thread_names.emplace_back(
        tid, comm.empty() ? "thread " + std::to_string(tid)
                          : "thread " + std::to_string(tid) + " (" + comm + ")");
  }
}

namespace {
[[maybe_unused]] const bool kRegistered = RegisterTracer(
    "cupti", []() -> std::unique_ptr<Tracer> { return std::make_unique<CuptiTracer>(); });
}  // namespace

}  // namespace nodescope::cupti
