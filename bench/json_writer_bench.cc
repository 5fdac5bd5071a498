// Events/s of the Chrome-trace writer against naive ostringstream and fprintf writers, same events.
#include <benchmark/benchmark.h>
#include <cxxabi.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "export/chrome_trace_writer.h"
#include "export/json_output.h"

namespace nodescope {
namespace {

constexpr uint32_t kLaunches = 10000;
constexpr uint32_t kNodesPerGraph = 10;  // 100k graph kernels in all
constexpr uint64_t kBase = 1700000000000000000ull;

// 10k cudaGraphLaunch calls, each running a graph of 10 kernels: 100k kernels, 100k flows.
const Trace& GraphTrace() {
  static const Trace* trace = [] {
    auto* t = new Trace;
    t->pid = 4242;
    t->process_name = "bench";
    DeviceProperties d;
    d.name = "NVIDIA H200";
    d.num_sms = 132;
    d.warp_size = 32;
    t->devices.push_back(d);
    StringId launch = t->strings.Intern("cudaGraphLaunch");
    std::vector<StringId> names;
    for (uint32_t n = 0; n < kNodesPerGraph; ++n) {
      names.push_back(
          t->strings.Intern("_Z12gemm_kernelILi" + std::to_string(n) + "ELi128EEvPKfS1_Pfiii"));
    }
    uint64_t now = kBase;
    for (uint32_t l = 0; l < kLaunches; ++l) {
      ApiCall c{};
      c.start_ns = now;
      c.end_ns = now + 2345;
      c.pid = 4242;
      c.tid = 4243;
      c.correlation_id = l + 1;
      c.cbid = 311;
      c.name = launch;
      t->api.push_back(c);
      for (uint32_t n = 0; n < kNodesPerGraph; ++n) {
        GpuActivity k{};
        k.kind = ActivityKind::kKernel;
        k.start_ns = now + 5000 + n * 1500;
        k.end_ns = k.start_ns + 1234;
        k.graph_id = 17;
        k.graph_node_id = (uint64_t{17} << 32) | n;
        k.correlation_id = l + 1;
        k.context = 1;
        k.stream = 7;
        k.kernel.name = names[n];
        k.kernel.grid[0] = 264, k.kernel.grid[1] = 2, k.kernel.grid[2] = 1;
        k.kernel.block[0] = 128, k.kernel.block[1] = 1, k.kernel.block[2] = 1;
        k.kernel.registers_per_thread = 96;
        k.kernel.dynamic_shared_bytes = 49152;
        t->gpu.push_back(k);
      }
      now += 5000 + kNodesPerGraph * 1500;
    }
    return t;
  }();
  return *trace;
}

// JSON objects per document: X per record, plus an s and an f per GPU activity.
int64_t EventCount(const Trace& t) { return static_cast<int64_t>(t.api.size() + 3 * t.gpu.size()); }

int OpenDevNull() { return ::open("/dev/null", O_WRONLY | O_CLOEXEC); }

void BM_WriteChromeTrace(benchmark::State& state) {
  const Trace& trace = GraphTrace();
  int fd = OpenDevNull();
  StringJsonOutput sized;
  (void)WriteChromeTrace(trace, sized);
  for (auto _ : state) {
    FdJsonOutput out(fd);
    Status s = WriteChromeTrace(trace, out);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * EventCount(trace));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(sized.str().size()));
  ::close(fd);
}
BENCHMARK(BM_WriteChromeTrace)->Unit(benchmark::kMillisecond);

// --- Naive writers: what one writes without thinking about speed. ---

std::string Demangled(const char* mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string s = status == 0 && d != nullptr ? d : mangled;
  std::free(d);
  return s;
}

std::string NaiveEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::unordered_map<uint32_t, const ApiCall*> IndexByCorrelation(const Trace& t) {
  std::unordered_map<uint32_t, const ApiCall*> index;
  t.api.ForEach([&](const ApiCall& a) { index.emplace(a.correlation_id, &a); });
  return index;
}

double Us(uint64_t ns) { return static_cast<double>(ns - kBase) / 1000.0; }

// std::ostringstream, doubles for times, names demangled once but escaped per event.
void BM_NaiveOstream(benchmark::State& state) {
  const Trace& t = GraphTrace();
  int fd = OpenDevNull();
  std::unordered_map<StringId, std::string> demangled;
  for (auto _ : state) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(3) << "{\n  \"traceEvents\": [\n";
    t.api.ForEach([&](const ApiCall& a) {
      os << "  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\""
         << NaiveEscape(std::string(t.strings.Get(a.name))) << "\",\"pid\":" << a.pid
         << ",\"tid\":" << a.tid << ",\"ts\":" << Us(a.start_ns)
         << ",\"dur\":" << static_cast<double>(a.end_ns - a.start_ns) / 1000.0
         << ",\"args\":{\"cbid\":" << a.cbid << ",\"correlation\":" << a.correlation_id << "}},\n";
    });
    auto index = IndexByCorrelation(t);
    uint64_t flow = 0;
    t.gpu.ForEach([&](const GpuActivity& g) {
      const KernelDetails& k = g.kernel;
      auto [it, fresh] = demangled.try_emplace(k.name);
      if (fresh) it->second = Demangled(std::string(t.strings.Get(k.name)).c_str());
      double blocks = k.grid[0] * k.grid[1] * k.grid[2] / 132.0;
      os << "  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" << NaiveEscape(it->second)
         << "\",\"pid\":" << g.device << ",\"tid\":" << g.stream << ",\"ts\":" << Us(g.start_ns)
         << ",\"dur\":" << static_cast<double>(g.end_ns - g.start_ns) / 1000.0
         << ",\"args\":{\"queued\":0,\"device\":" << g.device << ",\"context\":" << g.context
         << ",\"stream\":" << g.stream << ",\"correlation\":" << g.correlation_id
         << ",\"registers per thread\":" << k.registers_per_thread
         << ",\"shared memory\":" << k.static_shared_bytes + k.dynamic_shared_bytes
         << ",\"blocks per SM\":" << blocks << ",\"warps per SM\":" << blocks * 4 << ",\"grid\":["
         << k.grid[0] << "," << k.grid[1] << "," << k.grid[2] << "],\"block\":[" << k.block[0]
         << "," << k.block[1] << "," << k.block[2] << "],\"graph id\":" << g.graph_id
         << ",\"graph node id\":" << g.graph_node_id << "}},\n";
      const ApiCall& a = *index.at(g.correlation_id);
      ++flow;
      os << "  {\"ph\":\"s\",\"id\":" << flow << ",\"pid\":" << a.pid << ",\"tid\":" << a.tid
         << ",\"ts\":" << Us(a.start_ns) << ",\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
         << "  {\"ph\":\"f\",\"id\":" << flow << ",\"pid\":" << g.device << ",\"tid\":" << g.stream
         << ",\"ts\":" << Us(g.start_ns) << ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n";
    });
    os << "  {}\n  ]\n}\n";
    std::string text = os.str();
    benchmark::DoNotOptimize(::write(fd, text.data(), text.size()));
  }
  state.SetItemsProcessed(state.iterations() * EventCount(t));
  ::close(fd);
}
BENCHMARK(BM_NaiveOstream)->Unit(benchmark::kMillisecond);

