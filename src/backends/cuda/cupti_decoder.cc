// CUPTI activity record -> neutral record.
#include "backends/cuda/cupti_decoder.h"

#include <string>

namespace nodescope::cupti {
namespace {

// CUPTI's enums share our neutral enums' order; checked here so a header change is caught.
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == static_cast<int>(CopyDirection::kHtoD));
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == static_cast<int>(CopyDirection::kDtoD));
static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == static_cast<int>(CopyDirection::kPtoP));
static_assert(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE == static_cast<int>(MemoryKind::kPageable));
static_assert(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC ==
              static_cast<int>(MemoryKind::kManagedStatic));

CopyDirection ToDirection(uint8_t v) {
  return v < static_cast<uint8_t>(CopyDirection::kCount) ? static_cast<CopyDirection>(v)
                                                         : CopyDirection::kUnknown;
}
MemoryKind ToMemoryKind(uint32_t v) {
  return v < static_cast<uint32_t>(MemoryKind::kCount) ? static_cast<MemoryKind>(v)
                                                       : MemoryKind::kUnknown;
}
// Which copy records say whether a device-launched graph ran them.
uint8_t IsDeviceLaunched(const CUpti_ActivityMemcpy6& m) { return m.isDeviceLaunched; }
uint8_t IsDeviceLaunched(const CUpti_ActivityMemcpyPtoP4& /*m*/) { return 0; }

uint32_t ClampU32(int32_t v) { return v < 0 ? 0u : static_cast<uint32_t>(v); }

GpuActivity Common(ActivityKind kind, uint64_t start, uint64_t end, uint32_t device,
                   uint32_t context, uint32_t stream, uint32_t correlation, uint32_t graph_id,
                   uint64_t graph_node_id) {
  GpuActivity a{};
  a.kind = kind;
  a.start_ns = start;
  a.end_ns = end < start ? start : end;
  a.device = device;
  a.context = context;
  a.stream = stream;
  a.correlation_id = correlation;
  a.graph_id = graph_id;
  a.graph_node_id = graph_id != 0 ? graph_node_id : 0;
  a.conditional_body = graph_id != 0 && correlation == 0 ? 1 : 0;  // conditional_bodies.h
  return a;
}

}  // namespace

std::string_view StripApiVersionSuffix(std::string_view name) {
  size_t pos = name.rfind("_v");
  if (pos == std::string_view::npos || pos + 2 >= name.size()) return name;
  for (size_t i = pos + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, pos);
}

CuptiDecoder::CuptiDecoder(Trace* trace, uint64_t max_events, ApiNameFn api_name)
    : trace_(trace), max_events_(max_events), api_name_(api_name) {}

bool CuptiDecoder::Room() {
  if (decoded_ < max_events_) {
    ++decoded_;
    return true;
  }
  ++trace_->drops.store_full;
  return false;
}

bool CuptiDecoder::Decode(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      DecodeKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      DecodeCopy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      DecodeCopy(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      DecodeMemset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE:
      DecodeDeviceGraphTrace(*reinterpret_cast<const CUpti_ActivityDeviceGraphTrace*>(record));
      return true;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      DecodeApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), ApiDomain::kRuntime);
      return true;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      DecodeApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), ApiDomain::kDriver);
      return true;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& e = *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (Discarded(e.correlationId) || !Room()) return true;
      // CUSTOM1 is where nodescope pushes user ranges (as kineto does).
      trace_->external.push_back(ExternalCorrelation{
          e.externalId, e.correlationId,
          e.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1 ? ExternalKind::kUserRange
                                                                    : ExternalKind::kOther});
      return true;
    }
    default:
      ++trace_->drops.unknown_records;
      return false;
  }
}

void CuptiDecoder::DecodeBuffer(uint8_t* buffer, size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    Decode(record);
  }
}

bool CuptiDecoder::Admit(const GpuActivity& a) {
  if (bodies_ && a.graph_id != 0) {
    if (a.conditional_body != 0) return true;  // Emit() decides once it is described
    bodies_->NoteLaunch(a.graph_id, a.correlation_id, a.start_ns, keep_->Contains(a.correlation_id),
                        [this](const GpuActivity& body, bool keep) { Decided(body, keep); });
  }
  return !Discarded(a.correlation_id) && Room();
}

void CuptiDecoder::Emit(GpuActivity* a) {
  if (!bodies_ || a->conditional_body == 0) {
    Keep(*a);
    return;
  }
  switch (bodies_->Offer(a)) {
    case BodyVerdict::kKeep:
      Decided(*a, true);
      break;
    case BodyVerdict::kDiscard:
      Decided(*a, false);
      break;
    case BodyVerdict::kPending:
    case BodyVerdict::kWithheld:
      break;
  }
}

