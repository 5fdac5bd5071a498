// The simulated rocprofiler-sdk's contexts, services and correlation ids: what a tool calls, and
// the callbacks it gets, on the threads the real SDK 1.0 uses (ROCM-PTI-FACTS.md). Tools are
// found, initialized and finalized by sim_registration.cc.
//   - Services can be configured only inside a tool's initialize().
//   - Callbacks run on the thread making the HIP call; buffers are delivered from an SDK thread.
//   - External ids: the request callback when configured for the kind (0 = its value stands),
//     else the top of the thread's pushed stack, else the main thread's.
//   - At exit: code objects unloaded, then each tool's finalize, then the SDK thread stops.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim_internal.h"

namespace sim {
namespace {

constexpr int kKinds = 40;

struct CallbackService {
  rocprofiler_callback_tracing_cb_t callback = nullptr;
  void* data = nullptr;
  std::vector<int32_t> operations;  // empty: all
};
struct BufferService {
  uint64_t buffer = 0;
  std::vector<int32_t> operations;
};
bool Wants(const std::vector<int32_t>& operations, int32_t operation) {
  if (operations.empty()) return true;
  for (int32_t op : operations)
    if (op == operation) return true;
  return false;
}

struct Context {
  std::atomic<bool> active{false};
  CallbackService callbacks[kKinds];
  BufferService buffers[kKinds];
  rocprofiler_external_correlation_id_request_cb_t request = nullptr;
  void* request_data = nullptr;
  uint64_t request_kinds = 0;  // bit per request kind
  std::mutex pushed_mutex;
  std::unordered_map<uint64_t, std::vector<rocprofiler_user_data_t>> pushed;  // by thread id
};

// Never destroyed: threads of the program may still make HIP calls while the process exits.
Context* const g_contexts = new Context[kMaxContexts];
std::atomic<int> g_context_count{0};
std::atomic<bool> g_configuring{false};
std::atomic<bool> g_finalized{false};
std::atomic<uint64_t> g_next_correlation{1};
const uint64_t g_main_thread = static_cast<uint64_t>(getpid());

thread_local ApiCall* t_latest = nullptr;

Context* Get(rocprofiler_context_id_t id) {
  if (id.handle == 0 || id.handle > static_cast<uint64_t>(g_context_count.load())) return nullptr;
  return &g_contexts[id.handle - 1];
}

// The pushed external id for `thread`, else the main thread's, else 0.
rocprofiler_user_data_t Pushed(Context& context, uint64_t thread) {
  std::lock_guard<std::mutex> lock(context.pushed_mutex);
  for (uint64_t t : {thread, g_main_thread}) {
    auto it = context.pushed.find(t);
    if (it != context.pushed.end() && !it->second.empty()) return it->second.back();
  }
  return rocprofiler_user_data_t{.value = 0};
}

rocprofiler_user_data_t External(int index, uint64_t thread,
                                 rocprofiler_external_correlation_id_request_kind_t kind,
                                 int32_t operation, uint64_t internal) {
  Context& context = g_contexts[index];
  if (context.request != nullptr && (context.request_kinds >> kind & 1) != 0) {
    rocprofiler_user_data_t value{.value = 0};
    rocprofiler_context_id_t id{static_cast<uint64_t>(index + 1)};
    if (context.request(thread, id, kind, operation, internal, &value, context.request_data) == 0)
      return value;
  }
  return Pushed(context, thread);
}

// Context `index`'s callback for (kind, operation) at `phase`, on this thread, if it asked for it.
void CallbackTo(int index, rocprofiler_callback_tracing_kind_t kind, int32_t operation,
                rocprofiler_callback_phase_t phase, void* payload,
                rocprofiler_user_data_t* user_data, rocprofiler_correlation_id_t correlation = {}) {
  const CallbackService& service = g_contexts[index].callbacks[kind];
  if (service.callback == nullptr || !Wants(service.operations, operation)) return;
  rocprofiler_callback_tracing_record_t record{};
  record.context_id.handle = static_cast<uint64_t>(index + 1);
  record.thread_id = ThreadId();
  record.correlation_id = correlation;
  record.kind = kind;
  record.operation = operation;
  record.phase = phase;
  record.payload = payload;
  service.callback(record, user_data, service.data);
}

}  // namespace

void SetConfiguring(bool configuring) { g_configuring = configuring; }
bool MarkFinalized() { return g_finalized.exchange(true); }
bool Finalized() { return g_finalized.load(); }
void StopContexts() {
  for (int i = 0; i < kMaxContexts; ++i) g_contexts[i].active.store(false);
}

uint64_t BootNs() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t ThreadId() {
  static thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  return tid;
}

struct CurrentCall {
  static ApiCall* Latest() { return t_latest; }
  static const rocprofiler_user_data_t* External(const ApiCall& call) { return call.external_; }
  static uint64_t Internal(const ApiCall& call) { return call.internal_; }
  static uint64_t Thread(const ApiCall& call) { return call.thread_id_; }
  static void AsyncEnd(ApiCall& call, uint64_t end_ns) {
    call.async_end_ns_ = std::max(call.async_end_ns_, end_ns);
  }
};

ApiCall::ApiCall(rocprofiler_hip_runtime_api_id_t operation, const rocprofiler_hip_api_args_t& args)
    : operation_(operation),
      thread_id_(ThreadId()),
      internal_(g_next_correlation.fetch_add(1)),
      start_ns_(BootNs()),
      outer_(t_latest) {
  data_.size = sizeof(data_);
  data_.args = args;
  t_latest = this;
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    external_[i] =
        sim::External(i, thread_id_, ROCPROFILER_EXTERNAL_CORRELATION_REQUEST_HIP_RUNTIME_API,
                      operation_, internal_);
    CallbackTo(i, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, operation_,
               ROCPROFILER_CALLBACK_PHASE_ENTER, &data_, &user_data_[i],
               {internal_, external_[i], outer_ ? outer_->internal_ : 0});
  }
}

