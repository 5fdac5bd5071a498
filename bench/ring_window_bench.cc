// The ring window's cost on the decoding thread (issue 14): storing one vendor buffer's worth of
// records (8 MiB of CUPTI records, about 40 000 kernels) with and without TrimWindow after it,
// side by side. With the ring, released chunks are reused, so steady state allocates nothing.
#include <benchmark/benchmark.h>

#include <vector>

#include "backends/ring_window.h"

namespace nodescope {
namespace {

constexpr int kBatch = 40000;

std::vector<GpuActivity> Batch() {
  std::vector<GpuActivity> v(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    v[i].kind = ActivityKind::kKernel;
    v[i].start_ns = static_cast<uint64_t>(i);
    v[i].end_ns = v[i].start_ns + 1;
  }
  return v;
}

// Full mode: every batch kept (cleared every 250 batches, 10 M records, outside the timing).
void BM_StoreBatchFull(benchmark::State& state) {
  const std::vector<GpuActivity> batch = Batch();
  Trace t;
  int batches = 0;
  for (auto _ : state) {
    if (++batches == 250) {
      state.PauseTiming();
      t.gpu.clear();
      batches = 0;
      state.ResumeTiming();
    }
    for (const GpuActivity& a : batch) t.gpu.push_back(a);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_StoreBatchFull);

// Ring mode: the same batches into a window of 2 M records, trimmed after each.
void BM_StoreBatchRing(benchmark::State& state) {
  const std::vector<GpuActivity> batch = Batch();
  WindowPolicy policy;
  policy.max_records = 2'000'000;
  Trace t;
  for (auto _ : state) {
    for (const GpuActivity& a : batch) t.gpu.push_back(a);
    TrimWindow(policy, 0, &t);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["chunks_allocated"] = static_cast<double>(t.gpu.chunks_allocated());
}
BENCHMARK(BM_StoreBatchRing);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
