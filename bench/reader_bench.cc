// Bytes/s and events/s of the streaming trace reader on a writer-made trace, against simdjson DOM.
#include <benchmark/benchmark.h>
#include <simdjson.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/reader/trace_window.h"
#include "export/chrome_trace_writer.h"

namespace nodescope {
namespace {

constexpr uint32_t kLaunches = 40000;
constexpr uint32_t kNodesPerGraph = 12;  // 10 kernels, one copy, one fill per graph
constexpr uint64_t kBase = 1700000000000000000ull;

// A training-step-like trace: 40k cudaGraphLaunch calls of a 12-node graph (kernels with all of
// kineto's args, a copy and a fill), plus one cudaLaunchKernel and one cudaMemcpyAsync outside
// graphs per launch, each GPU record with its ac2g flow pair.
Trace MakeTrace() {
  Trace t;
  t.pid = 4242;
  t.process_name = "python3 train.py";
  DeviceProperties d;
  d.name = "NVIDIA H200";
  d.num_sms = 132;
  d.warp_size = 32;
  t.devices.push_back(d);
  t.thread_names.emplace_back(4243, "main");
  t.drops.vendor_dropped = 3;
  t.attribution.mode = "native";
  t.attribution.withheld.emplace_back("exec_changed", 0);
  const StringId graph_launch = t.strings.Intern("cudaGraphLaunch");
  const StringId launch_kernel = t.strings.Intern("cudaLaunchKernel");
  const StringId memcpy_async = t.strings.Intern("cudaMemcpyAsync");
  std::vector<StringId> names;
  for (uint32_t n = 0; n < kNodesPerGraph; ++n) {
    names.push_back(t.strings.Intern("_ZN7cutlass6KernelINS_4gemm6kernel4GemmILi" +
                                     std::to_string(n) + "ELi128ELi64EEEEEvNT_6ParamsE"));
  }
  const StringId eager = t.strings.Intern("_Z20elementwise_kernelILi128ELi4EEviT_");
  uint64_t now = kBase;
  uint32_t correlation = 0;
  auto api = [&](StringId name, uint32_t cbid, uint64_t start) {
    ApiCall c{};
    c.start_ns = start;
    c.end_ns = start + 2345;
    c.pid = 4242;
    c.tid = 4243;
    c.correlation_id = ++correlation;
    c.cbid = cbid;
    c.name = name;
    t.api.push_back(c);
    return c.correlation_id;
  };
  auto kernel = [&](StringId name, uint64_t start, uint32_t corr) {
    GpuActivity k{};
    k.kind = ActivityKind::kKernel;
    k.start_ns = start;
    k.end_ns = start + 1234;
    k.correlation_id = corr;
    k.context = 1;
    k.stream = 7;
    k.kernel.name = name;
    k.kernel.grid[0] = 264, k.kernel.grid[1] = 2, k.kernel.grid[2] = 1;
    k.kernel.block[0] = 128, k.kernel.block[1] = 1, k.kernel.block[2] = 1;
    k.kernel.registers_per_thread = 96;
    k.kernel.dynamic_shared_bytes = 49152;
    return k;
  };
  for (uint32_t l = 0; l < kLaunches; ++l) {
    const uint32_t graph_corr = api(graph_launch, 311, now);
    for (uint32_t n = 0; n < kNodesPerGraph; ++n) {
      GpuActivity a = kernel(names[n], now + 5000 + n * 1500, graph_corr);
      if (n == kNodesPerGraph - 2) {
        a.kind = ActivityKind::kMemcpy;
        a.copy = CopyDetails{
            1 << 20, CopyDirection::kDtoD, MemoryKind::kDevice, MemoryKind::kDevice, {}};
      } else if (n == kNodesPerGraph - 1) {
        a.kind = ActivityKind::kMemset;
        a.fill = FillDetails{1 << 16, 0, MemoryKind::kDevice, {}};
      }
      a.graph_id = 17;
      a.graph_node_id = (uint64_t{17} << 32) | n;
      t.gpu.push_back(a);
    }
    now += 5000 + kNodesPerGraph * 1500;
    t.gpu.push_back(kernel(eager, now + 3000, api(launch_kernel, 211, now)));
    GpuActivity copy = kernel(eager, now + 6000, api(memcpy_async, 41, now + 2500));
    copy.kind = ActivityKind::kMemcpy;
    copy.copy =
        CopyDetails{4096, CopyDirection::kDtoH, MemoryKind::kDevice, MemoryKind::kPinned, {}};
    t.gpu.push_back(copy);
    now += 8000;
  }
  return t;
}

// The trace file, written once per process. NODESCOPE_READER_BENCH_TRACE names another file to
// read instead (e.g. a real trace).
const std::string& TracePath() {
  static const std::string* path = [] {
    if (const char* given = std::getenv("NODESCOPE_READER_BENCH_TRACE")) {
      return new std::string(given);
    }
    const char* tmp = std::getenv("TMPDIR");
    auto* p = new std::string(std::string(tmp != nullptr ? tmp : "/tmp") +
                              "/nodescope_reader_bench.json");
    Status s = WriteChromeTraceFile(MakeTrace(), *p);
    if (!s.ok()) {
      std::fprintf(stderr, "reader_bench: %s\n", s.ToString().c_str());
      std::exit(1);
    }
    std::fprintf(stderr, "reader_bench: trace %s\n", p->c_str());
    return p;
  }();
  return *path;
}

int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

// What a consumer of every event reads: its strings, times and graph keys.
struct Touched {
  uint64_t events = 0;
  uint64_t string_bytes = 0;
  uint64_t keyed = 0;
  uint64_t correlations = 0;
  double ts_sum = 0;
};

// The reader, with its window size as the argument (the default is 1 MiB).
void BM_ReadTraceFile(benchmark::State& state) {
  const std::string& path = TracePath();
  analysis::TraceReadOptions options;
  options.window_bytes = static_cast<size_t>(state.range(0));
  Touched touched;
  for (auto _ : state) {
    touched = Touched{};
    auto meta = analysis::ReadTraceFile(
        path,
        [&touched](const analysis::TraceEvent& e) {
          ++touched.events;
          touched.string_bytes += e.ph.size() + e.cat.size() + e.name.size();
          touched.ts_sum += e.ts_us.value_or(0) + e.dur_us.value_or(0);
          if (e.graph_id.has_value() && e.graph_node_id.has_value()) ++touched.keyed;
          if (e.correlation.has_value()) ++touched.correlations;
          return OkStatus();
        },
        options);
    if (!meta.ok()) {
      state.SkipWithError(meta.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(touched);
  }
  state.SetBytesProcessed(state.iterations() * FileBytes(path));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(touched.events));
  state.counters["events"] = static_cast<double>(touched.events);
  state.counters["keyed"] = static_cast<double>(touched.keyed);
  state.SetLabel(simdjson::get_active_implementation()->name());
}
BENCHMARK(BM_ReadTraceFile)
    ->Arg(1 << 20)
    ->Arg(1 << 16)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same fields read from a simdjson DOM: each object's fields once, as the reader does.
bool TouchDom(const simdjson::dom::element& doc, Touched* touched) {
  simdjson::dom::array events;
  if (doc["traceEvents"].get_array().get(events)) return false;
  for (simdjson::dom::element e : events) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) continue;
    ++touched->events;
    for (simdjson::dom::key_value_pair field : o) {
      std::string_view s;
      double d = 0;
      if (field.key == "ph" || field.key == "cat" || field.key == "name") {
        if (!field.value.get_string().get(s)) touched->string_bytes += s.size();
      } else if (field.key == "ts" || field.key == "dur") {
        if (!field.value.get_double().get(d)) touched->ts_sum += d;
      } else if (field.key == "args") {
        simdjson::dom::object args;
        if (field.value.get_object().get(args)) continue;
        bool graph_id = false, node_id = false;
        for (simdjson::dom::key_value_pair arg : args) {
          uint64_t id = 0;
          int64_t correlation = 0;
          if (arg.key == "graph id") {
            graph_id = !arg.value.get_uint64().get(id);
          } else if (arg.key == "graph node id") {
            node_id = !arg.value.get_uint64().get(id);
          } else if (arg.key == "correlation" && !arg.value.get_int64().get(correlation)) {
            ++touched->correlations;
          }
        }
        if (graph_id && node_id) ++touched->keyed;
      }
    }
  }
  return true;
}

// The naive way with the same library: simdjson's load() reads the whole file into memory, the
// DOM parser builds the whole document, then the fields are read from it.
void BM_SimdjsonDomLoad(benchmark::State& state) {
  const std::string& path = TracePath();
  Touched touched;
  for (auto _ : state) {
    touched = Touched{};
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.load(path).get(doc) || !TouchDom(doc, &touched)) {
      state.SkipWithError("simdjson DOM: parse failed");
      return;
    }
    benchmark::DoNotOptimize(touched);
  }
  state.SetBytesProcessed(state.iterations() * FileBytes(path));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(touched.events));
}
BENCHMARK(BM_SimdjsonDomLoad)->Unit(benchmark::kMillisecond)->UseRealTime();

