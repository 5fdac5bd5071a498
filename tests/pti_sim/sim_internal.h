// Inside the simulated PTI: what its runtime half (sim_runtime.cc) asks of its PTI half
// (sim_view.cc, sim_buffers.cc). Not used by tools or programs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/xpu/sdk/pti_sdk.h"

namespace ptisim {

uint64_t RawNs();                    // CLOCK_MONOTONIC_RAW, the clock PTI takes times in
uint64_t ToUserClock(uint64_t raw);  // into the timestamp callback's clock (CLOCK_REALTIME default)
uint32_t Tid();                      // gettid(), as PTI reports it
uint32_t NextCorrelationId();        // process-wide, from 1 (PTI's UniCorrId)
uint64_t NextKernelId();             // process-wide, from 1 (PTI's UniKernelId)
bool ViewEnabled(pti_view_kind kind);
bool V2Layout();                        // by the version ptiVersion() reports (SIM_PTI_VERSION)
size_t RecordSize(pti_view_kind kind);  // in the current layout; 0 for a kind PTI has no record of

// One record into the buffer of thread `tid` (requested through the tool's callback when it has
// none; handed to the delivery thread when less than the largest record is left).
void Insert(const void* record, size_t bytes, uint32_t tid);

// An API record of the calling thread (runtime API: SYCL group; driver API: Level Zero group),
// preceded by one external correlation record per kind pushed on this thread, when enabled.
void EmitApi(pti_view_kind view, uint32_t api_id, uint32_t correlation_id, uint64_t start_raw,
             uint64_t end_raw);

// Counters for simsycl::GetTruth().
void CountGpuRecord();
void CountApiRecord();
void CountExternalRecord();
void CountDropped();
uint64_t GpuRecords();
uint64_t ApiRecords();
uint64_t ExternalRecords();
uint64_t Dropped();

}  // namespace ptisim
