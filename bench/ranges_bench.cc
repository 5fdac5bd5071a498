// Cost of recording a user range on the CPU: one push + pop, disarmed (no session), armed, and
// armed with a backend listener (what CUPTI's external-correlation push/pop adds is measured on
// the GPU machine, bench/overhead.py --ranges). Full log against ring mode (issue 14), side by
// side: the same push + pop with a short and a 64-character name, and the log memory each one
// mapped. Thread churn: the memory 10 000 short-lived threads leave behind.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

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

// A push + pop armed, in the full log (ring_slots 0) or in a ring of ring_slots per thread.
void PushPopMode(benchmark::State& state, uint32_t ring_slots) {
  RangeRecorder& r = RangeRecorder::Get();
  const std::string name = state.range(0) == 12 ? "layer.0/attn" : std::string(64, 'n');
  r.Arm();
  r.SetListener(nullptr);
  r.SetRingSlots(ring_slots);
  const uint64_t mapped_before = RangeRecorder::MappedBytes();
  const uint64_t dropped_before = r.counter_values().dropped;
  for (auto _ : state) {
    r.Push(name);
    r.Pop();
  }
  state.counters["log_MiB"] =
      static_cast<double>(RangeRecorder::MappedBytes() - mapped_before) / (1 << 20);
  // The full log holds 16 M ranges per thread: past that, ranges are dropped (and cost less).
  state.counters["dropped"] = static_cast<double>(r.counter_values().dropped - dropped_before);
  r.SetRingSlots(0);
  r.Disarm();
  state.SetItemsProcessed(state.iterations());
}
void BM_PushPopFullLog(benchmark::State& state) { PushPopMode(state, 0); }
void BM_PushPopRing(benchmark::State& state) { PushPopMode(state, RangeRecorder::kMaxRingSlots); }
BENCHMARK(BM_PushPopFullLog)->Arg(12)->Arg(64)->Iterations(1'000'000);
BENCHMARK(BM_PushPopRing)->Arg(12)->Arg(64)->Iterations(1'000'000);

// Thread churn (issue 14): state.range(0) short-lived threads, one after another, each recording
// 10 ranges; the range-log memory mapped and the process's RSS growth over all of them.
long RssKb() {
  long pages = 0;
  long resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}
void ThreadChurn(benchmark::State& state, uint32_t ring_slots) {
  RangeRecorder& r = RangeRecorder::Get();
  r.Arm();
  r.SetListener(nullptr);
  r.SetRingSlots(ring_slots);
  const uint64_t mapped_before = RangeRecorder::MappedBytes();
  const long rss_before = RssKb();
  for (auto _ : state) {
    for (int64_t i = 0; i < state.range(0); ++i) {
      std::thread([&] {
        for (int n = 0; n < 10; ++n) {
          r.Push("request");
          r.Pop();
        }
      }).join();
    }
  }
  state.counters["log_MiB"] =
      static_cast<double>(RangeRecorder::MappedBytes() - mapped_before) / (1 << 20);
  state.counters["rss_MiB"] = static_cast<double>(RssKb() - rss_before) / 1024;
  r.SetRingSlots(0);
  r.Disarm();
}
void BM_ThreadChurnFullLog(benchmark::State& state) { ThreadChurn(state, 0); }
void BM_ThreadChurnRing(benchmark::State& state) { ThreadChurn(state, 1024); }
BENCHMARK(BM_ThreadChurnFullLog)->Arg(10000)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreadChurnRing)->Arg(10000)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_ClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(NowNs());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClockRead);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
