// The rocm backend's tracer: rocprofiler-sdk's part of the skeleton.
#include "backends/rocm/rocprofiler_tracer.h"

#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <string>

#include "base/clock.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope::rocprofiler {
namespace {

ActiveTracer<RocprofilerTracer> g_active;
// The process the tracer started in. A child forked without exec inherits the SDK's exit hook
// but not its threads: stopping there would wait forever for a buffer thread that is not there.
pid_t g_active_pid = 0;
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
    m += ": rocprofiler-sdk takes services only while it initializes a tool; trace with "
         "`nodescope run --backend rocm`";
  }
  return UnavailableError(m);
}

uint64_t AsHandle(const void* p) { return reinterpret_cast<uint64_t>(p); }

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
  ASSIGN_OR_RETURN(sdk_, LoadSdkApi());
  RETURN_IF_ERROR(g_active.Claim(this, "rocprofiler-sdk"));
  g_active_pid = getpid();
  stage_ = MakeReconstructingStage(options.graph_attribution);
  decoder_.emplace(&trace(), options.max_events, BootToRealtimeNs());
  set_stage(stage_.get());
  AddDevices();
  Status s = Configure(options);
  if (!s.ok()) {
    g_active.Release();
    return s;
  }
  g_range_sdk = sdk_;
  g_range_context = context_;
  return OkStatus();
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

Status RocprofilerTracer::Configure(const TracerOptions& options) {
  RETURN_IF_ERROR(Check(sdk_.create_context(&context_), "rocprofiler_create_context"));
  const size_t bytes = options.buffer_bytes;
  RETURN_IF_ERROR(
      Check(sdk_.create_buffer(context_, bytes, bytes / 2, ROCPROFILER_BUFFER_POLICY_DISCARD,
                               &OnBuffer, this, &buffer_),
            "rocprofiler_create_buffer"));
  for (rocprofiler_buffer_tracing_kind_t kind :
       {ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API}) {
    RETURN_IF_ERROR(Check(sdk_.configure_buffer_tracing(context_, kind, nullptr, 0, buffer_),
                          "rocprofiler_configure_buffer_tracing_service"));
  }
  const rocprofiler_tracing_operation_t graph_ops[] = {
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch_spt,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithParams,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecUpdate,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecKernelNodeSetParams,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy,
      // Capture-time ranges (rocprofiler_capture.h).
      ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamBeginCapture,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamEndCapture,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel, ROCPROFILER_HIP_RUNTIME_API_ID_hipEventRecord,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipStreamWaitEvent,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphAddKernelNode,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy};
  RETURN_IF_ERROR(Check(sdk_.configure_callback_tracing(
                            context_, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, graph_ops,
                            sizeof(graph_ops) / sizeof(graph_ops[0]), &OnHipApi, this),
                        "rocprofiler_configure_callback_tracing_service (HIP runtime API)"));
  RETURN_IF_ERROR(
      Check(sdk_.configure_callback_tracing(context_, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                                            nullptr, 0, &OnCodeObject, this),
            "rocprofiler_configure_callback_tracing_service (code objects)"));
  // ROCTx ranges (rocprofiler_roctx.h); without them the rest still traces.
  if (Status roctx = Check(sdk_.configure_callback_tracing(
                               context_, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
                               kRoctxOperations, std::size(kRoctxOperations), &OnRoctx, &roctx_),
                           "rocprofiler_configure_callback_tracing_service (ROCTx)");
      !roctx.ok()) {
    LogWarning("roctx_not_recorded", "roctx ranges not recorded: %s", roctx.ToString().c_str());
  }
  const rocprofiler_external_correlation_id_request_kind_t kinds[] = {
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY};
  RETURN_IF_ERROR(
      Check(sdk_.configure_external_correlation_request(context_, kinds, 2, &OnRequest, this),
            "rocprofiler_configure_external_correlation_id_request_service"));
  return Check(sdk_.start_context(context_), "rocprofiler_start_context");
}

void RocprofilerTracer::OnBuffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
                                 rocprofiler_record_header_t** headers, size_t count, void* data,
                                 uint64_t drop_count) {
  auto* self = static_cast<RocprofilerTracer*>(data);
  self->AddVendorDropped(drop_count);
  // Neutral records with provisional keys; the stage decides them.
  self->DecodeBatch([&] { self->decoder_->Decode(headers, count); });
}

void RocprofilerTracer::OnHipApi(rocprofiler_callback_tracing_record_t record,
                                 rocprofiler_user_data_t*, void* data) {
  auto* self = static_cast<RocprofilerTracer*>(data);
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
      if (ok) {
        self->capture_.KernelLaunched(AsHandle(args.hipLaunchKernel.stream),
                                      RangeRecorder::Get().CurrentRange(),
                                      AsHandle(args.hipLaunchKernel.function_address));
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

void RocprofilerTracer::OnCodeObject(rocprofiler_callback_tracing_record_t record,
                                     rocprofiler_user_data_t*, void* data) {
  if (record.operation == ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER &&
      record.phase == ROCPROFILER_CALLBACK_PHASE_LOAD && record.payload != nullptr) {
    // What a hipLaunchKernel's function address runs (forked captures' ranges by kernel).
    const auto* host = static_cast<
        const rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t*>(
        record.payload);
    static_cast<RocprofilerTracer*>(data)->capture_.HostKernel(host->host_function.value,
                                                               host->device_function);
    return;
  }
  if (record.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER ||
      record.phase != ROCPROFILER_CALLBACK_PHASE_LOAD || record.payload == nullptr) {
    return;
  }
  const auto* sym =
      static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(
          record.payload);
  static_cast<RocprofilerTracer*>(data)->decoder_->AddKernelSymbol(sym->kernel_id,
                                                                   sym->kernel_name);
}

// On the thread writing the packet: the recipe's tag when a graph launch is open there; else
// the pushed value (a user range, or none).
int RocprofilerTracer::OnRequest(rocprofiler_thread_id_t, rocprofiler_context_id_t,
                                 rocprofiler_external_correlation_id_request_kind_t,
                                 rocprofiler_tracing_operation_t, uint64_t internal,
                                 rocprofiler_user_data_t* external, void* data) {
  const uint64_t tag = static_cast<RocprofilerTracer*>(data)->stage_->OnDispatch(internal);
  if (tag == 0) return 1;
  external->value = tag;
  return 0;
}

Status RocprofilerTracer::StopCollection() {
  Status flushed = Check(sdk_.flush_buffer(buffer_), "rocprofiler_flush_buffer");
  (void)sdk_.stop_context(context_);
  g_active.Release();
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
  return Check(sdk_.flush_buffer(buffer_), "rocprofiler_flush_buffer");
}

void RocprofilerTracer::FinalizeActive() {
  if (getpid() != g_active_pid) return;  // a forked child: the parent's tracer, not ours to stop
  if (RocprofilerTracer* t = g_active.get()) (void)t->Stop();
}

namespace {
[[maybe_unused]] const bool kRegistered = RegisterTracer(
    NODESCOPE_BACKEND_NAME,
    []() -> std::unique_ptr<Tracer> { return std::make_unique<RocprofilerTracer>(); });
}  // namespace

}  // namespace nodescope::rocprofiler
