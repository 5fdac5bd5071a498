// The rocm backend's tracer: rocprofiler-sdk's part of the skeleton.
#include "backends/rocm/rocprofiler_tracer.h"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <string>

#include "backends/rocm/rocprofiler_tool.h"
#include "base/clock.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope::rocprofiler {
namespace {

rocprofiler_context_id_t g_range_context{0};
SdkApi g_range_sdk;

// CLOCK_BOOTTIME (the SDK's clock) to CLOCK_REALTIME (the trace's), read back to back.
int64_t BootToRealtimeNs() {
  timespec boot{}, real{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_REALTIME, &real);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
  return ns(real) - ns(boot);
}

// User ranges become pushed external correlation ids: the SDK stamps every API call made inside
// one with it (HIP_RUNTIME_API records' external id), linking its work to the range.
void RangePushed(uint64_t range_id) {
  rocprofiler_thread_id_t tid = 0;
  if (g_range_sdk.get_thread_id(&tid) != ROCPROFILER_STATUS_SUCCESS) return;
  rocprofiler_user_data_t value{};
  value.value = range_id;
  g_range_sdk.push_external_correlation_id(g_range_context, tid, value);
}
void RangePopped(uint64_t) {
  rocprofiler_thread_id_t tid = 0;
  if (g_range_sdk.get_thread_id(&tid) != ROCPROFILER_STATUS_SUCCESS) return;
  rocprofiler_user_data_t value{};
  g_range_sdk.pop_external_correlation_id(g_range_context, tid, &value);
}
const RangeRecorder::Listener kRangeListener{&RangePushed, &RangePopped};

Status Check(rocprofiler_status_t s, const char* what) {
  if (s == ROCPROFILER_STATUS_SUCCESS) return OkStatus();
  std::string m = std::string(what) + " failed (rocprofiler status " +
                  std::to_string(static_cast<int>(s)) + ")";
  if (s == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED) {
    m += ": rocprofiler-sdk has finalized (the process is exiting)";
  }
  return UnavailableError(m);
}

uint64_t AsHandle(const void* p) { return reinterpret_cast<uint64_t>(p); }

// The stream a plain call dispatches on; the null stream (0 means "unknown" to the stage) as a
// handle of its own, the same for every device (so never proven where two devices use it).
constexpr uint64_t kNullStream = 1;
uint64_t StreamHandle(const void* stream) {
  return stream != nullptr ? AsHandle(stream) : kNullStream;
}

// The template graph of an instantiate call.
const void* GraphOf(rocprofiler_tracing_operation_t op, const rocprofiler_hip_api_args_t& args) {
  switch (op) {
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags:
      return args.hipGraphInstantiateWithFlags.graph;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams:
      return args.hipGraphInstantiateWithParams.graph;
    default:
      return args.hipGraphInstantiate.graph;
  }
}

}  // namespace

RocprofilerTracer::RocprofilerTracer() : BackendTracer(NODESCOPE_BACKEND_NAME, &kRangeListener) {}

RocprofilerTracer::~RocprofilerTracer() {
  if (running()) (void)Stop();
}

Status RocprofilerTracer::StartCollection(const TracerOptions& options) {
  // In-process before the runtime loads: the SDK is loaded here (LoadSdkApi), and EnsureTool
  // registers the tool.
  ASSIGN_OR_RETURN(sdk_, LoadSdkApi(/*load=*/true));
  RETURN_IF_ERROR(EnsureTool(options));
  RETURN_IF_ERROR(ActiveRocprofilerTracer().Claim(this, "rocprofiler-sdk"));
  ActiveTracerPid() = getpid();
  stage_ = MakeReconstructingStage(options.graph_attribution);
  // HIP's AMD_DIRECT_DISPATCH=0: a runtime worker thread writes every packet, inside no launch
  // call, so no dispatch can be tied to its launch (issue 29).
  const char* direct = std::getenv("AMD_DIRECT_DISPATCH");
  direct_dispatch_off_ = direct != nullptr && std::string(direct) == "0";
  if (direct_dispatch_off_ && options.graph_attribution) {
    WarnOnce("amd_direct_dispatch_off",
             "AMD_DIRECT_DISPATCH=0: HIP's worker thread writes every dispatch packet, outside the "
             "launch call, so no graph kernel can be tied to its launch: the trace will have no "
             "graph keys (unset AMD_DIRECT_DISPATCH or set it to 1 for graph attribution)");
  }
  decoder_.emplace(&trace(), options.max_events, BootToRealtimeNs());
  set_stage(stage_.get());
  AddDevices();
  collecting_.store(true, std::memory_order_release);
  TakeKnownSymbols();  // after: a name loaded meanwhile reaches this tracer one way or the other
  g_range_sdk = sdk_;
  g_range_context = context_;
  Status started = Check(sdk_.start_context(context_), "rocprofiler_start_context");
  if (!started.ok()) {
    collecting_.store(false, std::memory_order_release);
    ActiveRocprofilerTracer().Release();
  }
  return started;
}

