// The negative control of issue 12: a rocprofiler-sdk tool doing the PLAIN per-thread recipe the
// SDK documents, with no verification. Each hipGraphLaunch pushes (exec id, ordinal 0) on a
// per-thread stack (ENTER) and pops it (EXIT); the external correlation request callback for a
// kernel dispatch tags it (exec id << 32) | ordinal++ from the top of the stack of the thread it
// runs on; exec ids are handed out at instantiation and forgotten at destruction. At exit it
// prints what that attribution gives, judged by the kernel names alone (each node of each exec
// runs a kernel of its own name): a key is aliased when it holds dispatches of more than one
// kernel, or of a kernel also found under another key.
//   plain-recipe: keys=K aliased=A dispatches=D untagged=U graphs=G max_ordinal=O
// PLAIN_RECIPE_NAIVE=1: exec ids by address at first launch, never forgotten (no instantiate or
// destroy handling): the recipe the kineto ROCm PR measured "without forgetting destroyed execs".
// Run against the simulated SDK it must alias at 4+ threads on 4 hardware queues and not at 1-3:
// proof that the simulator does not share the backend's assumptions (check_plain_recipe.py).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/rocm/sdk/rocprofiler_sdk.h"

namespace {

struct Launch {
  uint64_t exec_id;
  uint64_t ordinal;
};

rocprofiler_context_id_t g_context{0};
rocprofiler_buffer_id_t g_buffer{0};
std::mutex g_mutex;
std::unordered_map<uint64_t, uint64_t> g_exec_ids;  // exec address -> id
uint64_t g_next_exec_id = 1;
std::unordered_map<uint64_t, std::string> g_kernel_names;    // kernel id -> name
std::map<uint64_t, std::map<std::string, uint64_t>> g_keys;  // key -> kernel -> dispatches
uint64_t g_dispatches = 0;
uint64_t g_untagged = 0;
thread_local std::vector<Launch> t_launches;
const bool g_naive = [] {
  const char* v = std::getenv("PLAIN_RECIPE_NAIVE");
  return v != nullptr && v[0] == '1';
}();

void OnHipApi(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void*) {
  const auto* data =
      static_cast<const rocprofiler_callback_tracing_hip_api_data_t*>(record.payload);
  const auto& args = data->args;
  const bool enter = record.phase == ROCPROFILER_CALLBACK_PHASE_ENTER;
  switch (record.operation) {
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate:
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags:
      if (!enter && data->retval.hipError_t_retval == 0 && !g_naive) {
        // pGraphExec is the first argument of both (valid on EXIT).
        std::lock_guard<std::mutex> lock(g_mutex);
        g_exec_ids[reinterpret_cast<uint64_t>(*args.hipGraphInstantiate.pGraphExec)] =
            g_next_exec_id++;
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy:
      if (enter && !g_naive) {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_exec_ids.erase(reinterpret_cast<uint64_t>(args.hipGraphExecDestroy.graphExec));
      }
      break;
    case ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch:
      if (enter) {
        std::lock_guard<std::mutex> lock(g_mutex);
        const uint64_t address = reinterpret_cast<uint64_t>(args.hipGraphLaunch.graphExec);
        if (g_naive && g_exec_ids.find(address) == g_exec_ids.end())
          g_exec_ids[address] = g_next_exec_id++;
        auto it = g_exec_ids.find(address);
        t_launches.push_back({it == g_exec_ids.end() ? 0 : it->second, 0});
      } else if (!t_launches.empty()) {
        t_launches.pop_back();
      }
      break;
    default:
      break;
  }
}

int OnRequest(rocprofiler_thread_id_t, rocprofiler_context_id_t,
              rocprofiler_external_correlation_id_request_kind_t kind,
              rocprofiler_tracing_operation_t, uint64_t, rocprofiler_user_data_t* external, void*) {
  if (kind != ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH || t_launches.empty() ||
      t_launches.back().exec_id == 0)
    return 1;
  Launch& top = t_launches.back();
  external->value = top.exec_id << 32 | top.ordinal++;
  return 0;
}

void OnCodeObject(rocprofiler_callback_tracing_record_t record, rocprofiler_user_data_t*, void*) {
  if (record.operation != ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER ||
      record.phase != ROCPROFILER_CALLBACK_PHASE_LOAD)
    return;
  const auto* symbol =
      static_cast<const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t*>(
          record.payload);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_kernel_names[symbol->kernel_id] = symbol->kernel_name;
}

void OnBuffer(rocprofiler_context_id_t, rocprofiler_buffer_id_t,
              rocprofiler_record_header_t** headers, size_t count, void*, uint64_t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t i = 0; i < count; ++i) {
    if (headers[i]->category != ROCPROFILER_BUFFER_CATEGORY_TRACING ||
        headers[i]->kind != ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH)
      continue;
    const auto* r = static_cast<const rocprofiler_buffer_tracing_kernel_dispatch_record_t*>(
        headers[i]->payload);
    ++g_dispatches;
    const uint64_t key = r->correlation_id.external.value;
    if (key == 0) {
      ++g_untagged;
      continue;
    }
    ++g_keys[key][g_kernel_names[r->dispatch_info.kernel_id]];
  }
}

int Initialize(rocprofiler_client_finalize_t, void*) {
  if (rocprofiler_create_context(&g_context) != ROCPROFILER_STATUS_SUCCESS) return 1;
  const rocprofiler_tracing_operation_t ops[] = {
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiate,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphInstantiateWithFlags,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphExecDestroy,
      ROCPROFILER_HIP_RUNTIME_API_ID_hipGraphLaunch};
  const rocprofiler_external_correlation_id_request_kind_t kinds[] = {
      ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_KERNEL_DISPATCH};
  bool ok =
      rocprofiler_configure_callback_tracing_service(g_context,
                                                     ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API,
                                                     ops, 4, &OnHipApi, nullptr) == 0 &&
      rocprofiler_configure_callback_tracing_service(g_context,
                                                     ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
                                                     nullptr, 0, &OnCodeObject, nullptr) == 0 &&
      rocprofiler_create_buffer(g_context, 1 << 20, 1 << 19, ROCPROFILER_BUFFER_POLICY_LOSSLESS,
                                &OnBuffer, nullptr, &g_buffer) == 0 &&
      rocprofiler_configure_buffer_tracing_service(
          g_context, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, nullptr, 0, g_buffer) == 0 &&
      rocprofiler_configure_external_correlation_id_request_service(g_context, kinds, 1, &OnRequest,
                                                                    nullptr) == 0 &&
      rocprofiler_start_context(g_context) == 0;
  return ok ? 0 : 1;
}

void Finalize(void*) {
  rocprofiler_flush_buffer(g_buffer);
  std::lock_guard<std::mutex> lock(g_mutex);
  std::map<std::string, std::set<uint64_t>> keys_of;
  for (const auto& [key, kernels] : g_keys)
    for (const auto& [kernel, n] : kernels) keys_of[kernel].insert(key);
  size_t aliased = 0;
  for (const auto& [key, kernels] : g_keys)
    if (kernels.size() > 1 || keys_of[kernels.begin()->first].size() > 1) ++aliased;
  std::set<uint64_t> graphs;
  uint64_t max_ordinal = 0;
  for (const auto& [key, kernels] : g_keys) {
    graphs.insert(key >> 32);
    max_ordinal = std::max(max_ordinal, key & 0xffffffffu);
  }
  std::fprintf(stderr,
               "plain-recipe: keys=%zu aliased=%zu dispatches=%llu untagged=%llu graphs=%zu "
               "max_ordinal=%llu\n",
               g_keys.size(), aliased, static_cast<unsigned long long>(g_dispatches),
               static_cast<unsigned long long>(g_untagged), graphs.size(),
               static_cast<unsigned long long>(max_ordinal));
}

rocprofiler_tool_configure_result_t g_result{sizeof(rocprofiler_tool_configure_result_t),
                                             &Initialize, &Finalize, nullptr};

}  // namespace

extern "C" rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t, const char*,
                                                                      uint32_t,
                                                                      rocprofiler_client_id_t*) {
  return &g_result;
}
