// Neutral records: what every backend decodes its vendor's activity into. Plain, fixed-size data.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "base/string_table.h"

namespace nodescope {

enum class ActivityKind : uint8_t { kKernel = 0, kMemcpy = 1, kMemset = 2, kCount = 3 };

struct ActivityKindInfo {
  ActivityKind kind;
  const char* name;       // for summaries
  const char* trace_cat;  // kineto's "cat" string
};
inline constexpr std::array<ActivityKindInfo, 3> kActivityKindInfo = {{
    {ActivityKind::kKernel, "kernel", "kernel"},
    {ActivityKind::kMemcpy, "memcpy", "gpu_memcpy"},
    {ActivityKind::kMemset, "memset", "gpu_memset"},
}};
static_assert(kActivityKindInfo.size() == static_cast<size_t>(ActivityKind::kCount));
constexpr bool ActivityKindTableIsOrdered() {
  for (size_t i = 0; i < kActivityKindInfo.size(); ++i) {
    if (static_cast<size_t>(kActivityKindInfo[i].kind) != i) return false;
  }
  return true;
}
static_assert(ActivityKindTableIsOrdered(), "one entry per ActivityKind, in enum order");
inline const ActivityKindInfo& InfoOf(ActivityKind k) {
  return kActivityKindInfo[static_cast<size_t>(k)];
}

// Copy direction, vendor-neutral (CUPTI's CUpti_ActivityMemcpyKind maps onto it).
enum class CopyDirection : uint8_t {
  kUnknown = 0,
  kHtoD,
  kDtoH,
  kHtoA,
  kAtoH,
  kAtoA,
  kAtoD,
  kDtoA,
  kDtoD,
  kHtoH,
  kPtoP,
  kCount
};
// Where memory lives, vendor-neutral (CUPTI's CUpti_ActivityMemoryKind maps onto it).
enum class MemoryKind : uint8_t {
  kUnknown = 0,
  kPageable,
  kPinned,
  kDevice,
  kArray,
  kManaged,
  kDeviceStatic,
  kManagedStatic,
  kCount
};

struct KernelDetails {
  StringId name;  // interned, mangled as the vendor reports it
  int32_t grid[3];
  int32_t block[3];
  uint32_t static_shared_bytes;
  uint32_t dynamic_shared_bytes;
  uint16_t registers_per_thread;
  uint8_t reserved[2];
};
static_assert(sizeof(KernelDetails) == 40);

struct CopyDetails {
  uint64_t bytes;
  CopyDirection direction;
  MemoryKind src_kind;
  MemoryKind dst_kind;
  uint8_t reserved[5];
};
static_assert(sizeof(CopyDetails) == 16);

struct FillDetails {
  uint64_t bytes;
  uint32_t value;
  MemoryKind memory_kind;
  uint8_t reserved[3];
};
static_assert(sizeof(FillDetails) == 16);

// One kernel, copy or fill that ran on a device. Timestamps are in the trace clock (base/clock.h).
struct GpuActivity {
  uint64_t start_ns;
  uint64_t end_ns;
  // (graph_id << 32) | node ordinal; 0 with graph_id 0 when not launched from a graph.
  uint64_t graph_node_id;
  uint32_t graph_id;
  uint32_t correlation_id;  // links to the ApiCall that launched it
  uint32_t device;
  uint32_t context;
  uint32_t stream;
  ActivityKind kind;
  // Set on a live record once live metrics counted it (CopyUnfedGpu, backends/ring_window.h), so
  // that a part or the trace at exit counts it no more; never written into a trace.
  uint8_t metrics_fed;
  // 1: launched by a device-launched graph (CUPTI's isDeviceLaunched); 0: from the host.
  uint8_t device_launched;
  // 1: a graph record the vendor gave no correlation id: work of a conditional node's body
  // (CUPTI, backends/cuda/conditional_bodies.h), whatever correlation id it is given later;
  // never written into a trace.
  uint8_t conditional_body;
  union {
    KernelDetails kernel;
    CopyDetails copy;
    FillDetails fill;
  };
  // The innermost user range open where this node was added to its graph (stream capture or
  // explicit creation), carried into every replay; 0 when none or not from a graph.
  uint64_t capture_range_id;
};
static_assert(sizeof(GpuActivity) == 96);
static_assert(std::is_trivially_copyable_v<GpuActivity>);

enum class ApiDomain : uint8_t { kRuntime = 0, kDriver = 1, kCount = 2 };
inline constexpr std::array<const char*, 2> kApiDomainCat = {"cuda_runtime", "cuda_driver"};
static_assert(kApiDomainCat.size() == static_cast<size_t>(ApiDomain::kCount));

// One runtime or driver API call on a CPU thread.
struct ApiCall {
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t pid;
  uint32_t tid;
  uint32_t correlation_id;
  uint32_t cbid;  // the vendor's callback id, written as "cbid" like kineto
  StringId name;
  ApiDomain domain;
  uint8_t reserved[3];
};
static_assert(sizeof(ApiCall) == 40);
static_assert(std::is_trivially_copyable_v<ApiCall>);

// What an external correlation id stands for.
enum class ExternalKind : uint32_t { kOther = 0, kUserRange = 1 };

// Vendor correlation id -> an id the tool pushed around the API call: for kUserRange, the
// innermost push/pop UserRange open on the launching thread.
struct ExternalCorrelation {
  uint64_t external_id;
  uint32_t correlation_id;
  ExternalKind external_kind;
};
static_assert(sizeof(ExternalCorrelation) == 16);

// A user range (nodescope's API, NVTX, a framework) as it ran on the CPU.
enum RangeFlags : uint8_t {
  kRangeStartEnd = 1,      // a Start/End range (not push/pop): may end on another thread
  kRangeOpenAtEnd = 2,     // still open when tracing stopped: closed at the trace's end
  kRangeCrossThread = 4,   // ended on another thread than it started on
  kRangeThreadExited = 8,  // a push/pop range its thread ended inside: closed when it ended
};
struct UserRange {
  uint64_t id;         // unique in the trace: the "External id" linking CPU and device spans
  uint64_t parent_id;  // the enclosing push/pop range on the same thread, 0 at the top
  uint64_t start_ns;
  uint64_t end_ns;
  StringId name;
  StringId domain;  // NVTX domain name; kNoString for the default domain and our own API
  uint32_t pid;
  uint32_t tid;      // the thread that opened it
  uint32_t end_tid;  // the thread that closed it
  uint8_t flags;
  uint8_t reserved[3];
};
static_assert(sizeof(UserRange) == 56);
static_assert(std::is_trivially_copyable_v<UserRange>);

// A user range projected onto a device stream: first linked activity's start to the last one's
// end. Runtime ranges give one per (device, stream, range); a capture-time range gives one per
// (device, stream, range, replay).
struct DeviceSpan {
  uint64_t range_id;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t device;
  uint32_t stream;
  uint32_t replay_correlation;  // the graph launch's correlation id; 0 for runtime ranges
  StringId name;
};
static_assert(sizeof(DeviceSpan) == 40);

}  // namespace nodescope
