// The simulated PTI's entry points (libpti_view's view API), behaving as PTI 1.0 does at
// intel/pti-gpu@fcd0ca81 (docs/pti-notes.md): views enabled only after callbacks are set, external
// correlation ids on per-thread, per-kind stacks and emitted with API records only, records taken
// in CLOCK_MONOTONIC_RAW and shifted into the timestamp callback's clock (CLOCK_REALTIME by
// default) with a shift recomputed every millisecond, records laid out as v2 from 0.18 on and as
// v1 before (SIM_PTI_VERSION, default 1.0.0), ptiViewGetNextRecord stepping by the kind's size.
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "tests/pti_sim/sim_buffers.h"
#include "tests/pti_sim/sim_internal.h"

namespace ptisim {
namespace {

uint64_t ClockNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
uint64_t RealtimeNs() { return ClockNs(CLOCK_REALTIME); }

pti_version ReportedVersion() {
  static const pti_version version = [] {
    pti_version v{1, 0, 0};
    if (const char* env = std::getenv("SIM_PTI_VERSION")) {
      unsigned major = 1, minor = 0, patch = 0;
      if (std::sscanf(env, "%u.%u.%u", &major, &minor, &patch) >= 2) v = {major, minor, patch};
    }
    return v;
  }();
  return version;
}

std::atomic<uint32_t> g_enabled{0};  // bit per pti_view_kind
std::atomic<bool> g_external{false};
std::atomic<pti_fptr_get_timestamp> g_timestamp{RealtimeNs};
std::atomic<uint32_t> g_correlation{1};
std::atomic<uint64_t> g_kernel_id{1};
std::atomic<uint64_t> g_gpu{0}, g_api{0}, g_external_records{0}, g_dropped{0};

std::mutex g_shift_mu;
int64_t g_shift = 0;
uint64_t g_shift_at = 0;

int64_t Shift() {
  static const uint64_t every = [] {
    const char* env = std::getenv("PTI_CONV_CLOCK_SYNC_TIME_NS");
    uint64_t value = env ? std::strtoull(env, nullptr, 10) : 0;
    return value >= 1000 && value <= 1000000000 ? value : 1000000ull;
  }();
  std::lock_guard<std::mutex> lock(g_shift_mu);
  uint64_t now = RawNs();
  if (g_shift_at == 0 || now - g_shift_at > every) {
    g_shift_at = now;
    // As PTI measures it (src/utils/utils.h:128-157): the user clock read between two raw reads,
    // 50 times, the tightest bracket's midpoint.
    uint64_t best = UINT64_MAX, raw = 0, user = 0;
    for (int i = 0; i < 50; ++i) {
      const uint64_t before = RawNs(), at = g_timestamp.load()(), after = RawNs();
      if (after - before < best) best = after - before, raw = (before + after) / 2, user = at;
    }
    g_shift = static_cast<int64_t>(user) - static_cast<int64_t>(raw);
  }
  return g_shift;
}

thread_local std::map<pti_view_external_kind, std::vector<uint64_t>> t_external;

bool ValidKind(pti_view_kind kind) {
  return kind > PTI_VIEW_INVALID && kind <= PTI_VIEW_COMMUNICATION && kind != PTI_VIEW_RESERVED;
}

}  // namespace

uint64_t RawNs() { return ClockNs(CLOCK_MONOTONIC_RAW); }
uint64_t ToUserClock(uint64_t raw) {
  return raw == 0 ? 0 : static_cast<uint64_t>(static_cast<int64_t>(raw) + Shift());
}
uint32_t Tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }
uint32_t NextCorrelationId() { return g_correlation.fetch_add(1, std::memory_order_relaxed); }
uint64_t NextKernelId() { return g_kernel_id.fetch_add(1, std::memory_order_relaxed); }
bool ViewEnabled(pti_view_kind kind) { return (g_enabled.load() >> kind) & 1u; }

bool V2Layout() {
  pti_version v = ReportedVersion();
  return v._major >= 1 || v._minor > 17;
}

size_t RecordSize(pti_view_kind kind) {
  const bool v2 = V2Layout();
  switch (kind) {
    case PTI_VIEW_DEVICE_GPU_KERNEL:
      return v2 ? sizeof(pti_view_record_kernel_v2) : sizeof(pti_view_record_kernel);
    case PTI_VIEW_DRIVER_API:
    case PTI_VIEW_RUNTIME_API:
      return sizeof(pti_view_record_api);
    case PTI_VIEW_COLLECTION_OVERHEAD:
      return sizeof(pti_view_record_overhead);
    case PTI_VIEW_EXTERNAL_CORRELATION:
      return sizeof(pti_view_record_external_correlation);
    case PTI_VIEW_DEVICE_GPU_MEM_COPY:
      return v2 ? sizeof(pti_view_record_memory_copy_v2) : sizeof(pti_view_record_memory_copy);
    case PTI_VIEW_DEVICE_GPU_MEM_FILL:
      return v2 ? sizeof(pti_view_record_memory_fill_v2) : sizeof(pti_view_record_memory_fill);
    case PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P:
      return v2 ? sizeof(pti_view_record_memory_copy_p2p_v2)
                : sizeof(pti_view_record_memory_copy_p2p);
    case PTI_VIEW_DEVICE_SYNCHRONIZATION:
      return 72;  // pti_view_record_synchronization (not declared: never emitted here)
    case PTI_VIEW_COMMUNICATION:
      return 64;  // pti_view_record_comms (likewise)
    default:
      return 0;
  }
}