ApiCall::~ApiCall() {
  const uint64_t end_ns = BootNs();
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    const rocprofiler_correlation_id_t correlation{internal_, external_[i],
                                                   outer_ ? outer_->internal_ : 0};
    CallbackTo(i, ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, operation_,
               ROCPROFILER_CALLBACK_PHASE_EXIT, &data_, &user_data_[i], correlation);
    const BufferService& buffered =
        g_contexts[i].buffers[ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API];
    if (buffered.buffer != 0 && Wants(buffered.operations, operation_)) {
      rocprofiler_buffer_tracing_hip_api_record_t record{};
      record.size = sizeof(record);
      record.kind = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API;
      record.operation = operation_;
      record.correlation_id = correlation;
      record.start_timestamp = start_ns_;
      record.end_timestamp = end_ns;
      record.thread_id = thread_id_;
      AppendRecord(buffered.buffer, ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, &record,
                   sizeof(record));
    }
  }
  Retire(internal_, std::max(end_ns, async_end_ns_));
  t_latest = outer_;
}

Correlation CorrelateAsync(rocprofiler_external_correlation_id_request_kind_t kind,
                           rocprofiler_tracing_operation_t operation) {
  Correlation c{};
  ApiCall* latest = CurrentCall::Latest();
  c.call = latest;
  c.thread_id = latest ? CurrentCall::Thread(*latest) : ThreadId();
  c.internal = latest ? CurrentCall::Internal(*latest) : g_next_correlation.fetch_add(1);
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    c.external[i] = External(i, c.thread_id, kind, operation, c.internal);
  }
  return c;
}

void Retire(uint64_t internal, uint64_t timestamp) {
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    const BufferService& service =
        g_contexts[i].buffers[ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT];
    if (service.buffer == 0) continue;
    rocprofiler_buffer_tracing_correlation_id_retirement_record_t record{};
    record.size = sizeof(record);
    record.kind = ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT;
    record.timestamp = timestamp;
    record.internal_correlation_id = internal;
    AppendRecord(service.buffer, ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT, &record,
                 sizeof(record));
  }
}

