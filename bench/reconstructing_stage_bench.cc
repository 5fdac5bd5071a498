// Per-dispatch cost of reconstructed attribution (issue 12, the AMD backend) as the backend pays
// it, through ReconstructingStage: on the launching thread (LaunchBegin + one OnDispatch per
// packet + LaunchEnd, with the peer scan the hazard rule adds), and on the decoding thread
// (Process: the queue pass and Resolve over provisional keys). Items are dispatches.
#include <benchmark/benchmark.h>

#include <thread>
#include <vector>

#include "attribution/reconstructing_attributor.h"
#include "attribution/stage.h"

namespace nodescope {
namespace {

constexpr int kNodes = 32;
constexpr int kReplays = 200;

// Launching thread. state.range(0): other threads registered (their launch state is scanned at
// every launch begin and end; none is inside a launch).
void BM_StageLaunchAndDispatch(benchmark::State& state) {
  auto stage = MakeReconstructingStage(true);
  stage->ExecInstantiated(0x1000, 1);
  std::vector<std::thread> others;
  for (int i = 0; i < state.range(0); ++i) {
    others.emplace_back([&stage] {
      stage->ExecInstantiated(0x2000, 2);
      stage->LaunchBegin(0x2000, 0x60, 0);  // registers this thread; ends at once
      stage->LaunchEnd();
    });
  }
  for (auto& t : others) t.join();
  uint64_t sink = 0;
  for (auto _ : state) {
    stage->LaunchBegin(0x1000, 0x50, 0);
    for (int n = 0; n < kNodes; ++n) sink += stage->OnDispatch(0);
    stage->LaunchEnd();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_StageLaunchAndDispatch)->Arg(0)->Arg(15);

GpuActivity Provisional(int node, uint64_t tag, uint32_t queue) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.kernel.name = static_cast<StringId>(100 + node);
  a.graph_id = ReconstructingStage::kProvisionalGraphId;
  a.graph_node_id = tag;
  a.stream = queue;
  return a;
}

// Decoding thread, one thread launching (no peers): Process over 200 replays x 32 nodes.
void BM_StageProcess(benchmark::State& state) {
  auto stage = MakeReconstructingStage(true);
  stage->ExecInstantiated(0x1000, 1);
  std::vector<GpuActivity> records;
  for (int r = 0; r < kReplays; ++r) {
    stage->LaunchBegin(0x1000, 0x50, 0);
    for (int n = 0; n < kNodes; ++n) records.push_back(Provisional(n, stage->OnDispatch(0), 1));
    stage->LaunchEnd();
  }
  ChunkedVector<GpuActivity> gpu;
  for (auto _ : state) {
    state.PauseTiming();
    gpu = ChunkedVector<GpuActivity>();
    for (const GpuActivity& a : records) gpu.push_back(a);
    state.ResumeTiming();
    stage->Process(gpu, 0);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_StageProcess);

// Decoding thread, two threads whose launches all overlap, on streams of different queues: every
// launch has a peer and is proven by the queues (judged once per launch, then cached).
void BM_ResolveOverlappedProven(benchmark::State& state) {
  ReconstructingAttributor engine;
  ReconstructingAttributor::ThreadState* t1 = engine.RegisterThread();
  ReconstructingAttributor::ThreadState* t2 = engine.RegisterThread();
  engine.OnExecCreated(0x1000, 1);
  engine.OnExecCreated(0x2000, 2);
  std::vector<GpuActivity> records;
  std::vector<uint64_t> tags;
  for (int r = 0; r < kReplays / 2; ++r) {
    engine.LaunchBegin(t1, 0x1000, 0, 0x50);
    engine.LaunchBegin(t2, 0x2000, 0, 0x60);
    for (int n = 0; n < kNodes; ++n) {
      tags.push_back(engine.OnDispatch(t1, 0));
      records.push_back(Provisional(n, tags.back(), 1));
      tags.push_back(engine.OnDispatch(t2, 0));
      records.push_back(Provisional(kNodes + n, tags.back(), 2));
    }
    engine.LaunchEnd(t1);
    engine.LaunchEnd(t2);
  }
  for (size_t i = 0; i < records.size(); ++i) engine.ObserveQueue(tags[i], records[i].stream);
  std::vector<GpuActivity> work;
  for (auto _ : state) {
    state.PauseTiming();
    work = records;
    state.ResumeTiming();
    for (size_t i = 0; i < work.size(); ++i) engine.Resolve(work[i], tags[i], work[i].stream);
    benchmark::ClobberMemory();
  }
  if (engine.overlapped_launches_withheld() != 0) state.SkipWithError("a launch was withheld");
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(records.size()));
}
BENCHMARK(BM_ResolveOverlappedProven);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