void RocprofilerTracer::AddDevices() {
  auto each = [](rocprofiler_agent_version_t, const void** agents, size_t n, void* data) {
    auto* self = static_cast<RocprofilerTracer*>(data);
    for (size_t i = 0; i < n; ++i) {
      const auto* a = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
      if (a->type != ROCPROFILER_AGENT_TYPE_GPU) continue;
      const auto device = static_cast<uint32_t>(a->logical_node_type_id);
      self->decoder_->SetAgentDevice(a->id.handle, device);
      DeviceProperties p;
      p.id = device;
      p.name = a->product_name != nullptr && a->product_name[0] ? a->product_name
               : a->name != nullptr                             ? a->name
                                                                : "";
      p.total_global_mem = a->local_mem_size;
      p.num_sms = static_cast<int>(a->cu_count);
      p.warp_size = static_cast<int>(a->wave_front_size);
      p.max_threads_per_block = static_cast<int>(a->workgroup_max_size);
      self->trace().devices.push_back(p);
    }
    return ROCPROFILER_STATUS_SUCCESS;
  };
  (void)sdk_.query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, each,
                                    sizeof(rocprofiler_agent_v0_t), this);
  uint32_t major = 0, minor = 0, patch = 0;
  if (sdk_.get_version(&major, &minor, &patch) == ROCPROFILER_STATUS_SUCCESS) {
    trace().versions.emplace_back("rocprofiler_sdk_version", major * 10000 + minor * 100 + patch);
  }
}

void RocprofilerTracer::OnBuffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
                                 rocprofiler_record_header_t** headers, size_t count, void*,
                                 uint64_t drop_count) {
  RocprofilerTracer* self = Collecting();
  if (self == nullptr) return;  // none collecting: the context was stopped and flushed
  self->AddVendorDropped(drop_count);
  // Neutral records with provisional keys; the stage decides them.
  self->DecodeBatch([&] { self->decoder_->Decode(headers, count); });
}