void EmitApi(pti_view_kind view, uint32_t api_id, uint32_t correlation_id, uint64_t start_raw,
             uint64_t end_raw) {
  if (!ViewEnabled(view)) return;
  const uint32_t tid = Tid();
  if (g_external.load()) {
    for (const auto& [kind, stack] : t_external) {
      if (stack.empty()) continue;
      pti_view_record_external_correlation record{};
      record._view_kind._view_kind = PTI_VIEW_EXTERNAL_CORRELATION;
      record._correlation_id = correlation_id;
      record._external_id = stack.back();
      record._external_kind = kind;
      Insert(&record, sizeof(record), tid);
      CountExternalRecord();
    }
  }
  pti_view_record_api record{};
  record._view_kind._view_kind = view;
  record._start_timestamp = ToUserClock(start_raw);
  record._end_timestamp = ToUserClock(end_raw);
  record._api_group = view == PTI_VIEW_RUNTIME_API ? PTI_API_GROUP_SYCL : PTI_API_GROUP_LEVELZERO;
  record._api_id = api_id;
  record._process_id = static_cast<uint32_t>(getpid());
  record._thread_id = tid;
  record._correlation_id = correlation_id;
  Insert(&record, sizeof(record), tid);
  CountApiRecord();
}

void CountGpuRecord() { ++g_gpu; }
void CountApiRecord() { ++g_api; }
void CountExternalRecord() { ++g_external_records; }
void CountDropped() { ++g_dropped; }
uint64_t GpuRecords() { return g_gpu; }
uint64_t ApiRecords() { return g_api; }
uint64_t ExternalRecords() { return g_external_records; }
uint64_t Dropped() { return g_dropped; }

}  // namespace ptisim

using ptisim::RecordSize;

