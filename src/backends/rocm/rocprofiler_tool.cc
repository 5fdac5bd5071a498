// The rocm backend's tool: the SDK's services configured once, in the tool's initialize, and
// started and stopped by tracers (rocprofiler_tracer.h, "The SDK takes services only inside...").
#include "backends/rocm/rocprofiler_tool.h"

#include <dlfcn.h>

#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "backends/rocm/rocprofiler_tracer.h"
#include "base/diagnostics.h"
#include "base/env.h"

namespace nodescope::rocprofiler {
namespace {

// Kernel names the code-object context reported, for every tracer to come: a region starts
// after the modules it launches from were loaded. Written at code-object loads only.
struct KnownSymbol {
  bool host;    // HOST_KERNEL_SYMBOL_REGISTER (a host function's kernel) or a device symbol
  uint64_t id;  // kernel_id, or the host function
  std::string name;
};
std::mutex& g_symbols_mu = *new std::mutex;
std::vector<KnownSymbol>& g_symbols = *new std::vector<KnownSymbol>;

// Set while a tracer's rocprofiler_force_configure() runs: initialize then only configures.
std::atomic<bool> g_configuring_for_tracer{false};
// The options of that tracer (the buffer is sized at configuration); null otherwise.
const TracerOptions* g_pending_options = nullptr;

Status Check(rocprofiler_status_t s, const char* what) {
  if (s == ROCPROFILER_STATUS_SUCCESS) return OkStatus();
  return UnavailableError(std::string(what) + " failed (rocprofiler status " +
                          std::to_string(static_cast<int>(s)) + ")");
}

// This library's path, for messages ("set ROCP_TOOL_LIBRARIES=<it>").
std::string OwnPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&rocprofiler_configure), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "libnodescope_rocm.so";
  }
  return info.dli_fname;
}

}  // namespace

ToolState& Tool() {
  static ToolState* tool = new ToolState;
  return *tool;
}
ActiveTracer<RocprofilerTracer>& ActiveRocprofilerTracer() {
  static auto* active = new ActiveTracer<RocprofilerTracer>;
  return *active;
}
pid_t& ActiveTracerPid() {
  static pid_t pid = 0;
  return pid;
}

bool RocprofilerTracer::ConfiguringForATracer() { return g_configuring_for_tracer.load(); }

RocprofilerTracer* RocprofilerTracer::Collecting() {
  RocprofilerTracer* t = ActiveRocprofilerTracer().get();
  return t != nullptr && t->collecting_.load(std::memory_order_acquire) ? t : nullptr;
}

