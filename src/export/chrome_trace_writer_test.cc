// Tests of the Chrome-trace writer: golden files, graph keys, ac2g flows, user ranges, metadata,
// JSON validity.
#include "export/chrome_trace_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attribution/annotations.h"
#include "base/build_config.h"
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
#include "export/trace_validity.h"
#endif

namespace nodescope {
namespace {

constexpr uint64_t kBase = 1700000000000000000ull;

GpuActivity Kernel(Trace& t, std::string_view name, uint64_t start, uint64_t end, uint32_t corr) {
  GpuActivity a{};
  a.kind = ActivityKind::kKernel;
  a.start_ns = start;
  a.end_ns = end;
  a.correlation_id = corr;
  a.context = 1;
  a.stream = 7;
  a.kernel.name = t.strings.Intern(name);
  a.kernel.grid[0] = 264, a.kernel.grid[1] = 1, a.kernel.grid[2] = 1;
  a.kernel.block[0] = 96, a.kernel.block[1] = 1, a.kernel.block[2] = 1;
  a.kernel.registers_per_thread = 32;
  return a;
}

ApiCall Api(Trace& t, ApiDomain domain, std::string_view name, uint32_t tid, uint32_t corr,
            uint32_t cbid, uint64_t start, uint64_t end) {
  ApiCall c{};
  c.domain = domain;
  c.name = t.strings.Intern(name);
  c.pid = t.pid;
  c.tid = tid;
  c.correlation_id = corr;
  c.cbid = cbid;
  c.start_ns = start;
  c.end_ns = end;
  return c;
}

DeviceProperties H200() {
  DeviceProperties d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.total_global_mem = 150109880320ull;
  d.compute_major = 9;
  d.max_threads_per_block = 1024;
  d.max_threads_per_multiprocessor = 2048;
  d.regs_per_block = 65536;
  d.regs_per_multiprocessor = 65536;
  d.warp_size = 32;
  d.shared_mem_per_block = 49152;
  d.shared_mem_per_multiprocessor = 233472;
  d.shared_mem_per_block_optin = 232448;
  d.num_sms = 132;
  return d;
}

// Small, but touches every kind of record and every escaping rule.
Trace SampleTrace() {
  Trace t;
  t.pid = 4242;
  t.process_name = "python3 train.py";
  t.trace_name = "sample \"run\" C:\\traces\n";
  t.start_ns = kBase;
  t.end_ns = kBase + 1000000;
  t.devices.push_back(H200());
  t.versions = {{"cupti_version", 130001}, {"cuda_runtime_version", 12080}};
  t.counters = {{"graph_execs", 1}};
  t.drops.vendor_dropped = 3;
  t.drops.buffers_refused = 1;
  t.drops.store_full = 2;
  t.drops.unknown_records = 5;
  t.thread_names = {{4243, "main\tthread \xFF"}};

  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaGraphLaunch", 4243, 10, 311, kBase + 1000, kBase + 9000));
  t.api.push_back(
      Api(t, ApiDomain::kDriver, "cuGraphLaunch", 4243, 10, 514, kBase + 2000, kBase + 8000));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaLaunchKernel", 4243, 11, 211, kBase + 10000, kBase + 12500));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaMemcpyAsync", 4243, 12, 41, kBase + 13000, kBase + 14000));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaMemsetAsync", 4243, 13, 51, kBase + 15000, kBase + 15500));

  GpuActivity g0 = Kernel(t, "_Z6kernelILi3EEvPf", kBase + 20000, kBase + 25000, 10);
  g0.graph_id = 5;
  g0.graph_node_id = (uint64_t{5} << 32) | 0;
  g0.kernel.static_shared_bytes = 1024;
  g0.kernel.dynamic_shared_bytes = 4096;
  GpuActivity g1 = Kernel(t, "weird \"quoted\" \\path\n", kBase + 25100, kBase + 26000, 10);
  g1.graph_id = 5;
  g1.graph_node_id = (uint64_t{5} << 32) | 1;
  t.gpu.push_back(g0);
  t.gpu.push_back(g1);
  t.gpu.push_back(Kernel(t, "_Z6kernelILi3EEvPf", kBase + 30000, kBase + 31234, 11));

