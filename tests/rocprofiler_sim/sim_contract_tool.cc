// Checks the simulated SDK keeps the rocprofiler-sdk contract the AMD backend will rely on
// (ROCM-PTI-FACTS.md), from a tool's side: loaded through ROCP_TOOL_LIBRARIES by sim_program, it
// records what it is given and, at finalize, prints "sim-contract: passed N checks" or one
// "sim-contract: FAIL ..." line per broken rule (ctest rocprofiler_sim_contract_*).
//   - services can be configured only inside initialize; initialize and finalize run once each;
//   - HIP API callbacks run on the calling thread (record.thread_id == gettid()), ENTER then EXIT
//     with one user_data slot and one internal correlation id, fresh for each call;
//   - buffers are delivered on a thread that makes no HIP call;
//   - every dispatch carries the internal id of a launch call made on its record's thread, and a
//     kernel_id named by a kernel-symbol callback before; external ids fall back to the id pushed
//     on the main thread when the request callback declines;
//   - a small DISCARD buffer whose consumer is slow once counts what it drops (delivered +
//     dropped = what a lossless buffer got; some dropped when SIM_CONTRACT_EXPECT_DROPS is set);
//     code objects are unloaded before finalize;
//   - HIP_STREAM SET callbacks pair ENTER/EXIT on the calling thread with one user_data slot,
//     around every launch;
//   - agents: GPUs numbered 0.. by logical_node_type_id; dispatches on GPU agents, copies
//     between known agents;
//   - every dispatch's correlation id is retired once, after the dispatch (delivery order and
//     time);
//   - timestamps are CLOCK_BOOTTIME;
//   - every hipLaunchKernel's function address was named by a HOST_KERNEL_SYMBOL_REGISTER
//     callback before (host_function), with a kernel id some device symbol has;
//   - a copy carries the internal id of a launch or copy call made on its record's thread;
//   - with SIM_CONTRACT_GRAPH_REQUESTS set (e.g. "KCKKKK"), every hipGraphLaunch asks for
//     external ids in its nodes' order: K for a kernel dispatch (a kernel, memset or device copy
//     node), C for a memory copy (a copy to or from the host), on the launching thread.
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/rocm/sdk/rocprofiler_sdk.h"

namespace {

constexpr uint64_t kPushed = 77;

std::mutex g_mutex;
int g_checks = 0;
int g_failures = 0;
void Check(bool ok, const std::string& what) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_checks;
  if (!ok && g_failures++ < 20) std::fprintf(stderr, "sim-contract: FAIL %s\n", what.c_str());
}

// With g_mutex held.
void FailLocked(const char* what) {
  if (g_failures++ < 20) std::fprintf(stderr, "sim-contract: FAIL %s\n", what);
}

uint64_t Tid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }
uint64_t Boot() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

rocprofiler_context_id_t g_ctx{0}, g_small_ctx{0};
rocprofiler_buffer_id_t g_buffer{0}, g_small{0};
int g_initialized = 0;
int g_finalized = 0;
bool g_unloaded = false;
thread_local uint64_t t_last_internal = 0;
thread_local std::vector<uint64_t> t_streams;  // HIP_STREAM SET stack of this thread
std::set<uint64_t> g_internal_ids;
std::set<uint64_t> g_api_threads;
std::set<std::pair<uint64_t, uint64_t>> g_launches;  // (thread, internal id) of launch calls
std::set<uint64_t> g_kernels;
std::set<uint64_t> g_host_functions;
std::set<uint64_t> g_gpu_agents, g_all_agents;
std::unordered_map<uint64_t, uint64_t> g_async_end;  // internal id -> latest dispatch/copy end
std::set<uint64_t> g_retired;
std::unordered_map<uint64_t, std::string> g_requests;  // internal id -> request kinds, in order
std::set<uint64_t> g_graph_launches;                   // internal ids of hipGraphLaunch calls
uint64_t g_dispatches = 0, g_small_delivered = 0, g_small_dropped = 0;
uint64_t g_start_ns = 0;

