// Per-dispatch cost of graph attribution on the decoding thread: the common path (exec never
// changed), a trace where an exec was updated (epoch lookup), and a pass-through baseline.
#include <benchmark/benchmark.h>

#include <vector>

#include "attribution/native_attributor.h"
#include "attribution/reconstructing_attributor.h"

namespace nodescope {
namespace {

std::vector<GpuActivity> Replays(uint32_t graph_id, int replays, int nodes, uint32_t first_corr) {
  std::vector<GpuActivity> v;
  for (int r = 0; r < replays; ++r) {
    for (int n = 0; n < nodes; ++n) {
      GpuActivity a{};
      a.kind = ActivityKind::kKernel;
      a.graph_id = graph_id;
      a.graph_node_id = (uint64_t{graph_id} << 32) | static_cast<uint32_t>(n);
      a.kernel.name = static_cast<StringId>(100 + n);
      a.correlation_id = first_corr + static_cast<uint32_t>(r);
      v.push_back(a);
    }
  }
  return v;
}

void BM_PassThrough(benchmark::State& state) {
  std::vector<GpuActivity> records = Replays(1, 200, 32, 1);
  std::vector<GpuActivity> work = records;
  for (auto _ : state) {
    for (GpuActivity& a : work) benchmark::DoNotOptimize(a.graph_node_id);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_PassThrough);

void BM_AttributeUnchangedExec(benchmark::State& state) {
  std::vector<GpuActivity> records = Replays(1, 200, 32, 1);
  NativeIdAttributor engine;
  std::vector<GpuActivity> work = records;
  for (auto _ : state) {
    state.PauseTiming();
    work = records;
    state.ResumeTiming();
    for (GpuActivity& a : work) engine.Attribute(a);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_AttributeUnchangedExec);

void BM_AttributeAfterExecUpdate(benchmark::State& state) {
  // Two execs interleaved, one of which was updated half way: every record takes the epoch path.
  std::vector<GpuActivity> a = Replays(1, 100, 32, 1);
  std::vector<GpuActivity> b = Replays(2, 100, 32, 1000);
  a.insert(a.end(), b.begin(), b.end());
  NativeIdAttributor engine;
  engine.OnExecChanged(2, 1050);
  engine.Drain();
  std::vector<GpuActivity> work = a;
  for (auto _ : state) {
    state.PauseTiming();
    work = a;
    state.ResumeTiming();
    for (GpuActivity& r : work) engine.Attribute(r);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(a.size()));
}
BENCHMARK(BM_AttributeAfterExecUpdate);

// Reconstruction, launching thread: one launch of a 32-node exec = LaunchBegin, 32 OnDispatch
// (the SDK's per-packet callback), LaunchEnd. Items are dispatches.
void BM_ReconstructLaunchAndDispatch(benchmark::State& state) {
  ReconstructingAttributor engine;
  ReconstructingAttributor::ThreadState* t = engine.RegisterThread();
  engine.OnExecCreated(0x1000, 1);
  uint64_t sink = 0;
  for (auto _ : state) {
    engine.LaunchBegin(t, 0x1000, 0);
    for (int n = 0; n < 32; ++n) sink += engine.OnDispatch(t, 0);
    engine.LaunchEnd(t);
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * 32);
}
BENCHMARK(BM_ReconstructLaunchAndDispatch);

// Reconstruction, decoding thread: Resolve() over 200 replays x 32 nodes of tagged records.
void BM_ReconstructResolve(benchmark::State& state) {
  ReconstructingAttributor engine;
  ReconstructingAttributor::ThreadState* t = engine.RegisterThread();
  engine.OnExecCreated(0x1000, 1);
  std::vector<GpuActivity> records = Replays(1, 200, 32, 1);
  std::vector<uint64_t> tags;
  for (int r = 0; r < 200; ++r) {
    engine.LaunchBegin(t, 0x1000, 0);
    for (int n = 0; n < 32; ++n) tags.push_back(engine.OnDispatch(t, 0));
    engine.LaunchEnd(t);
  }
  std::vector<GpuActivity> work = records;
  for (auto _ : state) {
    state.PauseTiming();
    work = records;
    state.ResumeTiming();
    for (size_t i = 0; i < work.size(); ++i) engine.Resolve(work[i], tags[i]);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_ReconstructResolve);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