  GpuActivity copy{};
  copy.kind = ActivityKind::kMemcpy;
  copy.start_ns = kBase + 40000;
  copy.end_ns = kBase + 140000;
  copy.correlation_id = 12;
  copy.context = 1;
  copy.stream = 8;
  copy.copy = {1 << 20, CopyDirection::kHtoD, MemoryKind::kPageable, MemoryKind::kDevice, {}};
  t.gpu.push_back(copy);

  GpuActivity fill{};
  fill.kind = ActivityKind::kMemset;
  fill.start_ns = kBase + 150000;
  fill.end_ns = kBase + 151234;
  fill.correlation_id = 13;
  fill.context = 1;
  fill.stream = 8;
  fill.fill = {4096, 0, MemoryKind::kDevice, {}};
  t.gpu.push_back(fill);

  // A device with no properties: no labels, no per-SM figures. No API call: no flow.
  GpuActivity other = Kernel(t, "plain_kernel", kBase + 160000, kBase + 161000, 99);
  other.device = 1;
  other.stream = 3;
  t.gpu.push_back(other);
  return t;
}

UserRange Range(Trace& t, uint64_t id, uint64_t parent, std::string_view name, uint32_t tid,
                uint64_t start, uint64_t end) {
  UserRange r{};
  r.id = id;
  r.parent_id = parent;
  r.name = t.strings.Intern(name);
  r.pid = t.pid;
  r.tid = tid;
  r.end_tid = tid;
  r.start_ns = start;
  r.end_ns = end;
  return r;
}

// Nested push/pop ranges, a Start/End range ended on another thread, one still open at the end,
// a runtime range over kernels on two streams, a graph with a two-level capture scope replayed
// twice, and a link to a range that is not in the trace. Device spans are built as a finished
// trace has them.
Trace RangesTrace() {
  Trace t;
  t.pid = 4242;
  t.process_name = "ranges";
  t.trace_name = "ranges";
  t.start_ns = kBase;
  t.end_ns = kBase + 200000;
  t.thread_names = {{4243, "main"}, {4244, "loader"}};
  t.range_counters = {.unbalanced_pops = 1,
                      .open_at_end = 1,
                      .ended_on_other_thread = 1,
                      .unknown_ends = 2,
                      .dropped = 3};

  t.ranges.push_back(Range(t, 5, 0, "capture \"outer\"", 4243, kBase + 500, kBase + 900));
  t.ranges.push_back(Range(t, 6, 5, "inner\nscope", 4243, kBase + 600, kBase + 800));
  UserRange forward = Range(t, 2, 1, "forward", 4243, kBase + 2000, kBase + 20000);
  forward.domain = t.strings.Intern("my \"domain\"");
  t.ranges.push_back(forward);
  UserRange load = Range(t, 3, 0, "load batch", 4243, kBase + 3000, kBase + 90000);
  load.flags = kRangeStartEnd | kRangeCrossThread;
  load.end_tid = 4244;
  t.ranges.push_back(load);
  t.ranges.push_back(Range(t, 1, 0, "step \"1\"\n", 4243, kBase + 1000, kBase + 150000));
  UserRange open = Range(t, 4, 0, "still open", 4244, kBase + 95000, t.end_ns);
  open.flags = kRangeOpenAtEnd;
  t.ranges.push_back(open);

  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaLaunchKernel", 4243, 21, 211, kBase + 4000, kBase + 5000));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaLaunchKernel", 4243, 22, 211, kBase + 6000, kBase + 7000));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaGraphLaunch", 4243, 30, 311, kBase + 30000, kBase + 31000));
  t.api.push_back(
      Api(t, ApiDomain::kRuntime, "cudaGraphLaunch", 4243, 31, 311, kBase + 32000, kBase + 33000));
  for (auto [corr, range] :
       {std::pair<uint32_t, uint64_t>{21, 2}, {22, 2}, {30, 1}, {31, 1}, {23, 999}}) {
    t.external.push_back(ExternalCorrelation{range, corr, ExternalKind::kUserRange});
  }

  t.gpu.push_back(Kernel(t, "gemm", kBase + 10000, kBase + 12000, 21));
  GpuActivity softmax = Kernel(t, "softmax", kBase + 10500, kBase + 11000, 22);
  softmax.stream = 8;
  t.gpu.push_back(softmax);
  for (uint32_t replay = 0; replay < 2; ++replay) {
    const uint64_t at = kBase + 40000 + 10000 * uint64_t{replay};
    GpuActivity attn = Kernel(t, "attn", at, at + 1000, 30 + replay);
    attn.graph_id = 3;
    attn.graph_node_id = uint64_t{3} << 32;
    attn.capture_range_id = 6;
    GpuActivity proj = Kernel(t, "proj", at + 1100, at + 2000, 30 + replay);
    proj.graph_id = 3;
    proj.graph_node_id = (uint64_t{3} << 32) | 1;
    proj.capture_range_id = 5;
    t.gpu.push_back(attn);
    t.gpu.push_back(proj);
  }
  GpuActivity fill{};  // launched under a range that was not recorded
  fill.kind = ActivityKind::kMemset;
  fill.start_ns = kBase + 60000;
  fill.end_ns = kBase + 60500;
  fill.correlation_id = 23;
  fill.stream = 8;
  fill.fill = {256, 0, MemoryKind::kDevice, {}};
  t.gpu.push_back(fill);
  BuildDeviceSpans(t);
  return t;
}