void OnApi(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* user, void*) {
  Check(r.thread_id == Tid(), "API callback off the calling thread");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_api_threads.insert(r.thread_id);
  if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
    if (r.correlation_id.internal <= t_last_internal) FailLocked("internal ids not increasing");
    if (!g_internal_ids.insert(r.correlation_id.internal).second) FailLocked("internal id reused");
    t_last_internal = r.correlation_id.internal;
    user->value = r.correlation_id.internal;
    if (r.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch)
      g_graph_launches.insert(r.correlation_id.internal);
    if (r.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch ||
        r.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel ||
        r.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipMemcpyAsync) {
      g_launches.insert({r.thread_id, r.correlation_id.internal});
      const auto* api = static_cast<const rocprofiler_callback_tracing_hip_api_data_t*>(r.payload);
      if (r.operation == ROCPROFILER_HIP_RUNTIME_API_ID_hipLaunchKernel &&
          g_host_functions.count(
              reinterpret_cast<uint64_t>(api->args.hipLaunchKernel.function_address)) == 0)
        FailLocked("a kernel launched through a function no host kernel symbol named");
      if (t_streams.empty()) FailLocked("a launch outside a HIP_STREAM SET");
    }
  } else if (user->value != r.correlation_id.internal) {
    FailLocked("EXIT without its ENTER's user_data");
  }
}

void OnCodeObject(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t*, void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (r.operation == ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER &&
      r.phase == ROCPROFILER_CALLBACK_PHASE_LOAD)
    g_kernels.insert(
        static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(
            r.payload)
            ->kernel_id);
  if (r.operation == ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER &&
      r.phase == ROCPROFILER_CALLBACK_PHASE_LOAD) {
    const auto* host = static_cast<
        const rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t*>(
        r.payload);
    ++g_checks;
    if (g_kernels.count(host->kernel_id) == 0 || host->device_function == nullptr)
      FailLocked("a host kernel symbol without its device symbol or name");
    g_host_functions.insert(host->host_function.value);
  }
  if (r.phase == ROCPROFILER_CALLBACK_PHASE_UNLOAD) g_unloaded = true;
}

void OnStream(rocprofiler_callback_tracing_record_t r, rocprofiler_user_data_t* user, void*) {
  if (r.operation != ROCPROFILER_HIP_STREAM_SET) return;
  const auto* data = static_cast<const rocprofiler_callback_tracing_hip_stream_data_t*>(r.payload);
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_checks;
  if (r.thread_id != Tid()) FailLocked("stream callback off the calling thread");
  if (r.phase == ROCPROFILER_CALLBACK_PHASE_ENTER) {
    user->value = data->stream_id.handle;
    t_streams.push_back(data->stream_id.handle);
  } else if (t_streams.empty() || user->value != t_streams.back() ||
             data->stream_id.handle != t_streams.back()) {
    FailLocked("stream SET EXIT without its ENTER");
  } else {
    t_streams.pop_back();
  }
}

int OnRequest(rocprofiler_thread_id_t thread, rocprofiler_context_id_t,
              rocprofiler_external_correlation_id_request_kind_t kind,
              rocprofiler_tracing_operation_t, uint64_t internal, rocprofiler_user_data_t*, void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_checks;
  if (thread != Tid()) FailLocked("request callback off the writing thread");
  g_requests[internal] += kind == ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY ? 'C' : 'K';
  return 1;  // decline: the pushed id stands
}

void OnBuffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** h,
              size_t n, void*, uint64_t) {
  const uint64_t now = Boot();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_checks += 1;
  if (g_api_threads.count(Tid()) != 0) FailLocked("buffer delivered on a thread making HIP calls");
  for (size_t i = 0; i < n; ++i) {
    if (h[i]->kind == ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH) {
      const auto* d =
          static_cast<const rocprofiler_buffer_tracing_kernel_dispatch_record_t*>(h[i]->payload);
      ++g_dispatches;
      g_checks += 4;
      if (g_launches.count({d->thread_id, d->correlation_id.internal}) == 0)
        FailLocked("dispatch without a launch call on its thread with its internal id");
      if (g_kernels.count(d->dispatch_info.kernel_id) == 0)
        FailLocked("dispatch of an unnamed kernel");
      if (d->correlation_id.external.value != kPushed) FailLocked("dispatch without the pushed id");
      if (g_retired.count(d->correlation_id.internal) != 0)
        FailLocked("dispatch delivered after its correlation id was retired");
      auto& end = g_async_end[d->correlation_id.internal];
      end = std::max(end, d->end_timestamp);
      if (!(g_start_ns <= d->start_timestamp && d->start_timestamp <= d->end_timestamp &&
            d->end_timestamp < now + 1000000000ull))
        FailLocked("dispatch times not in CLOCK_BOOTTIME order");
    } else if (h[i]->kind == ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT) {
      const auto* r =
          static_cast<const rocprofiler_buffer_tracing_correlation_id_retirement_record_t*>(
              h[i]->payload);
      ++g_checks;
      if (!g_retired.insert(r->internal_correlation_id).second)
        FailLocked("correlation id retired twice");
      auto it = g_async_end.find(r->internal_correlation_id);
      if (it != g_async_end.end() && r->timestamp < it->second)
        FailLocked("correlation id retired before its last dispatch ended");
    } else if (h[i]->kind == ROCPROFILER_BUFFER_TRACING_MEMORY_COPY) {
      const auto* c =
          static_cast<const rocprofiler_buffer_tracing_memory_copy_record_t*>(h[i]->payload);
      g_checks += 2;
      if (c->correlation_id.external.value != kPushed) FailLocked("copy without the pushed id");
      if (g_launches.count({c->thread_id, c->correlation_id.internal}) == 0)
        FailLocked("copy without a launch or copy call on its thread with its internal id");
      if (g_all_agents.count(c->src_agent_id.handle) == 0 ||
          g_all_agents.count(c->dst_agent_id.handle) == 0)
        FailLocked("copy between unknown agents");
    }
  }
}

void OnSmall(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t**,
             size_t n, void*, uint64_t dropped) {
  static bool first = true;
  if (first) usleep(50000);  // a slow consumer once: the next batch must find it busy and drop
  first = false;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_small_delivered += n;
  g_small_dropped += dropped;
}

rocprofiler_status_t OnAgents(rocprofiler_agent_version_t, const void** agents, size_t n, void*) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t i = 0; i < n; ++i) {
    const auto* agent = static_cast<const rocprofiler_agent_v0_t*>(agents[i]);
    ++g_checks;
    if (agent->size != sizeof(rocprofiler_agent_v0_t) || agent->name == nullptr)
      FailLocked("agent without its size or name");
    g_all_agents.insert(agent->id.handle);
    if (agent->type == ROCPROFILER_AGENT_TYPE_GPU) {
      if (agent->logical_node_type_id != static_cast<int32_t>(g_gpu_agents.size()))
        FailLocked("GPU agents not numbered 0.. by logical_node_type_id");
      g_gpu_agents.insert(agent->id.handle);
    }
  }
  return ROCPROFILER_STATUS_SUCCESS;
}