void RocprofilerTracer::OnHipApi(rocprofiler_callback_tracing_record_t record,
                                 rocprofiler_user_data_t*, void*) {
  RocprofilerTracer* self = Collecting();
  if (self == nullptr) return;
  const auto* d = static_cast<const rocprofiler_callback_tracing_hip_api_data_t*>(record.payload);
  if (d == nullptr) return;
  ReconstructingStage& stage = *self->stage_;
  const bool enter = record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
  const bool ok = !enter && d->retval.hipError_t_retval == 0;
  const auto& args = d->args;
  switch (record.operation) {
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch:
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch_spt:
      if (enter) {
        stage.LaunchBegin(AsHandle(args.hipGraphLaunch.graphExec),
                          AsHandle(args.hipGraphLaunch.stream), record.correlation_id.internal);
      } else {
        stage.LaunchEnd();
      }
      break;
    // pGraphExec, the first argument of all three, is valid on EXIT only.
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate:
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags:
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams:
      if (ok && args.hipGraphInstantiate.pGraphExec != nullptr) {
        const uint64_t exec = AsHandle(*args.hipGraphInstantiate.pGraphExec);
        stage.ExecInstantiated(exec, record.correlation_id.internal);
        self->ScopeExec(exec, AsHandle(GraphOf(record.operation, args)));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate:
      if (ok) {
        const uint64_t exec = AsHandle(args.hipGraphExecUpdate.hGraphExec);
        stage.ExecUpdated(exec);
        self->ScopeExec(exec, AsHandle(args.hipGraphExecUpdate.hGraph));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture:
      if (ok) self->capture_.BeginCapture(AsHandle(args.hipStreamBeginCapture.stream));
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel:
      // A plain launch is a peer of the graph launches it overlaps: in ROCr the thread ringing a
      // queue's doorbell processes every valid packet on it (intercept_queue.cpp:324-398).
      if (enter) {
        stage.PlainBegin(StreamHandle(args.hipLaunchKernel.stream), record.correlation_id.internal);
      } else {
        stage.LaunchEnd();
      }
      if (ok) {
        self->capture_.KernelLaunched(AsHandle(args.hipLaunchKernel.stream),
                                      RangeRecorder::Get().CurrentRange(),
                                      AsHandle(args.hipLaunchKernel.function_address));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync:
      if (enter) {
        stage.PlainBegin(StreamHandle(args.hipMemcpyAsync.stream), record.correlation_id.internal);
      } else {
        stage.LaunchEnd();
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord:
      if (ok) {
        self->capture_.EventRecorded(AsHandle(args.hipEventRecord.event),
                                     AsHandle(args.hipEventRecord.stream));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent:
      if (ok) {
        self->capture_.StreamWaited(AsHandle(args.hipStreamWaitEvent.stream),
                                    AsHandle(args.hipStreamWaitEvent.event));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture:
      // On EXIT whatever it returned: a failed capture ends too.
      if (!enter) {
        const bool got = ok && args.hipStreamEndCapture.pGraph != nullptr;
        self->capture_.EndCapture(AsHandle(args.hipStreamEndCapture.stream),
                                  got ? AsHandle(*args.hipStreamEndCapture.pGraph) : 0);
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode: {
      const auto& a = args.hipGraphAddKernelNode;
      if (!ok || a.pGraphNode == nullptr || (a.numDependencies != 0 && a.pDependencies == nullptr))
        break;
      uint64_t deps[2] = {0, 0};  // a chain has at most one; more is not a chain either way
      const size_t n = a.numDependencies;
      for (size_t i = 0; i < n && i < 2; ++i) deps[i] = AsHandle(a.pDependencies[i]);
      self->capture_.KernelNodeAdded(AsHandle(a.graph), AsHandle(*a.pGraphNode), deps, n,
                                     RangeRecorder::Get().CurrentRange());
      break;
    }
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy:
      if (enter) self->capture_.GraphDestroyed(AsHandle(args.hipGraphDestroy.graph));
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams:
      if (ok) stage.ExecUpdated(AsHandle(args.hipGraphExecKernelNodeSetParams.hGraphExec));
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy:
      // HIP may hand the address out again as soon as this returns: forget it first.
      if (enter) stage.ExecDestroyed(AsHandle(args.hipGraphExecDestroy.graphExec));
      break;
    default:
      break;
  }
}

void RocprofilerTracer::ScopeExec(uint64_t exec, uint64_t graph) {
  uint32_t launches = 0;
  std::vector<std::pair<std::string, uint64_t>> by_name = capture_.KernelRangesOf(graph, &launches);
  if (launches == 0) {
    stage_->ExecScopes(exec, capture_.RangesOf(graph));
    return;
  }
  std::vector<std::pair<StringId, uint64_t>> by_kernel;
  {
    // The decoder interns into the same table.
    std::lock_guard<std::mutex> lock(decode_mutex());
    for (const auto& [name, range] : by_name) {
      by_kernel.emplace_back(trace().strings.Intern(name), range);
    }
  }
  stage_->ExecKernelScopes(exec, std::move(by_kernel), launches);
}

// On the thread writing the packet: the recipe's tag when a graph launch is open there; else
// the pushed value (a user range, or none).
int RocprofilerTracer::OnRequest(rocprofiler_thread_id_t, rocprofiler_context_id_t,
                                 rocprofiler_external_correlation_id_request_kind_t kind,
                                 rocprofiler_tracing_operation_t, uint64_t internal,
                                 rocprofiler_user_data_t* external, void*) {
  RocprofilerTracer* self = Collecting();
  if (self == nullptr) return 1;
  const bool packet = kind == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH;
  const uint64_t tag = self->stage_->OnDispatch(internal, packet);
  if (tag == 0) return 1;
  if (ReconstructingStage::IsForeignTag(tag)) {
    // No range either: "use the pushed value" would give another thread's (the main thread's).
    NODESCOPE_WARN_ONCE("dispatch_from_thread_without_launch",
                        "dispatch packets were processed on a thread with no launch open (ROCr's "
                        "async doorbell thread, a HIP worker thread, or a thread inside another "
                        "call ringing a shared queue): that work is written without graph keys "
                        "or user ranges, and graph launches open meanwhile are withheld "
                        "(foreign_writer)");
  }
  external->value = tag;
  return 0;
}

// The context stopped first, so that what the buffer holds when flushed is all this tracer's
// (the next session starts on an empty buffer), and the tool stays configured for it.
Status RocprofilerTracer::StopCollection() {
  (void)sdk_.stop_context(context_);
  Status flushed = Check(sdk_.flush_buffer(buffer_), "rocprofiler_flush_buffer");
  collecting_.store(false, std::memory_order_release);
  ActiveRocprofilerTracer().Release();
  return flushed;
}

void RocprofilerTracer::AddCounters(Trace* trace, bool at_stop) {
  if (!at_stop) return;
  const uint32_t threads = stage_->launching_threads();
  trace->counters.emplace_back("graph_launch_threads", threads);
  trace->counters.emplace_back("overlapped_launches_proven",
                               static_cast<int64_t>(stage_->overlapped_launches_proven()));
  trace->counters.emplace_back("overlapped_launches_withheld",
                               static_cast<int64_t>(stage_->overlapped_launches_withheld()));
  // Issue 29: packets processed outside any launch, plain calls' dispatches of unproven writer.
  trace->counters.emplace_back("dispatches_from_threads_without_launch",
                               static_cast<int64_t>(stage_->foreign_dispatches()));
  trace->counters.emplace_back("plain_dispatches_unproven",
                               static_cast<int64_t>(stage_->plain_unproven()));
  if (direct_dispatch_off_) trace->counters.emplace_back("amd_direct_dispatch_off", 1);
  if (const uint64_t n = capture_.unscoped_launches(); n > 0) {  // rocprofiler_capture.h
    trace->counters.emplace_back("forked_capture_launches_unscoped", static_cast<int64_t>(n));
  }
  if (const uint64_t n = roctx_.dropped(); n > 0) {  // rocprofiler_roctx.h
    trace->counters.emplace_back("roctx_start_stop_dropped", static_cast<int64_t>(n));
  }
  const char* q = std::getenv("GPU_MAX_HW_QUEUES");
  const long queues = q != nullptr && std::atol(q) > 0 ? std::atol(q) : 4;
  if (threads >= static_cast<uint32_t>(queues)) {
    LogWarning("shared_hardware_queues",
               "graphs were launched from %u threads with "
               "GPU_MAX_HW_QUEUES=%ld: launching streams then share hardware queues, where "
               "another thread can write a launch's packets; launches that overlapped such a "
               "launch are written without graph keys unless their queues prove the credit "
               "(%llu withheld; raise GPU_MAX_HW_QUEUES above the number of launching "
               "threads to avoid it)",
               threads, queues,
               static_cast<unsigned long long>(stage_->overlapped_launches_withheld()));
  }
}

Status RocprofilerTracer::Flush() {
  // Stopped (the SDK's finalize stops the active tracer at exit): the SDK may have stopped
  // delivering too, and a flush would wait for it.
  if (Collecting() != this) return FailedPreconditionError("the rocm tracer is not collecting");
  return Check(sdk_.flush_buffer(buffer_), "rocprofiler_flush_buffer");
}

namespace {
[[maybe_unused]] const bool kRegistered = RegisterTracer(
    NODESCOPE_BACKEND_NAME,
    []() -> std::unique_ptr<Tracer> { return std::make_unique<RocprofilerTracer>(); });
}  // namespace

}  // namespace nodescope::rocprofiler
