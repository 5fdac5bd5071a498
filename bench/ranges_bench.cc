// Cost of recording a user range on the CPU: one push + pop, disarmed (no session), armed, and
// armed with a backend listener (what CUPTI's external-correlation push/pop adds is measured on
// the GPU machine, bench/overhead.py --ranges).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "base/clock.h"
#include "ranges/range_recorder.h"

namespace nodescope {
namespace {

uint64_t g_sink = 0;
void NoteId(uint64_t id) { g_sink += id; }

void BM_PushPopDisarmed(benchmark::State& state) {
  RangeRecorder& r = RangeRecorder::Get();
  r.Disarm();
  r.SetListener(nullptr);
  for (auto _ : state) {
    r.Push("layer.0/attn");
    r.Pop();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PushPopDisarmed);

void BM_PushPopArmed(benchmark::State& state) {
  RangeRecorder& r = RangeRecorder::Get();
  r.Arm();
  r.SetListener(nullptr);
  for (auto _ : state) {
    r.Push("layer.0/attn");
    r.Pop();
  }
  r.Disarm();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PushPopArmed)->Iterations(1'000'000);

void BM_PushPopArmedWithListener(benchmark::State& state) {
  RangeRecorder& r = RangeRecorder::Get();
  static const RangeRecorder::Listener kListener{&NoteId, &NoteId};
  r.Arm();
  r.SetListener(&kListener);
  for (auto _ : state) {
    r.Push("layer.0/attn");
    r.Pop();
  }
  r.Disarm();
  r.SetListener(nullptr);
  benchmark::DoNotOptimize(g_sink);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PushPopArmedWithListener)->Iterations(1'000'000);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(NowNs());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClockRead);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
