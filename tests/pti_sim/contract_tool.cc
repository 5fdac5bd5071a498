// A tiny PTI tool checking, from a tool's side, the PTI behaviour the Intel backend relies on
// (docs/pti-notes.md), against the simulated PTI. Preloaded (LD_PRELOAD) into sim_program, as a
// PTI tool is: its constructor sets the callbacks and enables the views, its destructor flushes
// and checks, printing `pti-contract: passed (N checks)` or `pti-contract: FAIL ...`.
// Environment: SIM_CONTRACT_CLOCK=boottime (a CLOCK_BOOTTIME timestamp callback),
// SIM_CONTRACT_REFUSE_AFTER=N (the request callback gives no buffer after N: records are lost),
// SIM_CONTRACT_WRONG=assume_v2|stride_v1 (a tool with a wrong assumption: must fail).
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/xpu/sdk/pti_sdk.h"
#include "tests/pti_sim/sim_sycl.h"

namespace {

struct Gpu {
  pti_view_kind kind;
  uint32_t cid, tid;
  uint64_t id, append, submit, start, end, node_id;
  const void* queue;
  const void* device;
  std::string pci, name;
};
struct Api {
  pti_view_kind kind;
  uint32_t api_id, tid;
  uint64_t start, end;
};

std::mutex g_mu;
std::vector<Gpu> g_gpu;
std::multimap<uint32_t, Api> g_api;                  // by correlation id
std::map<std::pair<uint32_t, int>, int> g_external;  // (cid, kind) -> records
std::set<unsigned char*> g_outstanding;
std::set<pid_t> g_completion_threads;
std::atomic<int> g_failures{0}, g_checks{0};  // Check() runs on the delivery thread too
int g_requested = 0, g_refuse_after = -1;
bool g_v2 = true, g_boottime = false, g_in_setup = true;
std::string g_wrong;
uint64_t g_t0 = 0;

uint64_t Now(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}
uint64_t BootNs() { return Now(CLOCK_BOOTTIME); }
// What the tool reads records as: what ptiVersion() says, unless it is a tool that assumes v2.
bool BelievesV2() { return g_wrong == "assume_v2" || g_v2; }

uint64_t ToolClock() { return g_boottime ? BootNs() : Now(CLOCK_REALTIME); }

void Check(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok && ++g_failures <= 10) std::printf("pti-contract: FAIL %s\n", what.c_str());
}

// A record's kind read as the 32-bit value it is: a tool meets kinds newer than its headers (and
// a misreading tool meets any value); an unknown one is PTI_VIEW_INVALID here.
pti_view_kind KindOf(const void* record) {
  uint32_t value = 0;
  std::memcpy(&value, record, sizeof(value));
  return value <= PTI_VIEW_COMMUNICATION ? pti_view_kind(value) : PTI_VIEW_INVALID;
}

void Requested(unsigned char** buffer, size_t* size) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_refuse_after >= 0 && g_requested >= g_refuse_after) {
    *buffer = nullptr;
    *size = 0;
    return;
  }
  ++g_requested;
  *size = 4096;  // small: many buffers, delivered while the program runs
  // Slack past the end: a tool with a wrong layout (SIM_CONTRACT_WRONG) reads past records.
  *buffer = static_cast<unsigned char*>(std::calloc(*size + 256, 1));
  g_outstanding.insert(*buffer);
}

void RequestedTiny(unsigned char** buffer, size_t* size) {
  *size = 64;  // smaller than the largest record: PTI refuses it
  *buffer = static_cast<unsigned char*>(std::malloc(*size));
}

template <typename T>
Gpu Common(const T* r, pti_view_kind kind) {
  Gpu g{};
  g.kind = kind;
  g.cid = r->_correlation_id;
  g.tid = r->_thread_id;
  g.append = r->_append_timestamp;
  g.submit = r->_submit_timestamp;
  g.start = r->_start_timestamp;
  g.end = r->_end_timestamp;
  g.queue = r->_queue_handle;
  if (g_wrong.empty() && r->_name != nullptr) g.name = r->_name;  // a misread pointer: not read
  return g;
}

