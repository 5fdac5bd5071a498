// Decodes CUPTI activity records into neutral records. No allocation per record, no locks, no
// attribution (the records keep CUPTI's keys; attribution/stage.h is the next stage).
#pragma once

#include <cupti.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "backends/correlation_set.h"
#include "backends/cuda/conditional_bodies.h"
#include "model/trace.h"

namespace nodescope::cupti {

// Resolves a (domain, cbid) to the API's name, e.g. "cudaGraphLaunch". Injected so tests can
// decode without libcupti; production passes one backed by cuptiGetCallbackName.
using ApiNameFn = const char* (*)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// Strips CUPTI's version suffix: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel".
std::string_view StripApiVersionSuffix(std::string_view name);

class CuptiDecoder {
 public:
  // `trace` must outlive the decoder. The caller serialises calls (one decoding thread at a time).
  // Records keep CUPTI's own graph keys: attribution is the next stage (attribution/stage.h).
  CuptiDecoder(Trace* trace, uint64_t max_events, ApiNameFn api_name);

  // Decodes one record. Returns false for kinds we do not keep (counted in unknown_records).
  bool Decode(const CUpti_Activity* record);
  // Walks a completed CUPTI buffer (cuptiActivityGetNextRecord) and decodes every record.
  void DecodeBuffer(uint8_t* buffer, size_t valid_bytes);

  uint64_t decoded() const { return decoded_; }

  // Sampled tracing (backends/launch_sampler.h): only records whose correlation id is in `set`
  // (the picked launches') are kept; the rest are counted in discarded(). Null: keep everything.
  // With `proofs` (non-null), conditional bodies' correlation-0 records are kept with their
  // launch where the records prove which one it was (conditional_bodies.h), else withheld.
  void KeepOnly(const CorrelationSet* set, const ExecIdBits* proofs = nullptr) {
    keep_ = set;
    if (set != nullptr && proofs != nullptr) bodies_.emplace(proofs);
  }
  uint64_t discarded() const { return discarded_; }
  // Device-launched graphs (cudaGraphInstantiateFlagDeviceLaunch): on Hopper with CUDA 13.0
  // CUPTI gives none of their per-node records; a CUPTI that does marks them isDeviceLaunched
  // (kept in GpuActivity::device_launched), and gives a DEVICE_GRAPH_TRACE record per execution
  // when CUPTI_ACTIVITY_KIND_GRAPH_TRACE is on. Counted here, whatever sampling decides.
  struct DeviceGraphCounts {
    uint64_t device_launched_records = 0;  // kernels, copies, fills with isDeviceLaunched
    uint64_t device_graph_traces = 0;      // CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE records
    // By CUpti_DeviceGraphLaunchMode: 0 invalid/unknown, 1 fire-and-forget, 2 tail, 3 sibling.
    std::array<uint64_t, 4> device_graph_traces_by_mode{};
    uint64_t device_graph_trace_ns = 0;  // their end - start, summed
  };
  const DeviceGraphCounts& device_graph_counts() const { return device_graphs_; }

  // Stop, after the last buffer: decides the bodies still waiting (conditional_bodies.h).
  void SettleBodies();
  // Sampled mode's body counts; null when bodies are not followed.
  const ConditionalBodies* bodies() const { return bodies_ ? &*bodies_ : nullptr; }

 private:
  bool Room();
  void Keep(const GpuActivity& a) { trace_->gpu.push_back(a); }
  void DecodeKernel(const CUpti_ActivityKernel10& k);
  template <typename CopyRecord>
  void DecodeCopy(const CopyRecord& m);
  void DecodeMemset(const CUpti_ActivityMemset4& m);
  void DecodeApi(const CUpti_ActivityAPI& a, ApiDomain domain);
  void DecodeDeviceGraphTrace(const CUpti_ActivityDeviceGraphTrace& g);
  void NoteDeviceLaunched(GpuActivity* a, uint8_t is_device_launched);
  StringId ApiName(ApiDomain domain, CUpti_CallbackId cbid);

  bool Discarded(uint32_t correlation) {
    if (keep_ == nullptr || keep_->Contains(correlation)) return false;
    ++discarded_;
    return true;
  }
  // A kernel, copy or fill: Admit() before its details are read (false: not kept), Emit() after.
  // A conditional body (correlation 0, a graph's) is admitted, then kept, held or not by Emit.
  bool Admit(const GpuActivity& a);
  void Emit(GpuActivity* a);
  void Decided(const GpuActivity& a, bool keep);

  Trace* trace_;
  const CorrelationSet* keep_ = nullptr;
  std::optional<ConditionalBodies> bodies_;
  uint64_t discarded_ = 0;
  DeviceGraphCounts device_graphs_;
  uint64_t max_events_;
  ApiNameFn api_name_;
  uint64_t decoded_ = 0;
  // cbid -> interned name, per domain; filled on first sight of a cbid (no allocation after).
  static constexpr size_t kMaxCbid = 2048;
  std::array<std::array<StringId, kMaxCbid>, 2> api_names_{};
};

}  // namespace nodescope::cupti
