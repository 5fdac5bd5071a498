// Records/s of BuildDeviceSpans over 1M kernels under 3-deep user ranges (runtime and
// capture-time), against a pass over the same records that only touches each one.
#include <benchmark/benchmark.h>

#include <string>

#include "attribution/annotations.h"

namespace nodescope {
namespace {

constexpr uint32_t kKernels = 1 << 20;
constexpr uint64_t kBase = 1700000000000000000ull;

UserRange Range(uint64_t id, uint64_t parent, StringId name) {
  UserRange r{};
  r.id = id;
  r.parent_id = parent;
  r.name = name;
  r.pid = 1;
  r.tid = 2;
  r.end_tid = 2;
  return r;
}

GpuActivity Kernel(uint32_t i, uint32_t correlation, uint32_t stream) {
  GpuActivity k{};
  k.kind = ActivityKind::kKernel;
  k.start_ns = kBase + uint64_t{i} * 2000;
  k.end_ns = k.start_ns + 1500;
  k.correlation_id = correlation;
  k.stream = stream;
  return k;
}

// Eager mode: step > layer > op, 8 kernels per op (one launch each), 32 ops per layer, 64 layers
// per step: 1M kernels, 1M external records, about 135k ranges. Ops alternate between two streams;
// with `interleave`, every kernel does (the worst case for runs of one range on one stream).
Trace RuntimeTrace(bool interleave) {
  Trace t;
  const StringId step = t.strings.Intern("step"), layer = t.strings.Intern("layer"),
                 op = t.strings.Intern("aten::op");
  uint64_t next_id = 1, step_id = 0, layer_id = 0, op_id = 0;
  for (uint32_t i = 0; i < kKernels; ++i) {
    if (i % (8 * 32 * 64) == 0) t.ranges.push_back(Range(step_id = next_id++, 0, step));
    if (i % (8 * 32) == 0) t.ranges.push_back(Range(layer_id = next_id++, step_id, layer));
    if (i % 8 == 0) t.ranges.push_back(Range(op_id = next_id++, layer_id, op));
    const uint32_t correlation = i + 1;
    t.external.push_back(ExternalCorrelation{op_id, correlation, ExternalKind::kUserRange});
    const uint32_t lane = interleave ? i : i / 8;
    t.gpu.push_back(Kernel(i, correlation, 7 + lane % 2));
  }
  return t;
}

// Graphs: a 16-node graph captured under layer > block > op (4 ops of 4 nodes, 2 blocks),
// replayed 64k times (1M kernels); a runtime "step" range around every 100 launches.
Trace CaptureTrace() {
  Trace t;
  const StringId layer = t.strings.Intern("layer"), block = t.strings.Intern("block"),
                 op = t.strings.Intern("op"), step = t.strings.Intern("step");
  t.ranges.push_back(Range(1, 0, layer));
  for (uint64_t b = 0; b < 2; ++b) t.ranges.push_back(Range(2 + b, 1, block));
  for (uint64_t o = 0; o < 4; ++o) t.ranges.push_back(Range(4 + o, 2 + o / 2, op));
  uint64_t next_id = 8;
  const uint32_t replays = kKernels / 16;
  for (uint32_t r = 0; r < replays; ++r) {
    if (r % 100 == 0) t.ranges.push_back(Range(next_id++, 0, step));
    const uint32_t correlation = r + 1;
    t.external.push_back(ExternalCorrelation{next_id - 1, correlation, ExternalKind::kUserRange});
    for (uint32_t n = 0; n < 16; ++n) {
      GpuActivity k = Kernel(r * 16 + n, correlation, 7);
      k.graph_id = 3;
      k.graph_node_id = (uint64_t{3} << 32) | n;
      k.capture_range_id = 4 + n / 4;
      t.gpu.push_back(k);
    }
  }
  return t;
}

void Run(benchmark::State& state, Trace& t) {
  for (auto _ : state) {
    BuildDeviceSpans(t);
    benchmark::DoNotOptimize(t.device_spans.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(t.gpu.size()));
  state.counters["spans"] = static_cast<double>(t.device_spans.size());
}

// The floor: one pass that reads each record's links.
void BM_TouchEachRecord(benchmark::State& state) {
  Trace t = RuntimeTrace(false);
  for (auto _ : state) {
    uint64_t sum = 0;
    t.gpu.ForEach([&](const GpuActivity& a) { sum += a.correlation_id + a.capture_range_id; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(t.gpu.size()));
}
BENCHMARK(BM_TouchEachRecord)->Unit(benchmark::kMillisecond);

void BM_NoRanges(benchmark::State& state) {
  Trace t = RuntimeTrace(false);
  t.ranges.clear();
  t.external.clear();
  Run(state, t);
}
BENCHMARK(BM_NoRanges)->Unit(benchmark::kMillisecond);

void BM_RuntimeRanges3Deep(benchmark::State& state) {
  Trace t = RuntimeTrace(false);
  Run(state, t);
}
BENCHMARK(BM_RuntimeRanges3Deep)->Unit(benchmark::kMillisecond);

void BM_RuntimeRanges3DeepStreamPerKernel(benchmark::State& state) {
  Trace t = RuntimeTrace(true);
  Run(state, t);
}
BENCHMARK(BM_RuntimeRanges3DeepStreamPerKernel)->Unit(benchmark::kMillisecond);

void BM_CaptureRanges3DeepReplayed(benchmark::State& state) {
  Trace t = CaptureTrace();
  Run(state, t);
}
BENCHMARK(BM_CaptureRanges3DeepReplayed)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
