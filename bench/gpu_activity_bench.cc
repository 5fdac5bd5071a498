// GPU activity rows/s of CollectGpuActivities (the Python package's kernels(): every activity
// into columns) against the plain key check (CheckTraceFile, `nodescope check`) of the same file,
// the baseline read: one trace file of 1.5 M kernels (about 290 MB) written to $TMPDIR once.
// Blocks of 1 MiB and more are mapped and unmapped each time (a fixed M_MMAP_THRESHOLD), so that
// every iteration faults its columns in afresh, as the one kernels() call of a Python process
// does (glibc would otherwise reuse the first iteration's freed pages).
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/stats/gpu_activity.h"

namespace nodescope::analysis {
namespace {

constexpr int kReplays = 25000;
constexpr int kNodes = 60;

// One graph of kNodes kernels replayed kReplays times, in the schema of bench/make_nodes_trace.py.
const std::string& TraceFile() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir != nullptr ? dir : "/tmp") + "/nodescope_gpu_activity_bench_" +
                    std::to_string(getpid()) + ".json";
    FILE* f = std::fopen(p.c_str(), "w");
    if (f == nullptr) std::abort();
    std::fputs("{\"schemaVersion\":1,\"traceEvents\":[\n", f);
    double ts = 1000;
    for (int r = 0; r < kReplays; ++r) {
      const int corr = 100 + r;
      std::fprintf(f,
                   "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\","
                   "\"pid\":1000,\"tid\":1000,\"ts\":%.3f,\"dur\":4.000,"
                   "\"args\":{\"correlation\":%d}},\n",
                   ts - 5, corr);
      for (int n = 0; n < kNodes; ++n) {
        const double dur = 2.0 + n % 7;
        std::fprintf(f,
                     "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kernel_%d_g0\",\"pid\":0,"
                     "\"tid\":7,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"device\":0,\"stream\":7,"
                     "\"correlation\":%d,\"graph id\":2,\"graph node id\":%lld}},\n",
                     n, ts, dur, corr, (2LL << 32) + n);
        ts += dur + 1;
      }
    }
    std::fputs(
        "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1000,\"tid\":1000,\"ts\":0,\"s\":\"t\"}\n]}\n", f);
    std::fclose(f);
    std::atexit([] { std::remove(TraceFile().c_str()); });
    return p;
  }();
  return path;
}

void BM_CollectGpuActivities(benchmark::State& state) {
  const std::string& path = TraceFile();
  size_t rows = 0;
  for (auto _ : state) {
    StatusOr<GpuActivityTable> t = CollectGpuActivities(path);
    if (!t.ok()) state.SkipWithError(t.status().ToString().c_str());
    rows = t.ok() ? t->size() : 0;
    benchmark::DoNotOptimize(rows);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows));
}
BENCHMARK(BM_CollectGpuActivities)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_CheckTraceFile(benchmark::State& state) {
  const std::string& path = TraceFile();
  uint64_t events = 0;
  for (auto _ : state) {
    StatusOr<AliasReport> r = CheckTraceFile(path);
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    events = r.ok() ? r->gpu_events : 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
}
BENCHMARK(BM_CheckTraceFile)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodescope::analysis

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