// fprintf per event and a demangle per kernel, as a writer that formats each activity afresh does.
void BM_NaiveFprintfDemangleEach(benchmark::State& state) {
  const Trace& t = GraphTrace();
  FILE* f = std::fopen("/dev/null", "w");
  for (auto _ : state) {
    std::fprintf(f, "{\n  \"traceEvents\": [\n");
    t.api.ForEach([&](const ApiCall& a) {
      std::fprintf(f,
                   "  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":%u,"
                   "\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"cbid\":%u,"
                   "\"correlation\":%u}},\n",
                   NaiveEscape(std::string(t.strings.Get(a.name))).c_str(), a.pid, a.tid,
                   Us(a.start_ns), static_cast<double>(a.end_ns - a.start_ns) / 1000.0, a.cbid,
                   a.correlation_id);
    });
    auto index = IndexByCorrelation(t);
    unsigned long long flow = 0;
    t.gpu.ForEach([&](const GpuActivity& g) {
      const KernelDetails& k = g.kernel;
      std::string name = NaiveEscape(Demangled(std::string(t.strings.Get(k.name)).c_str()));
      double blocks = k.grid[0] * k.grid[1] * k.grid[2] / 132.0;
      std::fprintf(f,
                   "  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":%u,\"tid\":%u,"
                   "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"queued\":0,\"device\":%u,"
                   "\"context\":%u,\"stream\":%u,\"correlation\":%u,"
                   "\"registers per thread\":%u,\"shared memory\":%u,\"blocks per SM\":%f,"
                   "\"warps per SM\":%f,\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d],"
                   "\"graph id\":%u,\"graph node id\":%llu}},\n",
                   name.c_str(), g.device, g.stream, Us(g.start_ns),
                   static_cast<double>(g.end_ns - g.start_ns) / 1000.0, g.device, g.context,
                   g.stream, g.correlation_id, unsigned{k.registers_per_thread},
                   k.static_shared_bytes + k.dynamic_shared_bytes, blocks, blocks * 4, k.grid[0],
                   k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], g.graph_id,
                   static_cast<unsigned long long>(g.graph_node_id));
      const ApiCall& a = *index.at(g.correlation_id);
      ++flow;
      std::fprintf(f,
                   "  {\"ph\":\"s\",\"id\":%llu,\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
                   "\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
                   "  {\"ph\":\"f\",\"id\":%llu,\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
                   "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n",
                   flow, a.pid, a.tid, Us(a.start_ns), flow, g.device, g.stream, Us(g.start_ns));
    });
    std::fprintf(f, "  {}\n  ]\n}\n");
    std::fflush(f);
  }
  state.SetItemsProcessed(state.iterations() * EventCount(t));
  std::fclose(f);
}
BENCHMARK(BM_NaiveFprintfDemangleEach)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodescope

BENCHMARK_MAIN();
