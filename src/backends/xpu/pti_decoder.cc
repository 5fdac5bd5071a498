// PTI view records -> neutral records.
#include "backends/xpu/pti_decoder.h"

#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>

namespace nodescope::pti {
namespace {

MemoryKind KindOf(pti_view_memory_type t) {
  switch (t) {
    case PTI_VIEW_MEMORY_TYPE_MEMORY:
      return MemoryKind::kPageable;  // memory the user allocated, unknown to the runtime
    case PTI_VIEW_MEMORY_TYPE_HOST:
      return MemoryKind::kPinned;  // USM host memory
    case PTI_VIEW_MEMORY_TYPE_DEVICE:
      return MemoryKind::kDevice;
    case PTI_VIEW_MEMORY_TYPE_SHARED:
      return MemoryKind::kManaged;
    default:
      return MemoryKind::kUnknown;
  }
}

CopyDirection DirectionOf(MemoryKind src, MemoryKind dst) {
  const bool d_src = src == MemoryKind::kDevice, d_dst = dst == MemoryKind::kDevice;
  const bool h_src = src == MemoryKind::kPinned || src == MemoryKind::kPageable;
  const bool h_dst = dst == MemoryKind::kPinned || dst == MemoryKind::kPageable;
  if (h_src && d_dst) return CopyDirection::kHtoD;
  if (d_src && h_dst) return CopyDirection::kDtoH;
  if (d_src && d_dst) return CopyDirection::kDtoD;
  if (h_src && h_dst) return CopyDirection::kHtoH;
  return CopyDirection::kUnknown;  // shared memory on either side
}

}  // namespace

bool UsesV2Layout(const pti_version& v) { return v._major >= 1 || v._minor > 17; }

PtiDecoder::PtiDecoder(Trace* trace, uint64_t max_events, bool v2, ApiNameFn api_name,
                       SubmissionMatchingStage* stage)
    : trace_(trace),
      max_events_(max_events),
      v2_(v2),
      api_name_(api_name),
      stage_(stage),
      pid_(static_cast<uint32_t>(getpid())),
      unknown_name_(trace->strings.Intern("<unknown>")) {
  devices_.reserve(16);
  queues_.reserve(256);
  for (auto& t : api_names_) t.assign(kApiIds + 1, kNoString);
}

bool PtiDecoder::Room() {
  if (trace_->gpu.held() + trace_->api.held() < max_events_) return true;
  ++trace_->drops.store_full;
  return false;
}

// The device's index: its PCI address and UUID as one key, numbered in order of first sight.
uint32_t PtiDecoder::DeviceOf(const char* pci, const uint8_t* uuid) {
  Device d{};
  std::memcpy(d.key, pci, PTI_MAX_PCI_ADDRESS_SIZE);
  std::memcpy(d.key + PTI_MAX_PCI_ADDRESS_SIZE, uuid, PTI_MAX_DEVICE_UUID_SIZE);
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (std::memcmp(devices_[i].key, d.key, sizeof(d.key)) == 0) return static_cast<uint32_t>(i);
  }
  const auto index = static_cast<uint32_t>(devices_.size());
  devices_.push_back(d);  // once per device
  DeviceProperties p;
  p.id = index;
  p.name = std::string(pci, strnlen(pci, PTI_MAX_PCI_ADDRESS_SIZE));
  if (!p.name.empty()) p.name = "Intel GPU at PCI " + p.name;
  trace_->devices.push_back(p);
  return index;
}

uint32_t PtiDecoder::StreamOf(const void* queue) {
  if (queue == nullptr) return 0;
  if (last_queue_ < queues_.size() && queues_[last_queue_].first == queue) {
    return queues_[last_queue_].second;
  }
  for (size_t i = 0; i < queues_.size(); ++i) {
    if (queues_[i].first == queue) {
      last_queue_ = i;
      return queues_[i].second;
    }
  }
  last_queue_ = queues_.size();
  queues_.emplace_back(queue, static_cast<uint32_t>(queues_.size() + 1));  // once per queue
  return queues_.back().second;
}

