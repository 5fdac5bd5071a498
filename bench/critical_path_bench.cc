// `nodes`' per-node statistics with and without the critical path (issue 30, item 2): one graph,
// a 2000-node chain replayed 10^4 times, held as `nodes` holds it by default (a sample of 1 in 8
// replays past its 4 Mi occurrence slots) and whole. Side by side in one run.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/stats/critical_path.h"
#include "analysis/stats/node_stats.h"

namespace nodescope::analysis {
namespace {

constexpr uint64_t kGraph = 3;
constexpr uint64_t kNodes = 2000;
constexpr uint64_t kReplays = 10000;

// Every `held_every`-th replay's occurrences held (as CollectNodeSeries samples), the running
// figures over all of them. Durations 1 to 2 us, launch gaps 0.5 us.
GraphNodes MakeTrace(uint64_t held_every, bool with_dag) {
  GraphNodes trace;
  trace.strings = std::make_shared<NamePool>(size_t{1} << 20);
  trace.nodes.resize(kNodes);
  for (uint64_t i = 0; i < kNodes; ++i) {
    NodeSeries& s = trace.nodes[i];
    s.graph_id = kGraph;
    s.node_id = kGraph << 32 | i;
    s.occurrences.reserve(kReplays / held_every + 1);
    s.sample_level = held_every > 1 ? 3 : 0;
  }
  uint64_t state = 88172645463325252ull;
  for (uint64_t r = 0; r < kReplays; ++r) {
    double t = static_cast<double>(r) * 1e4;
    for (uint64_t i = 0; i < kNodes; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      const double dur = 1 + static_cast<double>(state % 1000) / 1000;
      NodeSeries& s = trace.nodes[i];
      s.durations.Add(dur);
      if (r % held_every == 0) {
        s.occurrences.push_back({t, dur, static_cast<int64_t>(r + 1)});
      }
      t += dur + 0.5;
    }
  }
  if (with_dag) {
    GraphDag dag;
    dag.graph_id = kGraph;
    for (uint64_t i = 0; i < kNodes; ++i) {
      dag.nodes.push_back({kGraph << 32 | i, DagNodeType::kKernel, 0});
      if (i > 0)
        dag.edges.push_back({kGraph << 32 | (i - 1), kGraph << 32 | i, DagEdgeType::kFull});
    }
    trace.dags.push_back(std::move(dag));
  }
  return trace;
}

// range(0): one replay held in this many (8: what `nodes` holds of this graph by default).
void BM_NodeStats(benchmark::State& state) {
  const GraphNodes trace = MakeTrace(static_cast<uint64_t>(state.range(0)), false);
  for (auto _ : state) benchmark::DoNotOptimize(ComputeNodeStats(trace));
  state.counters["replays_held"] = static_cast<double>(trace.nodes[0].occurrences.size());
}
BENCHMARK(BM_NodeStats)->Arg(8)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_NodeStatsWithCriticalPath(benchmark::State& state) {
  const GraphNodes trace = MakeTrace(static_cast<uint64_t>(state.range(0)), true);
  for (auto _ : state) benchmark::DoNotOptimize(ComputeNodeStats(trace));
  state.counters["replays_held"] = static_cast<double>(trace.nodes[0].occurrences.size());
}
BENCHMARK(BM_NodeStatsWithCriticalPath)->Arg(8)->Arg(1)->Unit(benchmark::kMillisecond);

// The critical path alone.
void BM_CriticalPath(benchmark::State& state) {
  const GraphNodes trace = MakeTrace(static_cast<uint64_t>(state.range(0)), true);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ComputeCriticalPath(trace.dags[0], trace.nodes));
  }
  state.counters["replays_held"] = static_cast<double>(trace.nodes[0].occurrences.size());
}
BENCHMARK(BM_CriticalPath)->Arg(8)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodescope::analysis

BENCHMARK_MAIN();