Status RocprofilerTracer::ConfigureTool() {
  ToolState& tool = Tool();
  if (tool.configured.load()) return OkStatus();
  ASSIGN_OR_RETURN(tool.sdk, LoadSdkApi());
  SdkApi& sdk = tool.sdk;
  TracerOptions options;
  if (g_pending_options != nullptr) {
    options = *g_pending_options;
  } else {
    // The buffer's size, the one option needed now (a session reads the rest when it starts and
    // refuses a bad value then; this library has no copy of the options parser).
    uint64_t mb = options.buffer_bytes >> 20;
    if (ReadEnvDecimal("NODESCOPE_BUFFER_SIZE_MB", 1, kMaxBufferSizeMb, &mb).ok()) {
      options.buffer_bytes = static_cast<size_t>(mb) << 20;
    }
  }
  // Kernel names, from now on, whichever tracer runs.
  RETURN_IF_ERROR(Check(sdk.create_context(&tool.symbols), "rocprofiler_create_context"));
  RETURN_IF_ERROR(
      Check(sdk.configure_callback_tracing(tool.symbols, ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                                           nullptr, 0, &OnCodeObject, nullptr),
            "rocprofiler_configure_callback_tracing_service (code objects)"));
  RETURN_IF_ERROR(Check(sdk.start_context(tool.symbols), "rocprofiler_start_context"));

  rocprofiler_context_id_t& context = tool.tracing;
  RETURN_IF_ERROR(Check(sdk.create_context(&context), "rocprofiler_create_context"));
  const size_t bytes = options.buffer_bytes;
  RETURN_IF_ERROR(
      Check(sdk.create_buffer(context, bytes, bytes / 2, ROCPROFILER_BUFFER_POLICY_DISCARD,
                              &OnBuffer, nullptr, &tool.buffer),
            "rocprofiler_create_buffer"));
  tool.buffer_bytes = bytes;
  for (rocprofiler_buffer_tracing_kind_t kind :
       {ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
        ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API}) {
    RETURN_IF_ERROR(Check(sdk.configure_buffer_tracing(context, kind, nullptr, 0, tool.buffer),
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
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphDestroy,
      // Plain dispatching calls: peers of graph launches (issue 29; hipLaunchKernel above).
      ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync};
  RETURN_IF_ERROR(
      Check(sdk.configure_callback_tracing(context, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                                           graph_ops, std::size(graph_ops), &OnHipApi, nullptr),
            "rocprofiler_configure_callback_tracing_service (HIP runtime API)"));
  // ROCTx ranges (rocprofiler_roctx.h); without them the rest still traces.
  if (Status roctx =
          Check(sdk.configure_callback_tracing(
                    context, ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, kRoctxOperations,
                    std::size(kRoctxOperations), &OnRoctxActive, nullptr),
                "rocprofiler_configure_callback_tracing_service (ROCTx)");
      !roctx.ok()) {
    LogWarning("roctx_not_recorded", "roctx ranges not recorded: %s", roctx.ToString().c_str());
  }
  const rocprofiler_external_correlation_id_request_kind_t kinds[] = {
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY};
  RETURN_IF_ERROR(Check(sdk.configure_external_correlation_request(context, kinds, std::size(kinds),
                                                                   &OnRequest, nullptr),
                        "rocprofiler_configure_external_correlation_id_request_service"));
  tool.configured.store(true);
  return OkStatus();
}

Status RocprofilerTracer::EnsureTool(const TracerOptions& options) {
  ToolState& tool = Tool();
  if (tool.finalized.load()) {
    return FailedPreconditionError(
        "rocprofiler-sdk has finalized nodescope's tool (the process is exiting): no session "
        "can start after it");
  }
  if (!tool.configured.load()) {
    // Registered now, if the SDK has not initialized yet: it initializes the tool right here.
    g_pending_options = &options;
    g_configuring_for_tracer.store(true);
    const rocprofiler_status_t forced = sdk_.force_configure(&rocprofiler_configure);
    g_configuring_for_tracer.store(false);
    g_pending_options = nullptr;
    if (forced == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED || !tool.configured.load()) {
      std::string message =
          "rocprofiler-sdk initialized before nodescope's tool was registered (the HIP runtime "
          "was already in use when this session started), and it takes tools only then: set "
          "ROCP_TOOL_LIBRARIES=";
      message += OwnPath();
      message +=
          " in the environment before the program starts, or start the first session "
          "before the program's first HIP call";
      return FailedPreconditionError(message);
    }
    RETURN_IF_ERROR(Check(forced, "rocprofiler_force_configure"));
  } else if (options.buffer_bytes != tool.buffer_bytes) {
    LogWarning("rocm_buffer_size_fixed",
               "the rocprofiler buffer was sized (%zu MB) when the SDK initialized nodescope's "
               "tool; buffer_size_mb=%zu applies only before that",
               tool.buffer_bytes >> 20, options.buffer_bytes >> 20);
  }
  context_ = tool.tracing;
  buffer_ = tool.buffer;
  return OkStatus();
}

void RocprofilerTracer::OnCodeObject(rocprofiler_callback_tracing_record_t record,
                                     rocprofiler_user_data_t*, void*) {
  if (record.phase != ROCPROFILER_CALLBACK_PHASE_LOAD || record.payload == nullptr) return;
  KnownSymbol symbol;
  if (record.operation == ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER) {
    // What a hipLaunchKernel's function address runs (forked captures' ranges by kernel).
    const auto* host = static_cast<
        const rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t*>(
        record.payload);
    symbol = {true, host->host_function.value,
              host->device_function != nullptr ? host->device_function : ""};
  } else if (record.operation == ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER) {
    const auto* sym =
        static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(
            record.payload);
    symbol = {false, sym->kernel_id, sym->kernel_name != nullptr ? sym->kernel_name : ""};
  } else {
    return;
  }
  // Under the lock a starting tracer takes the known ones under: each reaches it once at least.
  std::lock_guard<std::mutex> lock(g_symbols_mu);
  if (RocprofilerTracer* t = Collecting()) {
    if (symbol.host) {
      t->capture_.HostKernel(symbol.id, symbol.name.c_str());
    } else {
      t->decoder_->AddKernelSymbol(symbol.id, symbol.name.c_str());
    }
  }
  g_symbols.push_back(std::move(symbol));
}

void RocprofilerTracer::TakeKnownSymbols() {
  std::lock_guard<std::mutex> lock(g_symbols_mu);
  for (const KnownSymbol& s : g_symbols) {
    if (s.host) {
      capture_.HostKernel(s.id, s.name.c_str());
    } else {
      decoder_->AddKernelSymbol(s.id, s.name.c_str());
    }
  }
}

void RocprofilerTracer::OnRoctxActive(rocprofiler_callback_tracing_record_t record,
                                      rocprofiler_user_data_t* user_data, void*) {
  if (RocprofilerTracer* t = Collecting()) OnRoctx(record, user_data, &t->roctx_);
}

void RocprofilerTracer::FinalizeActive() {
  Tool().finalized.store(true);
  if (getpid() != ActiveTracerPid()) return;  // a forked child: the parent's tracer, not ours
  if (RocprofilerTracer* t = ActiveRocprofilerTracer().get()) (void)t->Stop();
}

}  // namespace nodescope::rocprofiler