// A kernel, copy or fill record read with the layout the tool believes in.
Gpu ReadGpu(const pti_view_record_base* base, bool v2) {
  const pti_view_kind kind = KindOf(base);
  Gpu g{};
  if (kind == PTI_VIEW_DEVICE_GPU_KERNEL) {
    auto* r = reinterpret_cast<const pti_view_record_kernel*>(base);
    g = Common(r, kind);
    g.id = r->_kernel_id;
    g.node_id = r->_sycl_node_id;
    g.pci = r->_pci_address;
    if (v2) g.device = reinterpret_cast<const pti_view_record_kernel_v2*>(base)->_device_handle;
  } else if (kind == PTI_VIEW_DEVICE_GPU_MEM_COPY) {
    auto* r = reinterpret_cast<const pti_view_record_memory_copy*>(base);
    g = Common(r, kind);
    g.id = r->_mem_op_id;
    g.pci = r->_pci_address;
    if (v2)
      g.device = reinterpret_cast<const pti_view_record_memory_copy_v2*>(base)->_device_handle;
  } else if (kind == PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P) {
    auto* r = reinterpret_cast<const pti_view_record_memory_copy_p2p*>(base);
    g = Common(r, kind);
    g.id = r->_mem_op_id;
    g.pci = r->_src_pci_address;
    if (v2) {
      g.device =
          reinterpret_cast<const pti_view_record_memory_copy_p2p_v2*>(base)->_src_device_handle;
    }
  } else {
    auto* r = reinterpret_cast<const pti_view_record_memory_fill*>(base);
    g = Common(r, kind);
    g.id = r->_mem_op_id;
    g.pci = r->_pci_address;
    if (v2)
      g.device = reinterpret_cast<const pti_view_record_memory_fill_v2*>(base)->_device_handle;
  }
  return g;
}

size_t V1Size(pti_view_kind kind) {  // the stride a `stride_v1` tool assumes
  switch (kind) {
    case PTI_VIEW_DEVICE_GPU_KERNEL:
      return sizeof(pti_view_record_kernel);
    case PTI_VIEW_DEVICE_GPU_MEM_COPY:
      return sizeof(pti_view_record_memory_copy);
    case PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P:
      return sizeof(pti_view_record_memory_copy_p2p);
    case PTI_VIEW_DEVICE_GPU_MEM_FILL:
      return sizeof(pti_view_record_memory_fill);
    case PTI_VIEW_EXTERNAL_CORRELATION:
      return sizeof(pti_view_record_external_correlation);
    default:
      return sizeof(pti_view_record_api);
  }
}

void Completed(unsigned char* buffer, size_t size, size_t used) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_in_setup) {  // the refused buffer, handed back unused on the caller's thread
    Check(used == 0, "a refused buffer comes back with 0 bytes used");
    std::free(buffer);
    return;
  }
  g_completion_threads.insert(pid_t(syscall(SYS_gettid)));
  Check(g_outstanding.erase(buffer) == 1, "a completed buffer is one requested, once");
  Check(used <= size, "used bytes within the buffer");
  const bool v2 = BelievesV2();
  pti_view_record_base* record = nullptr;
  uint32_t pending_external = 0;
  bool have_pending = false;
  for (;;) {
    if (g_wrong == "stride_v1" && record != nullptr) {
      auto* next = reinterpret_cast<uint8_t*>(record) + V1Size(KindOf(record));
      if (next >= buffer + used) break;
      record = reinterpret_cast<pti_view_record_base*>(next);
    } else if (ptiViewGetNextRecord(buffer, used, &record) != PTI_SUCCESS) {
      break;
    }
    const pti_view_kind kind = KindOf(record);
    if (kind == PTI_VIEW_EXTERNAL_CORRELATION) {
      auto* r = reinterpret_cast<pti_view_record_external_correlation*>(record);
      uint32_t external_kind = 0;
      std::memcpy(&external_kind, &r->_external_kind, sizeof(external_kind));
      ++g_external[{r->_correlation_id, int(external_kind)}];
      Check(!have_pending || pending_external == r->_correlation_id,
            "external records of one API call are consecutive");
      pending_external = r->_correlation_id;
      have_pending = true;
      continue;
    }
    if (kind == PTI_VIEW_RUNTIME_API || kind == PTI_VIEW_DRIVER_API) {
      auto* r = reinterpret_cast<pti_view_record_api*>(record);
      Check(!have_pending || pending_external == r->_correlation_id,
            "external records precede their API record");
      have_pending = false;
      g_api.insert({r->_correlation_id,
                    {kind, r->_api_id, r->_thread_id, r->_start_timestamp, r->_end_timestamp}});
      continue;
    }
    Check(!have_pending,
          "external records are followed by an API record, not " + std::to_string(int(kind)));
    have_pending = false;
    if (kind == PTI_VIEW_DEVICE_GPU_KERNEL || kind == PTI_VIEW_DEVICE_GPU_MEM_COPY ||
        kind == PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P || kind == PTI_VIEW_DEVICE_GPU_MEM_FILL) {
      g_gpu.push_back(ReadGpu(record, v2));
    } else {
      Check(false, "a record of a kind not enabled: " + std::to_string(int(kind)));
    }
  }
  std::free(buffer);
}