extern "C" {

pti_version ptiVersion(void) { return ptisim::ReportedVersion(); }

const char* ptiVersionString(void) {
  static char text[32];
  static std::once_flag once;
  std::call_once(once, [] {
    pti_version v = ptisim::ReportedVersion();
    std::snprintf(text, sizeof(text), "%u.%u.%u", v._major, v._minor, v._patch);
  });
  return text;
}

const char* ptiResultTypeToString(pti_result result) {
  switch (result) {
    case PTI_SUCCESS:
      return "PTI_SUCCESS";
    case PTI_STATUS_END_OF_BUFFER:
      return "PTI_STATUS_END_OF_BUFFER";
    case PTI_ERROR_BAD_ARGUMENT:
      return "PTI_ERROR_BAD_ARGUMENT";
    case PTI_ERROR_NO_CALLBACKS_SET:
      return "PTI_ERROR_NO_CALLBACKS_SET";
    case PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY:
      return "PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY";
    default:
      return "PTI_ERROR_INTERNAL";
  }
}

pti_result ptiViewSetCallbacks(pti_fptr_buffer_requested requested,
                               pti_fptr_buffer_completed completed) {
  return ptisim::SetBufferCallbacks(requested, completed);
}

pti_result ptiViewEnable(pti_view_kind kind) {
  if (!ptisim::CallbacksSet()) return PTI_ERROR_NO_CALLBACKS_SET;
  if (kind == PTI_VIEW_DEVICE_CPU_KERNEL) return PTI_ERROR_NOT_IMPLEMENTED;
  if (!ptisim::ValidKind(kind)) return PTI_ERROR_BAD_ARGUMENT;
  if (kind == PTI_VIEW_EXTERNAL_CORRELATION) {
    ptisim::g_external = true;
    return PTI_SUCCESS;
  }
  ptisim::g_enabled |= 1u << kind;
  return PTI_SUCCESS;
}

pti_result ptiViewDisable(pti_view_kind kind) {
  if (kind == PTI_VIEW_INVALID) return PTI_ERROR_BAD_ARGUMENT;
  if (kind == PTI_VIEW_EXTERNAL_CORRELATION) {
    ptisim::g_external = false;
    return PTI_SUCCESS;
  }
  if (!ptisim::ValidKind(kind)) return PTI_ERROR_BAD_ARGUMENT;
  ptisim::g_enabled &= ~(1u << kind);
  return PTI_SUCCESS;
}

pti_result ptiFlushAllViews(void) { return ptisim::FlushBuffers(); }

pti_result ptiViewGetNextRecord(uint8_t* buffer, size_t valid_bytes,
                                pti_view_record_base** record) {
  if (record == nullptr) return PTI_ERROR_BAD_ARGUMENT;
  if (buffer == nullptr || valid_bytes == 0) return PTI_STATUS_END_OF_BUFFER;
  if (*record == nullptr) {
    *record = reinterpret_cast<pti_view_record_base*>(buffer);
    return PTI_SUCCESS;
  }
  const size_t size = RecordSize((*record)->_view_kind);
  if (size == 0) return PTI_ERROR_BAD_ARGUMENT;
  uint8_t* next = reinterpret_cast<uint8_t*>(*record) + size;
  if (next >= buffer + valid_bytes) return PTI_STATUS_END_OF_BUFFER;
  *record = reinterpret_cast<pti_view_record_base*>(next);
  return PTI_SUCCESS;
}

pti_result ptiViewPushExternalCorrelationId(pti_view_external_kind kind, uint64_t id) {
  ptisim::t_external[kind].push_back(id);
  return PTI_SUCCESS;
}

pti_result ptiViewPopExternalCorrelationId(pti_view_external_kind kind, uint64_t* id) {
  auto it = ptisim::t_external.find(kind);
  if (it == ptisim::t_external.end() || it->second.empty()) {
    return PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY;
  }
  if (id != nullptr) *id = it->second.back();
  it->second.pop_back();
  if (it->second.empty()) ptisim::t_external.erase(it);
  return PTI_SUCCESS;
}

uint64_t ptiViewGetTimestamp(void) { return ptisim::g_timestamp.load()(); }

pti_result ptiViewSetTimestampCallback(pti_fptr_get_timestamp callback) {
  if (callback == nullptr) return PTI_ERROR_BAD_ARGUMENT;
  std::lock_guard<std::mutex> lock(ptisim::g_shift_mu);
  ptisim::g_timestamp = callback;
  ptisim::g_shift_at = 0;  // recomputed against the new clock at the next record
  return PTI_SUCCESS;
}

pti_result ptiViewGetApiIdName(pti_api_group_id group, uint32_t id, const char** name) {
  if (name == nullptr) return PTI_ERROR_BAD_ARGUMENT;
  static const std::map<uint32_t, const char*> kSycl = {
      {urEnqueueKernelLaunch_id, "urEnqueueKernelLaunch"},
      {urEnqueueUSMFill_id, "urEnqueueUSMFill"},
      {urEnqueueUSMMemcpy_id, "urEnqueueUSMMemcpy"},
      {urQueueCreate_id, "urQueueCreate"},
      {urQueueFinish_id, "urQueueFinish"},
      {urCommandBufferFinalizeExp_id, "urCommandBufferFinalizeExp"},
      {urCommandBufferAppendKernelLaunchExp_id, "urCommandBufferAppendKernelLaunchExp"},
      {urEnqueueCommandBufferExp_id, "urEnqueueCommandBufferExp"},
      {urEnqueueGraphExp_id, "urEnqueueGraphExp"}};
  static const std::map<uint32_t, const char*> kZe = {
      {zeCommandQueueExecuteCommandLists_id, "zeCommandQueueExecuteCommandLists"},
      {zeCommandListAppendMemoryCopy_id, "zeCommandListAppendMemoryCopy"},
      {zeCommandListAppendMemoryFill_id, "zeCommandListAppendMemoryFill"},
      {zeCommandListAppendLaunchKernel_id, "zeCommandListAppendLaunchKernel"}};
  const auto& table = group == PTI_API_GROUP_SYCL ? kSycl : kZe;
  if (group != PTI_API_GROUP_SYCL && group != PTI_API_GROUP_LEVELZERO) {
    return PTI_ERROR_BAD_ARGUMENT;
  }
  auto it = table.find(id);
  if (it == table.end()) return PTI_ERROR_BAD_ARGUMENT;
  *name = it->second;
  return PTI_SUCCESS;
}

pti_result ptiViewEnableRuntimeApiClass(uint32_t, pti_api_class api_class, pti_api_group_id group) {
  if (group != PTI_API_GROUP_SYCL && group != PTI_API_GROUP_ALL) return PTI_ERROR_BAD_ARGUMENT;
  if (api_class == PTI_API_CLASS_RESERVED ||
      api_class == PTI_API_CLASS_HOST_OPERATION_SYNCHRONIZATION) {
    return PTI_ERROR_BAD_ARGUMENT;
  }
  return PTI_SUCCESS;  // every runtime call the simulator makes is a GPU operation core call
}

}  // extern "C"
