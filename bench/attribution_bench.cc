// Per-dispatch cost of graph attribution on the decoding thread: the common path (exec never
// changed), execs updated in place, the reconstruction paths, and a pass-through baseline. The
// native-id engine is measured before (legacy_native_attributor.h) and after issue 11.
#include <benchmark/benchmark.h>

#include <vector>

#include "attribution/native_attributor.h"
#include "attribution/reconstructing_attributor.h"
#include "legacy_native_attributor.h"

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

// Native ids, before (legacy::, main at 8b83842) and after issue 11, in one binary. Items are
// dispatches; each iteration attributes a fresh copy of the same records.
template <typename Engine>
void AttributeAll(benchmark::State& state, Engine& engine,
                  const std::vector<GpuActivity>& records) {
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

// The common path: an exec never changed, 200 replays x 32 nodes.
template <typename Engine>
void BM_UnchangedExec(benchmark::State& state) {
  Engine engine;
  AttributeAll(state, engine, Replays(1, 200, 32, 1));
}
BENCHMARK(BM_UnchangedExec<legacy::NativeIdAttributor>);
BENCHMARK(BM_UnchangedExec<NativeIdAttributor>);

// Two execs interleaved, one of which was updated half way (the old engine's epoch path).
template <typename Engine>
void BM_AfterOneUpdate(benchmark::State& state) {
  std::vector<GpuActivity> a = Replays(1, 100, 32, 1);
  std::vector<GpuActivity> b = Replays(2, 100, 32, 1000);
  a.insert(a.end(), b.begin(), b.end());
  Engine engine;
  engine.OnExecChanged(2, 1050);
  engine.Drain();
  AttributeAll(state, engine, a);
}
BENCHMARK(BM_AfterOneUpdate<legacy::NativeIdAttributor>);
BENCHMARK(BM_AfterOneUpdate<NativeIdAttributor>);

// cudaGraphExecUpdate before every launch, the same 32 kernels: 200 updates, 200 replays.
template <typename Engine>
void BM_UpdateEveryStep(benchmark::State& state) {
  std::vector<GpuActivity> records;
  Engine engine;
  for (uint32_t step = 0; step < 200; ++step) {
    engine.OnExecChanged(1, 2 * step + 1);
    std::vector<GpuActivity> r = Replays(1, 1, 32, 2 * step + 2);
    records.insert(records.end(), r.begin(), r.end());
  }
  engine.Drain();
  AttributeAll(state, engine, records);
}
BENCHMARK(BM_UpdateEveryStep<legacy::NativeIdAttributor>);
BENCHMARK(BM_UpdateEveryStep<NativeIdAttributor>);

// The same, but node 31 runs another kernel every 10th step (new engine: a second node id).
template <typename Engine>
void BM_NodeSwapEveryTenthStep(benchmark::State& state) {
  std::vector<GpuActivity> records;
  Engine engine;
  for (uint32_t step = 0; step < 200; ++step) {
    engine.OnExecChanged(1, 2 * step + 1);
    std::vector<GpuActivity> r = Replays(1, 1, 32, 2 * step + 2);
    if (step % 10 == 9) r.back().kernel.name = 999;
    records.insert(records.end(), r.begin(), r.end());
  }
  engine.Drain();
  AttributeAll(state, engine, records);
}
BENCHMARK(BM_NodeSwapEveryTenthStep<legacy::NativeIdAttributor>);
BENCHMARK(BM_NodeSwapEveryTenthStep<NativeIdAttributor>);

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