// Kernel names: a small cache by pointer, checked against the interned text (PTI does not say
// how long a record's name pointer stays valid, so a reused address is caught).
StringId PtiDecoder::NameOf(const char* name) {
  if (name == nullptr) return unknown_name_;
  auto& slot = names_[(reinterpret_cast<uintptr_t>(name) >> 3) % kNameCache];
  if (slot.first == name && trace_->strings.Get(slot.second) == std::string_view(name)) {
    return slot.second;
  }
  slot = {name, trace_->strings.Intern(name)};
  return slot.second;
}

StringId PtiDecoder::ApiName(pti_api_group_id group, uint32_t id) {
  const size_t table = group == PTI_API_GROUP_LEVELZERO ? 1 : 0;
  const size_t i = id < kApiIds ? id : kApiIds;
  StringId& s = api_names_[table][i];
  if (s != kNoString) return s;
  const char* name = nullptr;
  if (api_name_ != nullptr && i < kApiIds && api_name_(group, id, &name) != PTI_SUCCESS) {
    name = nullptr;
  }
  const std::string fallback = std::string(table == 1 ? "ze_api_" : "sycl_api_") +
                               (i < kApiIds ? std::to_string(id) : std::string("other"));
  s = trace_->strings.Intern(name != nullptr && name[0] != '\0' ? std::string(name) : fallback);
  return s;
}

void PtiDecoder::Decode(const pti_view_record_base* record) {
  // Read the kind as 32 bits: a newer PTI emits kinds our headers do not name.
  const auto kind = static_cast<uint32_t>(record->_view_kind);
  switch (kind) {
    case PTI_VIEW_DEVICE_GPU_KERNEL:
      if (v2_) {
        const auto& r = *reinterpret_cast<const pti_view_record_kernel_v2*>(record);
        DecodeKernel(r, r._device_handle);
      } else {
        DecodeKernel(*reinterpret_cast<const pti_view_record_kernel*>(record), nullptr);
      }
      break;
    case PTI_VIEW_DEVICE_GPU_MEM_COPY:
      // Every v2 record extends its v1 record: the v1 fields are read the same way.
      DecodeCopy(*reinterpret_cast<const pti_view_record_memory_copy*>(record));
      break;
    case PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P:
      DecodeP2p(*reinterpret_cast<const pti_view_record_memory_copy_p2p*>(record));
      break;
    case PTI_VIEW_DEVICE_GPU_MEM_FILL:
      DecodeFill(*reinterpret_cast<const pti_view_record_memory_fill*>(record));
      break;
    case PTI_VIEW_RUNTIME_API:
      DecodeApi(*reinterpret_cast<const pti_view_record_api*>(record), ApiDomain::kRuntime);
      break;
    case PTI_VIEW_DRIVER_API:
      DecodeApi(*reinterpret_cast<const pti_view_record_api*>(record), ApiDomain::kDriver);
      break;
    case PTI_VIEW_EXTERNAL_CORRELATION: {
      const auto& e = *reinterpret_cast<const pti_view_record_external_correlation*>(record);
      // CUSTOM_1 is what nodescope's range listener and PyTorch's profiler push: user ranges.
      // Other kinds are kept, linked to nothing on the device.
      trace_->external.push_back(ExternalCorrelation{
          e._external_id, e._correlation_id,
          static_cast<uint32_t>(e._external_kind) == PTI_VIEW_EXTERNAL_KIND_CUSTOM_1
              ? ExternalKind::kUserRange
              : ExternalKind::kOther});
      break;
    }
    default:
      ++trace_->drops.unknown_records;
      break;
  }
}

namespace {
// The fields every PTI GPU record has under the same names (both layouts).
template <typename R>
GpuActivity Timed(ActivityKind kind, const R& r) {
  GpuActivity a{};
  a.kind = kind;
  a.start_ns = r._start_timestamp;
  a.end_ns = r._end_timestamp;
  a.correlation_id = r._correlation_id;
  return a;
}
}  // namespace