// Every trace these tests write is also checked as strict viewers read it.
std::string Write(const Trace& t) {
  StringJsonOutput out;
  Status s = WriteChromeTrace(t, out);
  EXPECT_TRUE(s.ok()) << s.ToString();
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
  s = CheckTraceForViewers(out.str());
  EXPECT_TRUE(s.ok()) << s.ToString();
#endif
  return out.str();
}

// Device spans nest strictly around what they contain, as parsed back.
void ExpectNested(const std::string& json) {
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
  Status s = CheckDeviceSpanNesting(json);
  EXPECT_TRUE(s.ok()) << s.ToString();
#else
  (void)json;
#endif
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> LinesWith(const std::string& text, std::string_view needle) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(text)) {
    if (l.find(needle) != std::string::npos) out.push_back(l);
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Set NODESCOPE_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change.
void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = std::string(NODESCOPE_TESTDATA_DIR) + "/" + name;
  const char* update = std::getenv("NODESCOPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  const std::string expected = ReadFile(path);
  ASSERT_FALSE(expected.empty()) << "missing golden " << path
                                 << " (run with NODESCOPE_UPDATE_GOLDEN=1)";
  if (actual == expected) return;
  std::vector<std::string> a = Lines(actual), e = Lines(expected);
  for (size_t i = 0; i < std::max(a.size(), e.size()); ++i) {
    std::string al = i < a.size() ? a[i] : "<eof>", el = i < e.size() ? e[i] : "<eof>";
    if (al != el) {
      ADD_FAILURE() << path << " differs at line " << i + 1 << "\n  expected: " << el
                    << "\n  actual:   " << al << "\n(NODESCOPE_UPDATE_GOLDEN=1 rewrites it)";
      return;
    }
  }
  ADD_FAILURE() << path << " differs (line endings?)";
}

TEST(ChromeTraceWriter, MatchesGoldenSample) { ExpectGolden(Write(SampleTrace()), "sample.json"); }

TEST(ChromeTraceWriter, MatchesGoldenEmpty) { ExpectGolden(Write(Trace{}), "empty.json"); }

TEST(ChromeTraceWriter, MatchesGoldenRanges) { ExpectGolden(Write(RangesTrace()), "ranges.json"); }

TEST(ChromeTraceWriter, DemanglesKernelNames) {
  std::string json = Write(SampleTrace());
  EXPECT_EQ(LinesWith(json, R"j("name":"void kernel<3>(float*)")j").size(), 2u);
  EXPECT_EQ(LinesWith(json, "_Z6kernel").size(), 0u);
  EXPECT_EQ(LinesWith(json, R"("name":"plain_kernel")").size(), 1u) << "not mangled: unchanged";
}

TEST(ChromeTraceWriter, GraphKeysOnlyOnGraphWork) {
  std::string json = Write(SampleTrace());
  std::vector<std::string> graph = LinesWith(json, R"("graph id":)");
  ASSERT_EQ(graph.size(), 2u);
  EXPECT_NE(graph[0].find(R"("graph id":5,"graph node id":21474836480})"), std::string::npos);
  EXPECT_NE(graph[1].find(R"("graph id":5,"graph node id":21474836481})"), std::string::npos);
  EXPECT_EQ(LinesWith(json, R"("ph":"X","cat":"kernel")").size(), 4u);
}

TEST(ChromeTraceWriter, KernelArgsInKinetoOrder) {
  std::string json = Write(SampleTrace());
  std::vector<std::string> k = LinesWith(json, R"("cat":"kernel","name":"void kernel<3>)");
  ASSERT_EQ(k.size(), 2u);  // from the graph, and from cudaLaunchKernel
  EXPECT_NE(k[1].find(R"("args":{"queued":0,"device":0,"context":1,"stream":7,"correlation":11,)"
                      R"("registers per thread":32,"shared memory":0,"blocks per SM":2.00,)"
                      R"("warps per SM":6.00,"grid":[264,1,1],"block":[96,1,1]}})"),
            std::string::npos)
      << k[1];
  EXPECT_NE(k[0].find(R"("shared memory":5120,)"), std::string::npos) << "static + dynamic";
  std::vector<std::string> unknown = LinesWith(json, R"("name":"plain_kernel")");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].find("per SM"), std::string::npos) << "numSms unknown: omitted";
}

