// rocprofiler-sdk buffer records -> neutral records (model/records.h). The decoder never
// attributes: a dispatch's external correlation id at or above ReconstructingStage::kMinTag is
// the per-thread recipe's tag, stored as the record's provisional key for the stage to verify.
// One decoding thread at a time (the SDK's buffer thread, or a flush), under the tracer's lock;
// no allocation or lock per record (kernel names are taken in once per batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/rocm/sdk/rocprofiler_sdk.h"
#include "model/trace.h"

namespace nodescope::rocprofiler {

class RocprofilerDecoder {
 public:
  // `boot_to_realtime_ns`: added to every SDK timestamp (CLOCK_BOOTTIME) to give the trace clock
  // (CLOCK_REALTIME, base/clock.h).
  RocprofilerDecoder(Trace* trace, uint64_t max_events, int64_t boot_to_realtime_ns);

  // Any thread (code-object callbacks): a kernel symbol, taken in by the next batch.
  void AddKernelSymbol(uint64_t kernel_id, const char* name);
  // Before decoding: an agent's device index (GPU agents; others are device 0).
  void SetAgentDevice(uint64_t agent_handle, uint32_t device);

  void Decode(rocprofiler_record_header_t** headers, size_t count);

  uint64_t ToTraceClock(uint64_t sdk_ns) const {
    return static_cast<uint64_t>(static_cast<int64_t>(sdk_ns) + boot_to_realtime_ns_);
  }

 private:
  void TakeSymbols();  // once per batch
  bool Room();
  uint32_t DeviceOf(uint64_t agent) const;
  void DecodeDispatch(const rocprofiler_buffer_tracing_kernel_dispatch_record_t& r);
  void DecodeCopy(const rocprofiler_buffer_tracing_memory_copy_record_t& r);
  void DecodeApi(const rocprofiler_buffer_tracing_hip_api_record_t& r);

  Trace* trace_;
  const uint64_t max_events_;
  const int64_t boot_to_realtime_ns_;
  uint32_t pid_;
  std::vector<StringId> kernel_names_;  // by kernel id
  std::vector<std::pair<uint64_t, uint32_t>> agents_;
  StringId unknown_kernel_;
  std::vector<StringId> api_names_;  // by HIP runtime API operation id

  std::mutex symbols_mu_;  // guards pending_ and has_pending_
  std::vector<std::pair<uint64_t, std::string>> pending_;
  bool has_pending_ = false;
};

// The name of a HIP runtime API operation this backend knows ("hipGraphLaunch"), else null.
const char* HipApiName(int32_t operation);

}  // namespace nodescope::rocprofiler