namespace {
// An async record (dispatch, copy) of `c`, its header filled here, to the contexts asking.
template <typename Record>
void Buffered(const Correlation& c, rocprofiler_buffer_tracing_kind_t kind, int32_t operation,
              uint64_t start_ns, uint64_t end_ns, Record record) {
  record.size = sizeof(record);
  record.kind = kind;
  record.operation = static_cast<decltype(record.operation)>(operation);
  record.correlation_id.internal = c.internal;
  record.thread_id = c.thread_id;
  record.start_timestamp = start_ns;
  record.end_timestamp = end_ns;
  if (c.call != nullptr) CurrentCall::AsyncEnd(*c.call, record.end_timestamp);
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    const BufferService& service = g_contexts[i].buffers[kind];
    if (service.buffer == 0 || !Wants(service.operations, operation)) continue;
    record.correlation_id.external = c.external[i];
    AppendRecord(service.buffer, kind, &record, sizeof(record));
  }
  if (c.call == nullptr) Retire(c.internal, record.end_timestamp);
}

void Callback(rocprofiler_callback_tracing_kind_t kind, int32_t operation,
              rocprofiler_callback_phase_t phase, void* payload,
              rocprofiler_user_data_t* user_data_slots = nullptr) {
  const int n = g_context_count.load();
  for (int i = 0; i < n; ++i) {
    if (!g_contexts[i].active.load(std::memory_order_acquire)) continue;
    rocprofiler_user_data_t user_data{.value = 0};
    CallbackTo(i, kind, operation, phase, payload,
               user_data_slots ? &user_data_slots[i] : &user_data);
  }
}
}  // namespace

void EmitKernelDispatch(const Correlation& c, const rocprofiler_kernel_dispatch_info_t& info,
                        uint64_t start_ns, uint64_t end_ns) {
  rocprofiler_buffer_tracing_kernel_dispatch_record_t record{};
  record.dispatch_info = info;
  record.dispatch_info.size = offsetof(rocprofiler_kernel_dispatch_info_t, reserved_padding);
  Buffered(c, ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
           start_ns, end_ns, record);
}

void EmitMemoryCopy(const Correlation& c, rocprofiler_memory_copy_operation_t direction,
                    uint64_t dst_agent, uint64_t src_agent, uint64_t bytes, const void* dst,
                    const void* src, uint64_t start_ns, uint64_t end_ns) {
  rocprofiler_buffer_tracing_memory_copy_record_t record{};
  record.dst_agent_id.handle = dst_agent;
  record.src_agent_id.handle = src_agent;
  record.bytes = bytes;
  record.dst_address.ptr = dst;
  record.src_address.ptr = src;
  Buffered(c, ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, direction, start_ns, end_ns, record);
}

void EmitStream(rocprofiler_hip_stream_operation_t operation, rocprofiler_callback_phase_t phase,
                uint64_t stream_id, const void* stream, rocprofiler_user_data_t* user_data) {
  rocprofiler_callback_tracing_hip_stream_data_t data{};
  data.size = sizeof(data);
  data.stream_id.handle = stream_id;
  data.stream_value.ptr = stream;
  Callback(ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, operation, phase, &data, user_data);
}

void EmitCodeObject(const rocprofiler_callback_tracing_code_object_load_data_t& load,
                    rocprofiler_callback_phase_t phase) {
  auto copy = load;
  Callback(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, ROCPROFILER_CODE_OBJECT_LOAD, phase, &copy);
}

void EmitKernelSymbol(
    const rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t& symbol,
    rocprofiler_callback_phase_t phase) {
  auto copy = symbol;
  Callback(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
           ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER, phase, &copy);
}

void EmitHostKernelSymbol(
    const rocprofiler_callback_tracing_code_object_host_kernel_symbol_register_data_t& symbol,
    rocprofiler_callback_phase_t phase) {
  auto copy = symbol;
  Callback(ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT,
           ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER, phase, &copy);
}

void EmitMarker(rocprofiler_marker_core_api_id_t operation, rocprofiler_callback_phase_t phase,
                rocprofiler_callback_tracing_marker_api_data_t* data) {
  Callback(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, operation, phase, data);
}