TEST(ChromeTraceWriter, CopyAndFillNames) {
  std::string json = Write(SampleTrace());
  std::vector<std::string> copy = LinesWith(json, R"j("name":"Memcpy HtoD (Pageable -> Device)")j");
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_NE(copy[0].find(R"j("bytes":1048576,"memory bandwidth (GB/s)":10.48576})j"),
            std::string::npos);
  EXPECT_EQ(LinesWith(json, R"j("cat":"gpu_memset","name":"Memset (Device)")j").size(), 1u);
}

TEST(ChromeTraceWriter, OneFlowPerGraphNode) {
  Trace t;
  t.pid = 100;
  t.api.push_back(Api(t, ApiDomain::kDriver, "cuGraphLaunch", 2, 77, 514, 1500, 1600));
  t.api.push_back(Api(t, ApiDomain::kRuntime, "cudaGraphLaunch", 1, 77, 311, 1000, 2000));
  constexpr int kNodes = 6;
  for (int i = 0; i < kNodes; ++i) {
    GpuActivity k = Kernel(t, "node", 3000 + 100 * i, 3050 + 100 * i, 77);
    k.graph_id = 9;
    k.graph_node_id = (uint64_t{9} << 32) | static_cast<uint64_t>(i);
    t.gpu.push_back(k);
  }
  std::string json = Write(t);
  std::vector<std::string> starts = LinesWith(json, R"("ph":"s")");
  std::vector<std::string> ends = LinesWith(json, R"("ph":"f")");
  ASSERT_EQ(starts.size(), size_t{kNodes});
  ASSERT_EQ(ends.size(), size_t{kNodes});
  std::set<std::string> ids;
  for (int i = 0; i < kNodes; ++i) {
    std::string id = "\"id\":" + std::to_string(i + 1) + ",";
    EXPECT_NE(starts[i].find(id), std::string::npos) << starts[i];
    EXPECT_NE(ends[i].find(id), std::string::npos) << ends[i];
    // The runtime call (tid 1) wins over the driver call with the same correlation id.
    EXPECT_NE(starts[i].find(R"("pid":100,"tid":1,"ts":0.000,"cat":"ac2g")"), std::string::npos)
        << starts[i];
    EXPECT_NE(ends[i].find(R"("pid":0,"tid":7,)"), std::string::npos) << ends[i];
    EXPECT_NE(ends[i].find(R"("bp":"e")"), std::string::npos);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), size_t{kNodes});
}

TEST(ChromeTraceWriter, NoFlowWithoutMatchingCall) {
  Trace t;
  t.api.push_back(Api(t, ApiDomain::kRuntime, "cudaLaunchKernel", 1, 5, 211, 10, 20));
  t.gpu.push_back(Kernel(t, "k", 30, 40, 6));
  t.gpu.push_back(Kernel(t, "k", 50, 60, 0));
  EXPECT_EQ(LinesWith(Write(t), "ac2g").size(), 0u);
}