int Initialize(rocprofiler_client_finalize_t, void*) {
  ++g_initialized;
  Check(rocprofiler_query_available_agents(ROCPROFILER_AGENT_INFO_VERSION_0, &OnAgents,
                                           sizeof(rocprofiler_agent_v0_t), nullptr) == 0 &&
            !g_gpu_agents.empty(),
        "rocprofiler_query_available_agents lists GPUs");
  rocprofiler_get_timestamp(&g_start_ns);
  Check(g_start_ns <= Boot() && Boot() - g_start_ns < 100000000ull,
        "rocprofiler_get_timestamp is not CLOCK_BOOTTIME");
  const rocprofiler_external_correlation_id_request_kind_t kinds[] = {
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH,
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_MEMORY_COPY};
  bool ok =
      rocprofiler_create_context(&g_ctx) == 0 && rocprofiler_create_context(&g_small_ctx) == 0 &&
      rocprofiler_configure_callback_tracing_service(
          g_ctx, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, nullptr, 0, &OnApi, nullptr) == 0 &&
      rocprofiler_configure_callback_tracing_service(g_ctx,
                                                     ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                                                     nullptr, 0, &OnCodeObject, nullptr) == 0 &&
      rocprofiler_configure_callback_tracing_service(g_ctx, ROCPROFILER_CALLBACK_TRACING_HIP_STREAM,
                                                     nullptr, 0, &OnStream, nullptr) == 0 &&
      rocprofiler_create_buffer(g_ctx, 1 << 16, 1 << 15, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                &OnBuffer, nullptr, &g_buffer) == 0 &&
      rocprofiler_configure_buffer_tracing_service(
          g_ctx, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, nullptr, 0, g_buffer) == 0 &&
      rocprofiler_configure_buffer_tracing_service(g_ctx, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY,
                                                   nullptr, 0, g_buffer) == 0 &&
      rocprofiler_configure_buffer_tracing_service(
          g_ctx, ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT, nullptr, 0, g_buffer) == 0 &&
      rocprofiler_configure_external_correlation_id_request_service(g_ctx, kinds, 2, &OnRequest,
                                                                    nullptr) == 0 &&
      rocprofiler_create_buffer(g_small_ctx, 4096, 4096, ROCPROFILER_BUFFER_POLICY_DISCARD,
                                &OnSmall, nullptr, &g_small) == 0 &&
      rocprofiler_configure_buffer_tracing_service(
          g_small_ctx, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, nullptr, 0, g_small) == 0 &&
      rocprofiler_push_external_correlation_id(g_ctx, static_cast<uint64_t>(getpid()),
                                               rocprofiler_user_data_t{.value = kPushed}) == 0 &&
      rocprofiler_start_context(g_ctx) == 0 && rocprofiler_start_context(g_small_ctx) == 0;
  Check(ok, "configuring inside initialize");
  return ok ? 0 : 1;
}

void Finalize(void*) {
  ++g_finalized;
  rocprofiler_context_id_t late{0};
  Check(rocprofiler_create_context(&late) == ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
        "a context created outside initialize");
  Check(rocprofiler_flush_buffer(g_buffer) == 0 && rocprofiler_flush_buffer(g_small) == 0, "flush");
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_checks;
  if (!g_unloaded) FailLocked("code objects not unloaded before finalize");
  g_checks += 3;
  if (g_initialized != 1 || g_finalized != 1) FailLocked("initialize or finalize not once");
  if (g_dispatches == 0) FailLocked("no dispatch delivered");
  g_checks += 1;
  for (const auto& [internal, end] : g_async_end)
    if (g_retired.count(internal) == 0) {
      FailLocked("a dispatch's correlation id never retired");
      break;
    }
  if (const char* want = std::getenv("SIM_CONTRACT_GRAPH_REQUESTS")) {
    g_checks += 1;
    size_t bad = 0;
    for (uint64_t launch : g_graph_launches) bad += g_requests[launch] != want;
    if (g_graph_launches.empty() || bad != 0) {
      ++g_failures;
      std::fprintf(stderr,
                   "sim-contract: FAIL %zu of %zu graph launches did not request %s in node "
                   "order\n",
                   bad, g_graph_launches.size(), want);
    }
  }
  const bool want_drops = std::getenv("SIM_CONTRACT_EXPECT_DROPS") != nullptr;
  if (g_small_delivered + g_small_dropped != g_dispatches || (want_drops && g_small_dropped == 0)) {
    ++g_failures;
    std::fprintf(stderr,
                 "sim-contract: FAIL small DISCARD buffer: %llu delivered + %llu dropped, "
                 "lossless got %llu\n",
                 static_cast<unsigned long long>(g_small_delivered),
                 static_cast<unsigned long long>(g_small_dropped),
                 static_cast<unsigned long long>(g_dispatches));
  }
  if (g_failures == 0)
    std::fprintf(stderr,
                 "sim-contract: passed %d checks (%llu dispatches; small buffer: %llu "
                 "delivered, %llu dropped)\n",
                 g_checks, static_cast<unsigned long long>(g_dispatches),
                 static_cast<unsigned long long>(g_small_delivered),
                 static_cast<unsigned long long>(g_small_dropped));
  else
    std::fprintf(stderr, "sim-contract: FAIL %d of %d checks\n", g_failures, g_checks);
}

rocprofiler_tool_configure_result_t g_result{sizeof(rocprofiler_tool_configure_result_t),
                                             &Initialize, &Finalize, nullptr};

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*,
                                                                      uint32_t,
                                                                      rocprofiler_client_id_t*) {
  return &g_result;
}