// DOM at its best: the file already in memory and the parser's memory faulted in by a parse
// before timing; only parsing and reading the fields are timed.
void BM_SimdjsonDomParseInMemory(benchmark::State& state) {
  const std::string& path = TracePath();
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json)) {
    state.SkipWithError("simdjson: cannot load the trace");
    return;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc)) {  // faults the parser's memory in, untimed
    state.SkipWithError("simdjson DOM: parse failed");
    return;
  }
  Touched touched;
  for (auto _ : state) {
    touched = Touched{};
    if (parser.parse(json).get(doc) || !TouchDom(doc, &touched)) {
      state.SkipWithError("simdjson DOM: parse failed");
      return;
    }
    benchmark::DoNotOptimize(touched);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(json.size()));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(touched.events));
}
BENCHMARK(BM_SimdjsonDomParseInMemory)->Unit(benchmark::kMillisecond)->UseRealTime();

// The floor: the file's bytes read as the reader reads them (1 MiB at a time), each byte once.
void BM_ReadEveryByte(benchmark::State& state) {
  const std::string& path = TracePath();
  for (auto _ : state) {
    auto source = analysis::ByteSource::OpenFile(path);
    if (!source.ok()) {
      state.SkipWithError(source.status().ToString().c_str());
      return;
    }
    analysis::WindowBuffer buffer(**source, simdjson::SIMDJSON_PADDING);
    uint64_t sum = 0;
    uint64_t pos = 0;
    do {
      if (!buffer.Fill(pos, size_t{1} << 20).ok()) break;
      for (size_t i = 0; i + 8 <= buffer.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, buffer.data() + i, sizeof(word));
        sum += word;
      }
      pos += buffer.size();
    } while (!buffer.at_end() || buffer.size() > 0);
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * FileBytes(path));
}
BENCHMARK(BM_ReadEveryByte)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