void Start() {
  g_wrong = std::getenv("SIM_CONTRACT_WRONG") ? std::getenv("SIM_CONTRACT_WRONG") : "";
  if (const char* n = std::getenv("SIM_CONTRACT_REFUSE_AFTER")) g_refuse_after = std::atoi(n);
  g_boottime = std::getenv("SIM_CONTRACT_CLOCK") &&
               !std::strcmp(std::getenv("SIM_CONTRACT_CLOCK"), "boottime");
  const pti_version v = ptiVersion();
  g_v2 = v._major >= 1 || v._minor > 17;
  Check(ptiViewEnable(PTI_VIEW_DEVICE_GPU_KERNEL) == PTI_ERROR_NO_CALLBACKS_SET,
        "enable before callbacks: PTI_ERROR_NO_CALLBACKS_SET");
  Check(ptiViewSetCallbacks(RequestedTiny, Completed) == PTI_ERROR_BAD_ARGUMENT,
        "a first buffer smaller than the largest record is refused");
  Check(ptiViewSetCallbacks(Requested, Completed) == PTI_SUCCESS, "callbacks set");
  Check(ptiViewSetTimestampCallback(nullptr) == PTI_ERROR_BAD_ARGUMENT, "null clock refused");
  if (g_boottime) Check(ptiViewSetTimestampCallback(BootNs) == PTI_SUCCESS, "boottime clock set");
  uint64_t id = 0;
  Check(ptiViewPopExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_2, &id) ==
            PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY,
        "pop of an empty stack: PTI_ERROR_EXTERNAL_ID_QUEUE_EMPTY");
  for (pti_view_kind kind :
       {PTI_VIEW_DEVICE_GPU_KERNEL, PTI_VIEW_DEVICE_GPU_MEM_COPY, PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P,
        PTI_VIEW_DEVICE_GPU_MEM_FILL, PTI_VIEW_RUNTIME_API, PTI_VIEW_DRIVER_API,
        PTI_VIEW_EXTERNAL_CORRELATION}) {
    Check(ptiViewEnable(kind) == PTI_SUCCESS, "enable view " + std::to_string(int(kind)));
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_in_setup = false;
  g_t0 = ToolClock();
}

void CheckGraphs(const std::set<uint32_t>& submissions);

// A second PTI user in the process (PyTorch's profiler, say) sets its callbacks before the flush:
// PTI keeps one set, so the buffers this tool handed out come back to the other's callback.
int g_foreign = 0;
void SecondRequested(unsigned char** buffer, size_t* size) {
  *size = 1 << 16;
  *buffer = static_cast<unsigned char*>(std::malloc(*size));
}
void SecondCompleted(unsigned char* buffer, size_t, size_t) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_foreign += int(g_outstanding.erase(buffer));
  std::free(buffer);
}
void SecondTool() {
  Check(ptiViewSetCallbacks(SecondRequested, SecondCompleted) == PTI_SUCCESS, "second callbacks");
  Check(ptiFlushAllViews() == PTI_SUCCESS, "flush");
  std::lock_guard<std::mutex> lock(g_mu);
  std::printf(
      "pti-contract: the second tool's completion callback received %d of this tool's "
      "buffers; %zu never came back to this tool\n",
      g_foreign, g_outstanding.size());
  Check(g_foreign > 0 && g_outstanding.empty(), "this tool's buffers went to the second tool");
  std::printf(g_failures == 0 ? "pti-contract: passed (%d checks)\n" : "pti-contract: FAIL\n",
              g_checks.load());
  std::fflush(stdout);
}