TEST(ChromeTraceWriter, DropsAndCountersInMetadata) {
  std::string json = Write(SampleTrace());
  EXPECT_NE(json.find(R"(  "nodescope": {"version":")"), std::string::npos);
  EXPECT_NE(json.find(R"("dropped_records":{"vendor_dropped":3,"buffers_refused":1,)"
                      R"("store_full":2,"unknown_records":5,"total":5},"ranges":{"recorded":0,)"
                      R"("unbalanced_pops":0,"open_at_end":0,"ended_on_other_thread":0,)"
                      R"("unknown_ends":0,"dropped":0,"device_spans":0},"graph_execs":1},)"),
            std::string::npos);
  EXPECT_NE(json.find("\n  \"cupti_version\": 130001,\n"), std::string::npos);
}

TEST(ChromeTraceWriter, RangeCountersInMetadata) {
  std::string json = Write(RangesTrace());
  EXPECT_NE(json.find(R"("ranges":{"recorded":6,"unbalanced_pops":1,"open_at_end":1,)"
                      R"("ended_on_other_thread":1,"unknown_ends":2,"dropped":3,"device_spans":8},)"
                      R"("unresolved_range_links":1})"),
            std::string::npos);
}

TEST(ChromeTraceWriter, UserRangesOnTheirThreads) {
  std::string json = Write(RangesTrace());
  std::vector<std::string> cpu = LinesWith(json, R"("cat":"user_annotation")");
  ASSERT_EQ(cpu.size(), 6u);
  EXPECT_EQ(LinesWith(json, R"j("name":"step \"1\"\n","pid":4242,"tid":4243,"ts":1.000,)j"
                            R"j("dur":149.000,"args":{"External id":1}})j")
                .size(),
            1u);
  EXPECT_EQ(LinesWith(json, R"("args":{"External id":2,"domain":"my \"domain\""}})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("args":{"External id":3,"end tid":4244}})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("tid":4244,"ts":95.000,"dur":105.000,)"
                            R"("args":{"External id":4,"open at end":true}})")
                .size(),
            1u);
}

TEST(ChromeTraceWriter, DeviceSpansWidenedOneNanosecondPerLevelInside) {
  std::string json = Write(RangesTrace());
  ExpectNested(json);
  ASSERT_EQ(LinesWith(json, R"("cat":"gpu_user_annotation")").size(), 8u);
  // "forward" on two streams: its kernels' extent (10.000-12.000 and 10.500-11.000) and 1 ns on
  // each side, as kineto widens it.
  EXPECT_EQ(LinesWith(json, R"j("name":"forward","pid":0,"tid":7,"ts":9.999,"dur":2.002,)j"
                            R"j("args":{"External id":2,"widened (ns)":1}})j")
                .size(),
            1u);
  EXPECT_EQ(LinesWith(json, R"("name":"forward","pid":0,"tid":8,"ts":10.499,"dur":0.502,)").size(),
            1u);
  // "step" around "forward" and both replays' capture spans ("capture" > "inner"): 3 ns on
  // stream 7, 2 ns on stream 8 where only "forward" is inside it.
  EXPECT_EQ(LinesWith(json, R"j("name":"step \"1\"\n","pid":0,"tid":7,"ts":9.997,"dur":42.006,)j"
                            R"j("args":{"External id":1,"widened (ns)":3}})j")
                .size(),
            1u);
  EXPECT_EQ(
      LinesWith(json, R"j("name":"step \"1\"\n","pid":0,"tid":8,"ts":10.498,"dur":0.504,)j").size(),
      1u);
  // Capture-time ranges: one span per replay.
  EXPECT_EQ(LinesWith(json, R"j("ts":39.998,"dur":2.004,"args":{"External id":5,)j"
                            R"j("widened (ns)":2,"replay correlation":30}})j")
                .size(),
            1u);
  EXPECT_EQ(LinesWith(json, R"j("ts":49.999,"dur":1.002,"args":{"External id":6,)j"
                            R"j("widened (ns)":1,"replay correlation":31}})j")
                .size(),
            1u);
}