void CuptiDecoder::Decided(const GpuActivity& a, bool keep) {
  if (!keep) {
    ++discarded_;
  } else if (Room()) {
    Keep(a);
  }
}

void CuptiDecoder::SettleBodies() {
  if (bodies_) bodies_->Settle([this](const GpuActivity& body, bool keep) { Decided(body, keep); });
}

void CuptiDecoder::DecodeKernel(const CUpti_ActivityKernel10& k) {
  GpuActivity a = Common(ActivityKind::kKernel, k.start, k.end, k.deviceId, k.contextId, k.streamId,
                         k.correlationId, k.graphId, k.graphNodeId);
  NoteDeviceLaunched(&a, k.isDeviceLaunched);
  if (!Admit(a)) return;
  a.kernel.name = trace_->strings.InternStablePointer(k.name);
  a.kernel.grid[0] = k.gridX;
  a.kernel.grid[1] = k.gridY;
  a.kernel.grid[2] = k.gridZ;
  a.kernel.block[0] = k.blockX;
  a.kernel.block[1] = k.blockY;
  a.kernel.block[2] = k.blockZ;
  a.kernel.static_shared_bytes = ClampU32(k.staticSharedMemory);
  a.kernel.dynamic_shared_bytes = ClampU32(k.dynamicSharedMemory);
  a.kernel.registers_per_thread = k.registersPerThread;
  Emit(&a);
}

// Memcpy6 and MemcpyPtoP4 share every field we keep.
template <typename CopyRecord>
void CuptiDecoder::DecodeCopy(const CopyRecord& m) {
  GpuActivity a = Common(ActivityKind::kMemcpy, m.start, m.end, m.deviceId, m.contextId, m.streamId,
                         m.correlationId, m.graphId, m.graphNodeId);
  NoteDeviceLaunched(&a, IsDeviceLaunched(m));
  if (!Admit(a)) return;
  a.copy.bytes = m.bytes;
  a.copy.direction = ToDirection(m.copyKind);
  a.copy.src_kind = ToMemoryKind(m.srcKind);
  a.copy.dst_kind = ToMemoryKind(m.dstKind);
  Emit(&a);
}

void CuptiDecoder::DecodeMemset(const CUpti_ActivityMemset4& m) {
  GpuActivity a = Common(ActivityKind::kMemset, m.start, m.end, m.deviceId, m.contextId, m.streamId,
                         m.correlationId, m.graphId, m.graphNodeId);
  NoteDeviceLaunched(&a, m.isDeviceLaunched);
  if (!Admit(a)) return;
  a.fill.bytes = m.bytes;
  a.fill.value = m.value;
  a.fill.memory_kind = ToMemoryKind(m.memoryKind);
  Emit(&a);
}

void CuptiDecoder::NoteDeviceLaunched(GpuActivity* a, uint8_t is_device_launched) {
  if (is_device_launched == 0) return;
  a->device_launched = 1;
  ++device_graphs_.device_launched_records;
}

void CuptiDecoder::DecodeDeviceGraphTrace(const CUpti_ActivityDeviceGraphTrace& g) {
  ++device_graphs_.device_graph_traces;
  const uint32_t mode = g.deviceLaunchMode < device_graphs_.device_graph_traces_by_mode.size()
                            ? g.deviceLaunchMode
                            : 0;
  ++device_graphs_.device_graph_traces_by_mode[mode];
  if (g.end > g.start) device_graphs_.device_graph_trace_ns += g.end - g.start;
}

void CuptiDecoder::DecodeApi(const CUpti_ActivityAPI& r, ApiDomain domain) {
  if (Discarded(r.correlationId) || !Room()) return;
  ApiCall c{};
  c.start_ns = r.start;
  c.end_ns = r.end < r.start ? r.start : r.end;
  c.pid = r.processId;
  c.tid = r.threadId;
  c.correlation_id = r.correlationId;
  c.cbid = r.cbid;
  c.domain = domain;
  c.name = ApiName(domain, r.cbid);
  trace_->api.push_back(c);
}

StringId CuptiDecoder::ApiName(ApiDomain domain, CUpti_CallbackId cbid) {
  auto& cache = api_names_[static_cast<size_t>(domain)];
  if (cbid < kMaxCbid && cache[cbid] != kNoString) return cache[cbid];
  CUpti_CallbackDomain cupti_domain =
      domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  const char* raw = api_name_ != nullptr ? api_name_(cupti_domain, cbid) : nullptr;
  StringId id;
  if (raw != nullptr) {
    id = trace_->strings.Intern(StripApiVersionSuffix(raw));
  } else {
    id = trace_->strings.Intern(
        (domain == ApiDomain::kRuntime ? "cudaRuntimeApi#" : "cuDriverApi#") +
        std::to_string(cbid));
  }
  if (cbid < kMaxCbid) cache[cbid] = id;
  return id;
}

}  // namespace nodescope::cupti