void Finish() {
  const uint64_t t1 = ToolClock();
  const uint64_t pti_now = ptiViewGetTimestamp();
  Check(t1 <= pti_now && pti_now <= ToolClock(), "ptiViewGetTimestamp is in the tool's clock");
  for (int kind = PTI_VIEW_DEVICE_GPU_KERNEL; kind <= PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P; ++kind) {
    if (kind != PTI_VIEW_RESERVED) ptiViewDisable(pti_view_kind(kind));
  }
  if (std::getenv("SIM_CONTRACT_SECOND_TOOL") != nullptr) {
    SecondTool();
    return;
  }
  Check(ptiFlushAllViews() == PTI_SUCCESS, "flush");
  std::lock_guard<std::mutex> lock(g_mu);
  const simsycl::Truth truth = simsycl::GetTruth();
  Check(g_outstanding.empty(), "every buffer came back after the flush");
  Check(g_completion_threads.size() == 1, "buffers completed on one thread");
  std::set<uint32_t> app_threads = {uint32_t(getpid())};
  std::set<uint32_t> submissions;
  for (const auto& [cid, api] : g_api) {
    app_threads.insert(api.tid);
    Check(api.start >= g_t0 && api.end <= t1 && api.start <= api.end, "API times in the clock");
    if (api.kind == PTI_VIEW_RUNTIME_API &&
        (api.api_id == urEnqueueCommandBufferExp_id || api.api_id == urEnqueueGraphExp_id)) {
      submissions.insert(cid);
    }
  }
  for (pid_t t : g_completion_threads) Check(!app_threads.count(uint32_t(t)), "PTI's own thread");
  size_t kernels = 0, copies = 0, fills = 0, externals = 0;
  std::map<std::string, const void*> device_of_pci;
  std::map<const void*, std::string> pci_of_device;
  std::map<const void*, std::string> pci_of_queue;
  const bool complete = g_refuse_after < 0;  // with records lost, only the totals are checked
  for (const Gpu& g : g_gpu) {
    kernels += g.kind == PTI_VIEW_DEVICE_GPU_KERNEL;
    copies += g.kind == PTI_VIEW_DEVICE_GPU_MEM_COPY || g.kind == PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P;
    fills += g.kind == PTI_VIEW_DEVICE_GPU_MEM_FILL;
    if (!complete) continue;
    Check(g.append <= g.submit && g.submit <= g.start && g.start <= g.end,
          "append <= submit <= start <= end: " + g.name);
    Check(g.start >= g_t0 && g.end <= t1, "GPU times in the tool's clock: " + g.name);
    auto api = g_api.find(g.cid);
    Check(api != g_api.end(), "a GPU record's correlation id is an API call's: " + g.name);
    if (api != g_api.end() && !submissions.count(g.cid)) {
      Check(g.start >= api->second.start, "no GPU work before its call: " + g.name);
    }
    if (BelievesV2() && g.device != nullptr) {  // the device handle and the PCI address: one to one
      auto [it, fresh] = device_of_pci.insert({g.pci, g.device});
      Check(it->second == g.device, "one device handle per PCI address: " + g.pci);
      auto [back, fresh_back] = pci_of_device.insert({g.device, g.pci});
      Check(back->second == g.pci, "one PCI address per device handle: " + g.pci);
    }
    if (BelievesV2() && g.kind == PTI_VIEW_DEVICE_GPU_KERNEL)
      Check(g.device != nullptr, "kernel device");
    if (g.kind == PTI_VIEW_DEVICE_GPU_KERNEL) {
      auto [it, fresh] = pci_of_queue.insert({g.queue, g.pci});
      Check(it->second == g.pci, "a queue belongs to one device");
    }
  }
  for (const auto& [key, count] : g_external) {
    externals += count;
    Check(!complete || int(g_api.count(key.first)) == count,
          "one external record per kind per API record of cid " + std::to_string(key.first));
  }
  const size_t seen = g_gpu.size() + g_api.size() + externals;
  const uint64_t emitted = truth.gpu_records + truth.api_records + truth.external_records;
  if (!complete) {
    Check(truth.records_dropped > 0 && seen + truth.records_dropped == emitted,
          "records lost to refused buffers: seen + dropped = emitted");
  } else {
    Check(truth.records_dropped == 0 && seen == emitted, "every record delivered");
    Check(kernels == truth.kernels_issued,
          "kernels: " + std::to_string(kernels) + " of " + std::to_string(truth.kernels_issued));
    Check(copies == truth.copies_issued, "copies: " + std::to_string(copies));
    Check(fills == truth.fills_issued, "fills: " + std::to_string(fills));
    CheckGraphs(submissions);
  }
  std::printf(
      "pti-contract: %zu kernels, %zu copies, %zu fills, %zu API, %zu external records; "
      "%d buffers; layout v%d\n",
      kernels, copies, fills, g_api.size(), externals, g_requested, g_v2 ? 2 : 1);
  if (g_failures == 0) {
    std::printf("pti-contract: passed (%d checks)\n", g_checks.load());
  } else {
    std::printf("pti-contract: FAIL: %d of %d checks\n", g_failures.load(), g_checks.load());
  }
  std::fflush(stdout);
}

// Graph kernels (their correlation id is a graph append or a submission): the same commands on
// every replay (kernel id, correlation id), one submit time per execution that lies inside one
// submission call, and _sycl_node_id naming trace events, not nodes.
// The runtime (SYCL) API record of a correlation id, if any.
const Api* RuntimeCall(uint32_t cid) {
  for (auto [it, end] = g_api.equal_range(cid); it != end; ++it) {
    if (it->second.kind == PTI_VIEW_RUNTIME_API) return &it->second;
  }
  return nullptr;
}