TEST(ChromeTraceWriter, WidenedSpanAtTheEarliestRecordMovesTheBaseBack) {
  Trace t;  // start_ns 0: the earliest record is the base, and the span starts 1 ns before it
  t.ranges.push_back(Range(t, 1, 0, "r", 1, 9000, 9500));
  t.external.push_back(ExternalCorrelation{1, 1, ExternalKind::kUserRange});
  t.gpu.push_back(Kernel(t, "k", 5000, 6000, 1));
  BuildDeviceSpans(t);
  const std::string json = Write(t);
  EXPECT_NE(json.find(R"("baseTimeNanoseconds": 4999,)"), std::string::npos) << json;
  EXPECT_EQ(LinesWith(json, R"("name":"k","pid":0,"tid":7,"ts":0.001,"dur":1.000,)").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("name":"r","pid":0,"tid":7,"ts":0.000,"dur":1.002,)").size(), 1u);
}

// Bounds of the X events on one line each as a viewer computes them: ts and dur parsed from the
// written decimal text as doubles, end = ts + dur in double arithmetic. Keyed by name; only the
// lines that contain `lane` (e.g. `"pid":0,"tid":7,`).
std::map<std::string, std::vector<std::pair<double, double>>> ParsedBounds(const std::string& json,
                                                                           std::string_view lane) {
  std::map<std::string, std::vector<std::pair<double, double>>> out;
  for (const std::string& l : Lines(json)) {
    if (l.find(lane) == std::string::npos) continue;
    const size_t name = l.find(R"("name":")"), ts = l.find(R"("ts":)"), dur = l.find(R"("dur":)");
    if (l.find(R"("ph":"X")") == std::string::npos || ts == std::string::npos ||
        dur == std::string::npos || name == std::string::npos) {
      continue;
    }
    const double begin = std::strtod(l.c_str() + ts + 5, nullptr);
    const double length = std::strtod(l.c_str() + dur + 6, nullptr);
    const size_t name_end = l.find('"', name + 8);
    out[l.substr(name + 8, name_end - name - 8)].emplace_back(begin, begin + length);
  }
  return out;
}

// Three nested ranges whose spans cover exactly the same work on one stream (two kernels), at
// relative times of 0.1 s, 1.7e12 us (an epoch-like base) and 2.19e12 us (just under 2^41 us, the
// bound DeviceSpanPads documents): as parsed back, each span starts strictly before and ends
// strictly after what it contains. Written exactly, the spans and the kernels start and end on
// the same nanosecond, and ts + dur in doubles makes a parent end before its child (speedscope
// then never closes the span).
TEST(ChromeTraceWriter, DeviceSpansContainTheirChildrenAsParsedDoubles) {
  std::mt19937_64 rng(42);
  for (uint64_t magnitude :
       {uint64_t{100000000}, uint64_t{1700000000000000}, uint64_t{2190000000000000}}) {
    int ends_before_child = 0, not_strict = 0;
    for (int i = 0; i < 500; ++i) {
      Trace t;
      t.pid = 1;
      t.start_ns = 1;  // times are written relative to this: ts ~ magnitude / 1000 us
      t.ranges.push_back(Range(t, 1, 0, "outer", 1, 1, 2));
      t.ranges.push_back(Range(t, 2, 1, "mid", 1, 1, 2));
      t.ranges.push_back(Range(t, 3, 2, "inner", 1, 1, 2));
      t.external.push_back(ExternalCorrelation{3, 1, ExternalKind::kUserRange});
      t.external.push_back(ExternalCorrelation{3, 2, ExternalKind::kUserRange});
      const uint64_t a = magnitude + rng() % 1000000000;
      const uint64_t a_end = a + 1 + rng() % 100000, b = a_end + rng() % 3000;
      t.gpu.push_back(Kernel(t, "a", a, a_end, 1));
      t.gpu.push_back(Kernel(t, "b", b, b + 1 + rng() % 1000000, 2));
      BuildDeviceSpans(t);
      const std::string json = Write(t);
      ExpectNested(json);
      auto bounds = ParsedBounds(json, R"("pid":0,"tid":7,)");
      const char* chain[] = {"outer", "mid", "inner", "a", "b"};
      for (int p = 0; p < 3; ++p) {
        ASSERT_EQ(bounds[chain[p]].size(), 1u) << chain[p] << "\n" << json;
        const auto [pb, pe] = bounds[chain[p]][0];
        for (int c = p + 1; c < 5; ++c) {
          for (const auto& [cb, ce] : bounds[chain[c]]) {
            if (pe < ce) ++ends_before_child;
            if (!(pb < cb && ce < pe)) ++not_strict;
          }
        }
      }
    }
    EXPECT_EQ(ends_before_child, 0) << "spans ending before their child at " << magnitude << " ns";
    EXPECT_EQ(not_strict, 0) << "spans not strictly containing their child at " << magnitude
                             << " ns";
  }
}

TEST(ChromeTraceWriter, ScopeAndExternalIdOnDeviceWork) {
  std::string json = Write(RangesTrace());
  EXPECT_EQ(LinesWith(json, R"("graph node id":12884901888,)"
                            R"("scope":"capture \"outer\"/inner\nscope","External id":1}})")
                .size(),
            2u);
  EXPECT_EQ(LinesWith(json, R"("graph node id":12884901889,"scope":"capture \"outer\"",)"
                            R"("External id":1}})")
                .size(),
            2u);
  EXPECT_EQ(LinesWith(json, R"("block":[96,1,1],"External id":2}})").size(), 2u);
  std::vector<std::string> fill = LinesWith(json, R"("cat":"gpu_memset")");
  ASSERT_EQ(fill.size(), 1u);
  EXPECT_EQ(fill[0].find("External id"), std::string::npos) << "its range is not in the trace";
  EXPECT_EQ(LinesWith(Write(SampleTrace()), "External id").size(), 0u);
}

