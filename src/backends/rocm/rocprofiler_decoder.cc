// rocprofiler-sdk records -> neutral records.
#include "backends/rocm/rocprofiler_decoder.h"

#include <unistd.h>

#include <string>

#include "attribution/stage.h"

namespace nodescope::rocprofiler {
namespace {

constexpr uint32_t kMaxKernelId = 1u << 22;
constexpr size_t kApiNames = 1024;  // kernel ids are small and dense (one per symbol)

CopyDirection DirectionOf(int32_t op) {
  switch (op) {
    case ROCPROFILER_MEMORY_COPY_HOST_TO_HOST:
      return CopyDirection::kHtoH;
    case ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE:
      return CopyDirection::kHtoD;
    case ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST:
      return CopyDirection::kDtoH;
    case ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE:
      return CopyDirection::kDtoD;
    default:
      return CopyDirection::kUnknown;
  }
}

int32_t Blocks(uint32_t grid, uint32_t workgroup) {
  return static_cast<int32_t>(workgroup == 0 ? grid : (grid + workgroup - 1) / workgroup);
}

}  // namespace

const char* HipApiName(int32_t operation) {
  switch (operation) {
#define NS_HIP_NAME(x)                     \
  case ROCPROFILER_HIP_RUNTIME_API_ID_##x: \
    return #x;
    NS_HIP_NAME(hipDeviceSynchronize)
    NS_HIP_NAME(hipGraphAddKernelNode)
    NS_HIP_NAME(hipGraphCreate)
    NS_HIP_NAME(hipGraphDestroy)
    NS_HIP_NAME(hipGraphExecDestroy)
    NS_HIP_NAME(hipGraphExecKernelNodeSetParams)
    NS_HIP_NAME(hipGraphExecUpdate)
    NS_HIP_NAME(hipGraphInstantiate)
    NS_HIP_NAME(hipGraphInstantiateWithFlags)
    NS_HIP_NAME(hipGraphLaunch)
    NS_HIP_NAME(hipLaunchKernel)
    NS_HIP_NAME(hipMemcpy)
    NS_HIP_NAME(hipMemcpyAsync)
    NS_HIP_NAME(hipSetDevice)
    NS_HIP_NAME(hipStreamBeginCapture)
    NS_HIP_NAME(hipStreamCreate)
    NS_HIP_NAME(hipStreamDestroy)
    NS_HIP_NAME(hipStreamEndCapture)
    NS_HIP_NAME(hipStreamSynchronize)
    NS_HIP_NAME(hipGraphLaunch_spt)
    NS_HIP_NAME(hipGraphInstantiateWithParams)
#undef NS_HIP_NAME
    default:
      return nullptr;
  }
}

RocprofilerDecoder::RocprofilerDecoder(Trace* trace, uint64_t max_events,
                                       int64_t boot_to_realtime_ns)
    : trace_(trace),
      max_events_(max_events),
      boot_to_realtime_ns_(boot_to_realtime_ns),
      pid_(static_cast<uint32_t>(getpid())),
      unknown_kernel_(trace->strings.Intern("<unknown kernel>")) {
  // Operation ids run to ~500 (HIP 6.x); past the table: one generic name. Names we do not
  // declare are written as hip_runtime_api_<id> (the SDK's name query is not used yet).
  api_names_.resize(kApiNames + 1);
  api_names_[kApiNames] = trace->strings.Intern("hip_runtime_api");
  for (int32_t op = 0; op < static_cast<int32_t>(kApiNames); ++op) {
    const char* name = HipApiName(op);
    api_names_[static_cast<size_t>(op)] = trace->strings.Intern(
        name != nullptr ? std::string(name) : "hip_runtime_api_" + std::to_string(op));
  }
}

void RocprofilerDecoder::AddKernelSymbol(uint64_t kernel_id, const char* name) {
  std::lock_guard<std::mutex> lock(symbols_mu_);
  pending_.emplace_back(kernel_id, name != nullptr ? name : "");
  has_pending_ = true;
}

void RocprofilerDecoder::SetAgentDevice(uint64_t agent_handle, uint32_t device) {
  agents_.emplace_back(agent_handle, device);
}

void RocprofilerDecoder::TakeSymbols() {
  std::lock_guard<std::mutex> lock(symbols_mu_);
  if (!has_pending_) return;
  for (const auto& [id, name] : pending_) {
    if (id >= kMaxKernelId) continue;
    if (id >= kernel_names_.size()) kernel_names_.resize(id + 1, kNoString);
    kernel_names_[id] = trace_->strings.Intern(name);
  }
  pending_.clear();
  has_pending_ = false;
}

uint32_t RocprofilerDecoder::DeviceOf(uint64_t agent) const {
  for (const auto& [handle, device] : agents_) {
    if (handle == agent) return device;
  }
  return 0;
}

bool RocprofilerDecoder::Room() {
  if (trace_->gpu.held() + trace_->api.held() < max_events_) return true;
  ++trace_->drops.store_full;
  return false;
}

void RocprofilerDecoder::Decode(rocprofiler_record_header_t** headers, size_t count) {
  TakeSymbols();
  for (size_t i = 0; i < count; ++i) {
    const rocprofiler_record_header_t* h = headers[i];
    if (h == nullptr || h->payload == nullptr) continue;
    if (h->category != ROCPROFILER_BUFFER_CATEGORY_TRACING) {
      ++trace_->drops.unknown_records;
      continue;
    }
    switch (h->kind) {
      case ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH:
        DecodeDispatch(
            *static_cast<const rocprofiler_buffer_tracing_kernel_dispatch_record_t*>(h->payload));
        break;
      case ROCPROFILER_BUFFER_TRACING_MEMORY_COPY:
        DecodeCopy(
            *static_cast<const rocprofiler_buffer_tracing_memory_copy_record_t*>(h->payload));
        break;
      case ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API:
        DecodeApi(*static_cast<const rocprofiler_buffer_tracing_hip_api_record_t*>(h->payload));
        break;
      case ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT:
        break;  // nothing to keep: ids are not reused within a trace
      default:
        ++trace_->drops.unknown_records;
        break;
    }
  }
}

void RocprofilerDecoder::DecodeDispatch(
    const rocprofiler_buffer_tracing_kernel_dispatch_record_t& r) {
  if (!Room()) return;
  const rocprofiler_kernel_dispatch_info_t& info = r.dispatch_info;
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.start_ns = ToTraceClock(r.start_timestamp);
  a.end_ns = ToTraceClock(r.end_timestamp);
  a.correlation_id = static_cast<uint32_t>(r.correlation_id.internal);
  a.device = DeviceOf(info.agent_id.handle);
  a.stream = static_cast<uint32_t>(info.queue_id.handle);  // the hardware queue
  const uint64_t k = info.kernel_id;
  a.kernel.name = k < kernel_names_.size() && kernel_names_[k] != kNoString ? kernel_names_[k]
                                                                            : unknown_kernel_;
  a.kernel.grid[0] = Blocks(info.grid_size.x, info.workgroup_size.x);
  a.kernel.grid[1] = Blocks(info.grid_size.y, info.workgroup_size.y);
  a.kernel.grid[2] = Blocks(info.grid_size.z, info.workgroup_size.z);
  a.kernel.block[0] = static_cast<int32_t>(info.workgroup_size.x);
  a.kernel.block[1] = static_cast<int32_t>(info.workgroup_size.y);
  a.kernel.block[2] = static_cast<int32_t>(info.workgroup_size.z);
  a.kernel.static_shared_bytes = info.group_segment_size;
  const uint64_t tag = r.correlation_id.external.value;
  if (tag >= ReconstructingStage::kMinTag) {
    a.graph_id = ReconstructingStage::kProvisionalGraphId;
    a.graph_node_id = tag;
  }
  trace_->gpu.push_back(a);
}

void RocprofilerDecoder::DecodeCopy(const rocprofiler_buffer_tracing_memory_copy_record_t& r) {
  if (!Room()) return;
  GpuActivity a{};
  a.kind = ActivityKind::kMemcpy;
  a.start_ns = ToTraceClock(r.start_timestamp);
  a.end_ns = ToTraceClock(r.end_timestamp);
  a.correlation_id = static_cast<uint32_t>(r.correlation_id.internal);
  a.copy.direction = DirectionOf(r.operation);
  a.copy.bytes = r.bytes;
  const bool to_host = a.copy.direction == CopyDirection::kDtoH;
  a.device = DeviceOf(to_host ? r.src_agent_id.handle : r.dst_agent_id.handle);
  a.copy.src_kind =
      a.copy.direction == CopyDirection::kDtoH || a.copy.direction == CopyDirection::kDtoD
          ? MemoryKind::kDevice
          : MemoryKind::kUnknown;
  a.copy.dst_kind =
      a.copy.direction == CopyDirection::kHtoD || a.copy.direction == CopyDirection::kDtoD
          ? MemoryKind::kDevice
          : MemoryKind::kUnknown;
  // Copies carry no queue (an SDMA copy is no packet): the stage judges a graph's copy with its
  // launch, whose dispatches' queues prove or withhold it whole.
  a.stream = 0;
  const uint64_t tag = r.correlation_id.external.value;
  if (tag >= ReconstructingStage::kMinTag) {
    a.graph_id = ReconstructingStage::kProvisionalGraphId;
    a.graph_node_id = tag;
  }
  trace_->gpu.push_back(a);
}

void RocprofilerDecoder::DecodeApi(const rocprofiler_buffer_tracing_hip_api_record_t& r) {
  if (!Room()) return;
  ApiCall c{};
  c.start_ns = ToTraceClock(r.start_timestamp);
  c.end_ns = ToTraceClock(r.end_timestamp);
  c.pid = pid_;
  c.tid = static_cast<uint32_t>(r.thread_id);
  c.correlation_id = static_cast<uint32_t>(r.correlation_id.internal);
  c.cbid = static_cast<uint32_t>(r.operation);
  c.name = r.operation >= 0 && static_cast<size_t>(r.operation) < kApiNames
               ? api_names_[static_cast<size_t>(r.operation)]
               : api_names_[kApiNames];
  c.domain = ApiDomain::kRuntime;
  trace_->api.push_back(c);
  // A pushed user range (nodescope's range listener): the API call ran inside it.
  const uint64_t external = r.correlation_id.external.value;
  if (external != 0 && external < ReconstructingStage::kMinTag) {
    trace_->external.push_back(
        ExternalCorrelation{external, c.correlation_id, ExternalKind::kUserRange});
  }
}

}  // namespace nodescope::rocprofiler