constexpr uint64_t kShiftSlackNs = 1000;

void CheckGraphs(const std::set<uint32_t>& submissions) {
  std::map<uint64_t, std::vector<const Gpu*>> by_kernel_id;
  std::map<std::pair<const void*, uint64_t>, std::vector<const Gpu*>> by_submit;
  for (const Gpu& g : g_gpu) {
    if (g.kind != PTI_VIEW_DEVICE_GPU_KERNEL) continue;
    const Api* api = RuntimeCall(g.cid);
    if (api == nullptr) continue;
    const bool appended = api->api_id == urCommandBufferAppendKernelLaunchExp_id;
    if (!appended && !submissions.count(g.cid)) continue;
    by_kernel_id[g.id].push_back(&g);
    by_submit[{g.queue, g.submit}].push_back(&g);
  }
  uint64_t spread = 0;
  for (const auto& [id, runs] : by_kernel_id) {
    for (const Gpu* g : runs) {
      Check(g->cid == runs.front()->cid, "a graph kernel keeps its correlation id on replays");
      // The same append time, up to the clock shift PTI re-measures every millisecond (PTI's
      // own graph test allows 40 ns).
      const uint64_t a = g->append, b = runs.front()->append;
      spread = std::max(spread, a > b ? a - b : b - a);
    }
    Check(runs.size() == by_kernel_id.begin()->second.size(), "every node replayed as often");
  }
  Check(spread <= 1000, "a graph kernel keeps its append time: spread " + std::to_string(spread));
  // One execution's kernels share a submit time, again up to the shift: an execution is the
  // kernels of one queue whose submit times lie within 1 us (submissions are further apart).
  std::vector<std::vector<const Gpu*>> executions;
  const void* queue = nullptr;
  uint64_t last = 0, split = 0;
  for (const auto& [key, kernels] : by_submit) {
    if (executions.empty() || key.first != queue || key.second - last > 1000) {
      executions.emplace_back();
    } else {
      split = std::max(split, key.second - executions.back().front()->submit);
    }
    executions.back().insert(executions.back().end(), kernels.begin(), kernels.end());
    queue = key.first;
    last = key.second;
  }
  size_t most_events = 0, ambiguous = 0;
  uint64_t outside = 0;
  for (const auto& kernels : executions) {
    std::set<uint64_t> ids, events;
    for (const Gpu* g : kernels) ids.insert(g->id), events.insert(g->node_id);
    Check(ids.size() == kernels.size(), "an execution runs each node once");
    Check(events.size() <= ids.size(), "trace events no more than nodes");
    most_events = std::max(most_events, events.size());
    // Inside one submission call of the thread that recorded the graph (here also the thread
    // submitting it); calls of other threads may overlap it: the time alone can be ambiguous.
    // Up to the clock shift too: the API record and the kernel record are converted at different
    // times, with shifts measured up to a millisecond apart: the nearest call of the thread.
    int inside = 0, same_thread = 0;
    uint64_t nearest = UINT64_MAX;
    const uint64_t submit = kernels.front()->submit;
    for (uint32_t cid : submissions) {
      const Api* api = RuntimeCall(cid);
      const uint64_t distance = api->start > submit ? api->start - submit
                                : submit > api->end ? submit - api->end
                                                    : 0;
      inside += distance == 0;
      if (api->tid != kernels.front()->tid) continue;
      same_thread += distance == 0;
      nearest = std::min(nearest, distance);
    }
    Check(same_thread <= 1 && nearest <= kShiftSlackNs,
          "an execution's submit time lies inside one submission call of its thread");
    outside = std::max(outside, nearest);
    ambiguous += inside > 1;
  }
  if (!executions.empty()) {
    std::printf(
        "pti-contract: graphs: %zu nodes, %zu executions, %zu submissions; append times "
        "within %llu ns, one execution's submit times within %llu ns; at most %zu "
        "distinct _sycl_node_id per execution; %zu inside another thread's submission "
        "too; submit times at most %llu ns outside their call\n",
        by_kernel_id.size(), executions.size(), submissions.size(),
        static_cast<unsigned long long>(spread), static_cast<unsigned long long>(split),
        most_events, ambiguous, static_cast<unsigned long long>(outside));
  }
}

// Constructed after every global above (one translation unit: in order), destroyed before them.
struct Tool {
  Tool() { Start(); }
  ~Tool() { Finish(); }
} g_tool;

}  // namespace
