// Fixtures shared by the Chrome-trace writer's tests (chrome_trace_writer_test.cc,
// chrome_trace_device_spans_test.cc): sample traces, writing with the strict-reader checks, golden
// files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "attribution/annotations.h"
#include "base/build_config.h"
#include "export/chrome_trace_writer.h"
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
#include "export/trace_validity.h"
#endif

namespace nodescope {

inline constexpr uint64_t kBase = 1700000000000000000ull;

inline GpuActivity Kernel(Trace& t, std::string_view name, uint64_t start, uint64_t end,
                          uint32_t corr) {
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

inline DeviceProperties H200() {
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
inline Trace SampleTrace() {
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
inline Trace RangesTrace() {
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
                      .ended_at_thread_exit = 1,
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
  UserRange exited = Range(t, 7, 0, "worker body", 4244, kBase + 91000, kBase + 94000);
  exited.flags = kRangeThreadExited;
  t.ranges.push_back(exited);

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
inline std::string Write(const Trace& t) {
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
inline void ExpectNested(const std::string& json) {
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
  Status s = CheckDeviceSpanNesting(json);
  EXPECT_TRUE(s.ok()) << s.ToString();
#else
  (void)json;
#endif
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> LinesWith(const std::string& text, std::string_view needle) {
  std::vector<std::string> out;
  for (const std::string& l : Lines(text)) {
    if (l.find(needle) != std::string::npos) out.push_back(l);
  }
  return out;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Set NODESCOPE_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change.
inline void ExpectGolden(const std::string& actual, const std::string& name) {
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

}  // namespace nodescope