TEST(ChromeTraceWriter, ProcessAndThreadMetadata) {
  std::string json = Write(SampleTrace());
  EXPECT_EQ(LinesWith(json, R"("name":"process_name")").size(), 3u);  // CPU, GPU 0, GPU 1
  EXPECT_EQ(LinesWith(json, R"("args":{"labels":"NVIDIA H200"})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("name":"thread_name")").size(), 4u);  // 3 streams + 1 CPU thread
  EXPECT_EQ(LinesWith(json, R"("pid":1,"tid":3,"args":{"name":"stream 3"})").size(), 1u);
  // Sorted as kineto sorts them: the CPU process by pid, then GPUs by id; streams by id, CPU
  // threads by tid.
  EXPECT_EQ(LinesWith(json, R"("name":"process_sort_index")").size(), 3u);
  EXPECT_EQ(LinesWith(json, R"("pid":4242,"tid":0,"args":{"sort_index":4242})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("pid":1,"tid":0,"args":{"sort_index":4194305})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("name":"thread_sort_index")").size(), 4u);
  EXPECT_EQ(LinesWith(json, R"("pid":1,"tid":3,"args":{"sort_index":3})").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("pid":4242,"tid":4243,"args":{"sort_index":4243})").size(), 1u);
}

TEST(ChromeTraceWriter, EveryCpuThreadWithRecordsGetsASortIndex) {
  Trace t;
  t.pid = 10;
  t.thread_names = {{12, "named, no records"}};
  t.api.push_back(Api(t, ApiDomain::kRuntime, "cudaMalloc", 11, 1, 20, 100, 200));
  t.ranges.push_back(Range(t, 1, 0, "r", 13, 100, 200));
  t.ranges.push_back(Range(t, 2, 0, "r", 13, 300, 400));
  const std::string json = Write(t);
  EXPECT_EQ(LinesWith(json, R"("name":"thread_sort_index")").size(), 3u);
  for (int tid : {11, 12, 13}) {
    const std::string line = R"("pid":10,"tid":)" + std::to_string(tid) +
                             R"(,"args":{"sort_index":)" + std::to_string(tid) + "}}";
    EXPECT_EQ(LinesWith(json, line).size(), 1u) << line;
  }
}

TEST(ChromeTraceWriter, TimesAreRelativeToBase) {
  Trace t;  // start_ns 0: the earliest record is the base
  t.api.push_back(Api(t, ApiDomain::kRuntime, "cudaLaunchKernel", 1, 1, 211, 5000, 6500));
  t.gpu.push_back(Kernel(t, "k", 7001, 7000, 1));  // end before start: dur 0
  std::string json = Write(t);
  EXPECT_NE(json.find(R"("baseTimeNanoseconds": 5000,)"), std::string::npos);
  EXPECT_EQ(LinesWith(json, R"("ts":0.000,"dur":1.500,)").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("ts":2.001,"dur":0.000,)").size(), 1u);

  t.start_ns = 6000;  // records before the window start clamp to 0
  json = Write(t);
  EXPECT_EQ(LinesWith(json, R"("ts":0.000,"dur":1.500,)").size(), 1u);
  EXPECT_EQ(LinesWith(json, R"("ts":1.001,"dur":0.000,)").size(), 1u);
}

bool HavePython() { return std::system("command -v python3 >/dev/null 2>&1") == 0; }

// Parses `path` with Python's json module and checks the s/f pairing.
void ExpectValidJson(const std::string& path) {
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
  Status valid = CheckTraceForViewers(ReadFile(path));
  EXPECT_TRUE(valid.ok()) << path << ": " << valid.ToString();
#endif
  if (!HavePython()) GTEST_SKIP() << "python3 not found";
  const std::string cmd =
      "python3 -c 'import json,sys,collections\n"
      "d = json.load(open(sys.argv[1], encoding=\"utf-8\"))\n"
      "ev = d[\"traceEvents\"]\n"
      "s = collections.Counter(e[\"id\"] for e in ev if e[\"ph\"] == \"s\")\n"
      "f = collections.Counter(e[\"id\"] for e in ev if e[\"ph\"] == \"f\")\n"
      "assert s == f and all(n == 1 for n in s.values()), (s, f)\n"
      "assert all(e.get(\"ts\", 0) >= 0 and e.get(\"dur\", 0) >= 0 for e in ev)\n"
      "' " +
      path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << path << " is not valid JSON";
}

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/chrome_trace_writer_test.XXXXXX";
    path_ = mkdtemp(name);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ChromeTraceWriter, FileIsValidJsonAndRenamedIntoPlace) {
  TempDir dir;
  const std::string path = dir.path() + "/trace.json";
  Status s = WriteChromeTraceFile(SampleTrace(), path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadFile(path), Write(SampleTrace()));
  EXPECT_NE(access(path.c_str(), F_OK), -1);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u) << "the temporary file is renamed";
  ExpectValidJson(path);
  ASSERT_TRUE(WriteChromeTraceFile(RangesTrace(), path).ok());
  ExpectValidJson(path);
}