// ---- The C API ----
namespace {
bool Locked() { return !g_configuring.load(); }
rocprofiler_status_t Services(rocprofiler_context_id_t id, int kind, Context** out) {
  if (g_finalized.load()) return ROCPROFILER_STATUS_ERROR_FINALIZED;
  if (Locked()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
  *out = Get(id);
  if (*out == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  if (kind <= 0 || kind >= kKinds) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
  return ROCPROFILER_STATUS_SUCCESS;
}
}  // namespace

}  // namespace sim

extern "C" {

rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch) {
  if (major) *major = ROCPROFILER_VERSION_MAJOR;
  if (minor) *minor = ROCPROFILER_VERSION_MINOR;
  if (patch) *patch = ROCPROFILER_VERSION_PATCH;
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts) {
  *ts = sim::BootNs();
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid) {
  *tid = sim::ThreadId();
  return ROCPROFILER_STATUS_SUCCESS;
}
const char* rocprofiler_get_status_string(rocprofiler_status_t status) {
  return status == ROCPROFILER_STATUS_SUCCESS ? "success" : "simulated SDK error";
}

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id) {
  if (sim::Locked()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
  const int index = sim::g_context_count.load();
  if (index == sim::kMaxContexts) return ROCPROFILER_STATUS_ERROR;
  sim::g_context_count.store(index + 1);
  context_id->handle = static_cast<uint64_t>(index + 1);
  return ROCPROFILER_STATUS_SUCCESS;
}
// Any time, as the SDK's; but not once it finalized (its context.cpp: CONFIGURATION_LOCKED).
rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id) {
  sim::Context* context = sim::Get(context_id);
  if (context == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  if (sim::g_finalized.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
  context->active.store(true, std::memory_order_release);
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id) {
  sim::Context* context = sim::Get(context_id);
  if (context == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  context->active.store(false, std::memory_order_release);
  return ROCPROFILER_STATUS_SUCCESS;
}
rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id,
                                                   int* status) {
  sim::Context* context = sim::Get(context_id);
  if (context == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  *status = context->active.load() ? 1 : 0;
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_callback_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_callback_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_callback_tracing_cb_t callback, void* callback_args) {
  sim::Context* context = nullptr;
  if (auto s = sim::Services(context_id, kind, &context); s != ROCPROFILER_STATUS_SUCCESS) return s;
  sim::CallbackService& service = context->callbacks[kind];
  if (service.callback != nullptr) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
  service.callback = callback;
  service.data = callback_args;
  service.operations.assign(operations, operations + (operations ? operations_count : 0));
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(
    rocprofiler_context_id_t context_id, rocprofiler_buffer_tracing_kind_t kind,
    const rocprofiler_tracing_operation_t* operations, size_t operations_count,
    rocprofiler_buffer_id_t buffer_id) {
  sim::Context* context = nullptr;
  if (auto s = sim::Services(context_id, kind, &context); s != ROCPROFILER_STATUS_SUCCESS) return s;
  if (buffer_id.handle == 0) return ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND;
  sim::BufferService& service = context->buffers[kind];
  if (service.buffer != 0) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
  service.buffer = buffer_id.handle;
  service.operations.assign(operations, operations + (operations ? operations_count : 0));
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_external_correlation_id_request_service(
    rocprofiler_context_id_t context_id,
    const rocprofiler_external_correlation_id_request_kind_t* kinds, size_t kinds_count,
    rocprofiler_external_correlation_id_request_cb_t callback, void* callback_args) {
  sim::Context* context = nullptr;
  if (auto s = sim::Services(context_id, 1, &context); s != ROCPROFILER_STATUS_SUCCESS) return s;
  if (context->request != nullptr) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
  context->request = callback;
  context->request_data = callback_args;
  context->request_kinds = 0;
  for (size_t i = 0; i < kinds_count; ++i) context->request_kinds |= uint64_t{1} << kinds[i];
  if (kinds == nullptr || kinds_count == 0) context->request_kinds = ~uint64_t{0};
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_push_external_correlation_id(
    rocprofiler_context_id_t context_id, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t external_correlation_id) {
  sim::Context* context = sim::Get(context_id);
  if (context == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  std::lock_guard<std::mutex> lock(context->pushed_mutex);
  context->pushed[tid].push_back(external_correlation_id);
  return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_pop_external_correlation_id(
    rocprofiler_context_id_t context_id, rocprofiler_thread_id_t tid,
    rocprofiler_user_data_t* external_correlation_id) {
  sim::Context* context = sim::Get(context_id);
  if (context == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
  std::lock_guard<std::mutex> lock(context->pushed_mutex);
  auto& stack = context->pushed[tid];
  if (stack.empty()) return ROCPROFILER_STATUS_ERROR;
  if (external_correlation_id != nullptr) *external_correlation_id = stack.back();
  stack.pop_back();
  return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