template <typename R>
void PtiDecoder::DecodeKernel(const R& r, const void*) {
  if (!Room()) return;
  GpuActivity a = Timed(ActivityKind::kKernel, r);
  a.device = DeviceOf(r._pci_address, r._device_uuid);
  a.stream = StreamOf(r._queue_handle);
  a.kernel.name = NameOf(r._name);
  if (stage_ != nullptr) {
    // For the stage (stage.h): a graph's commands keep their _kernel_id on every replay, and
    // only the queue and _submit_timestamp tell one execution from another (docs/pti-notes.md).
    a.graph_id = SubmissionMatchingStage::kProvisionalGraphId;
    a.graph_node_id = r._kernel_id;
    a.capture_range_id = r._submit_timestamp;
    a.context = r._thread_id;
  }
  trace_->gpu.push_back(a);
}

template <typename R>
void PtiDecoder::DecodeCopy(const R& r) {
  if (!Room()) return;
  GpuActivity a = Timed(ActivityKind::kMemcpy, r);
  a.device = DeviceOf(r._pci_address, r._device_uuid);
  a.stream = StreamOf(r._queue_handle);
  a.copy.bytes = r._bytes;
  a.copy.src_kind = KindOf(r._mem_src);
  a.copy.dst_kind = KindOf(r._mem_dst);
  a.copy.direction = DirectionOf(a.copy.src_kind, a.copy.dst_kind);
  trace_->gpu.push_back(a);
}

template <typename R>
void PtiDecoder::DecodeP2p(const R& r) {
  if (!Room()) return;
  GpuActivity a = Timed(ActivityKind::kMemcpy, r);
  a.device = DeviceOf(r._src_pci_address, r._src_uuid);  // the queue's device: the source
  (void)DeviceOf(r._dst_pci_address, r._dst_uuid);       // known as a device too
  a.stream = StreamOf(r._queue_handle);
  a.copy.bytes = r._bytes;
  a.copy.direction = CopyDirection::kPtoP;
  a.copy.src_kind = MemoryKind::kDevice;
  a.copy.dst_kind = MemoryKind::kDevice;
  trace_->gpu.push_back(a);
}

template <typename R>
void PtiDecoder::DecodeFill(const R& r) {
  if (!Room()) return;
  GpuActivity a = Timed(ActivityKind::kMemset, r);
  a.device = DeviceOf(r._pci_address, r._device_uuid);
  a.stream = StreamOf(r._queue_handle);
  a.fill.bytes = r._bytes;
  a.fill.value = static_cast<uint32_t>(r._value_for_set);
  a.fill.memory_kind = KindOf(r._mem_type);
  trace_->gpu.push_back(a);
}

void PtiDecoder::DecodeApi(const pti_view_record_api& r, ApiDomain domain) {
  if (!Room()) return;
  ApiCall c{};
  c.start_ns = r._start_timestamp;
  c.end_ns = r._end_timestamp;
  c.pid = r._process_id != 0 ? r._process_id : pid_;
  c.tid = r._thread_id;
  c.correlation_id = r._correlation_id;
  c.cbid = r._api_id;
  c.name = ApiName(r._api_group, r._api_id);
  c.domain = domain;
  trace_->api.push_back(c);
  if (stage_ == nullptr || static_cast<uint32_t>(r._api_group) != PTI_API_GROUP_SYCL) return;
  // A graph kernel's correlation id names the call that appended it, or (commands made by a
  // visit at the first traced submission) that submission (docs/pti-notes.md).
  switch (r._api_id) {
    case urEnqueueGraphExp_id:
    case urEnqueueCommandBufferExp_id:
      stage_->SubmissionCall(c.correlation_id, c.tid, c.start_ns, c.end_ns);
      break;
    case urCommandBufferAppendKernelLaunchExp_id:
      stage_->AppendCall(c.correlation_id);
      break;
    default:
      break;
  }
}

}  // namespace nodescope::pti
