// The attribution stage's batch pass against attributing each record while it is stored (what
// the CUPTI decoder did before the stage existed): the cost of keeping decoding and attribution
// apart, per record, on the decoding thread.
#include <benchmark/benchmark.h>

#include <vector>

#include "attribution/capture_scopes.h"
#include "attribution/native_attributor.h"
#include "attribution/stage.h"

namespace nodescope {
namespace {

// One vendor buffer's worth of graph kernels: 8 MiB of CUPTI records is about 40 000 kernels.
constexpr int kReplays = 1250;
constexpr int kNodes = 32;

std::vector<GpuActivity> Records() {
  std::vector<GpuActivity> v;
  for (int r = 0; r < kReplays; ++r) {
    for (int n = 0; n < kNodes; ++n) {
      GpuActivity a{};
      a.kind = ActivityKind::kKernel;
      a.graph_id = 1;
      a.graph_node_id = (uint64_t{1} << 32) | static_cast<uint32_t>(n);
      a.kernel.name = static_cast<StringId>(100 + n);
      a.correlation_id = 1 + static_cast<uint32_t>(r);
      v.push_back(a);
    }
  }
  return v;
}

// Before: capture scope, attribution and store, record by record.
void BM_AttributeWhileStoring(benchmark::State& state) {
  const std::vector<GpuActivity> records = Records();
  CaptureScopeTable scopes;
  NativeIdAttributor attributor;
  ChunkedVector<GpuActivity> gpu;
  for (auto _ : state) {
    state.PauseTiming();
    gpu.clear();
    state.ResumeTiming();
    scopes.Drain();
    attributor.Drain();
    for (GpuActivity a : records) {
      a.capture_range_id = scopes.Lookup(a.graph_node_id, a.correlation_id);
      attributor.Attribute(a);
      gpu.push_back(a);
    }
    benchmark::DoNotOptimize(gpu[gpu.size() - 1]);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_AttributeWhileStoring);

// After: the decoder stores, then the stage keys the batch in place.
void BM_StoreThenStage(benchmark::State& state) {
  const std::vector<GpuActivity> records = Records();
  auto stage = MakeNativeIdStage(true);
  ChunkedVector<GpuActivity> gpu;
  for (auto _ : state) {
    state.PauseTiming();
    gpu.clear();
    state.ResumeTiming();
    for (const GpuActivity& a : records) gpu.push_back(a);
    stage->Process(gpu, 0);
    benchmark::DoNotOptimize(gpu[gpu.size() - 1]);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_StoreThenStage);

// The floor: storing alone.
void BM_StoreOnly(benchmark::State& state) {
  const std::vector<GpuActivity> records = Records();
  ChunkedVector<GpuActivity> gpu;
  for (auto _ : state) {
    state.PauseTiming();
    gpu.clear();
    state.ResumeTiming();
    for (const GpuActivity& a : records) gpu.push_back(a);
    benchmark::DoNotOptimize(gpu[gpu.size() - 1]);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_StoreOnly);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