TEST(ChromeTraceWriter, ArbitraryBytesStillGiveValidJson) {
  Trace t;
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255), len(0, 40);
  auto random_string = [&] {
    std::string s(static_cast<size_t>(len(rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(rng));
    return s;
  };
  t.process_name = random_string();
  t.trace_name = random_string();
  for (uint32_t i = 0; i < 200; ++i) {
    t.api.push_back(Api(t, ApiDomain::kRuntime, random_string(), i, i + 1, 1, 100 + i, 200 + i));
    GpuActivity k = Kernel(t, "_Z" + random_string(), 300 + i, 400 + i, i + 1);
    k.capture_range_id = i + 1;
    t.gpu.push_back(k);
    t.thread_names.emplace_back(i, random_string());
    UserRange r = Range(t, i + 1, (i + 1) / 2, random_string(), i, 100 + i, 500 + i);
    r.domain = t.strings.Intern(random_string());
    t.ranges.push_back(r);
    t.external.push_back(ExternalCorrelation{i + 1, i + 1, ExternalKind::kUserRange});
  }
  BuildDeviceSpans(t);
  t.counters.emplace_back(random_string(), 1);
  TempDir dir;
  const std::string path = dir.path() + "/fuzz.json";
  ASSERT_TRUE(WriteChromeTraceFile(t, path).ok());
  ExpectValidJson(path);
}

TEST(ChromeTraceWriter, ClearErrorForMissingDirectory) {
  Status s = WriteChromeTraceFile(Trace{}, "/nonexistent-nodescope-dir/trace.json");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent-nodescope-dir/trace.json.tmp"), std::string::npos)
      << s.ToString();
}

TEST(ChromeTraceWriter, ClearErrorForReadOnlyDirectory) {
  if (geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  Status s = WriteChromeTraceFile(Trace{}, dir.path() + "/trace.json");
  chmod(dir.path().c_str(), 0755);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  EXPECT_NE(s.message().find("writable"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace nodescope
