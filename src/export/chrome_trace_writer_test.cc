// Tests of the Chrome-trace writer: golden files, graph keys, ac2g flows, user ranges, metadata,
// JSON validity. Device spans' widening: chrome_trace_device_spans_test.cc.
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
#include "export/chrome_trace_writer_test_support.h"
#if NODESCOPE_BUILDFLAG(HAVE_SIMDJSON)
#include "export/trace_validity.h"
#endif

namespace nodescope {
namespace {

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

TEST(ChromeTraceWriter, DeviceLaunchedWorkSaysSo) {
  Trace t = SampleTrace();
  EXPECT_EQ(LinesWith(Write(t), R"("device launched":1)").size(), 0u) << "host-launched: no arg";
  t.gpu[0].device_launched = 1;
  std::vector<std::string> lines = LinesWith(Write(t), R"("device launched":1)");
  ASSERT_EQ(lines.size(), 1u);
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
  EXPECT_NE(
      json.find(
          R"("dropped_records":{"vendor_dropped":3,"buffers_refused":1,)"
          R"("store_full":2,"unknown_records":5,"total":5},"ranges":{"recorded":0,)"
          R"("unbalanced_pops":0,"open_at_end":0,"ended_on_other_thread":0,)"
          R"("ended_at_thread_exit":0,"unknown_ends":0,"dropped":0,"device_spans":0},"graph_execs":1},)"),
      std::string::npos);
  EXPECT_NE(json.find("\n  \"cupti_version\": 130001,\n"), std::string::npos);
}

TEST(ChromeTraceWriter, RangeCountersInMetadata) {
  std::string json = Write(RangesTrace());
  EXPECT_NE(json.find(R"("ranges":{"recorded":7,"unbalanced_pops":1,"open_at_end":1,)"
                      R"("ended_on_other_thread":1,"ended_at_thread_exit":1,"unknown_ends":2,)"
                      R"("dropped":3,"device_spans":8},)"
                      R"("unresolved_range_links":1})"),
            std::string::npos);
}

TEST(ChromeTraceWriter, UserRangesOnTheirThreads) {
  std::string json = Write(RangesTrace());
  std::vector<std::string> cpu = LinesWith(json, R"("cat":"user_annotation")");
  ASSERT_EQ(cpu.size(), 7u);
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
  EXPECT_EQ(LinesWith(json, R"("tid":4244,"ts":91.000,"dur":3.000,)"
                            R"("args":{"External id":7,"ended at thread exit":true}})")
                .size(),
            1u);
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

// The exec DAGs: before "traceEvents", only those of graphs the records name, one per line.
Trace DagTrace() {
  Trace t;
  t.pid = 42;
  t.start_ns = kBase;
  const uint64_t g = uint64_t{5} << 32;
  for (uint64_t i = 0; i < 2; ++i) {
    GpuActivity a = Kernel(t, "k", kBase + 1000 * (i + 1), kBase + 1000 * (i + 1) + 500, 9);
    a.graph_id = 5;
    a.graph_node_id = g | i;
    t.gpu.push_back(a);
  }
  GraphDag five;
  five.graph_id = 5;
  five.device = 0;
  five.nodes = {{g | 0, DagNodeType::kKernel, 0},
                {g | 1, DagNodeType::kKernel, 0},
                {g | 2, DagNodeType::kEmpty, 0}};
  five.edges = {{g | 0, g | 2, DagEdgeType::kFull}, {g | 2, g | 1, DagEdgeType::kProgrammatic}};
  five.renamed = {{g | 0xfffffffful, g | 1}};
  GraphDag six;
  six.graph_id = 6;
  six.complete = false;
  t.graph_dags = {std::make_shared<const GraphDag>(five), std::make_shared<const GraphDag>(six)};
  return t;
}

TEST(ChromeTraceWriter, WritesTheDagsOfGraphsItsRecordsName) {
  const std::string json = Write(DagTrace());
  const std::vector<std::string> dags = LinesWith(json, "    {\"graph id\":");
  ASSERT_EQ(dags.size(), 1u) << json;
  EXPECT_EQ(dags[0],
            "    {\"graph id\":5,\"device\":0,\"complete\":true,\"nodes\":[[21474836480,"
            "\"kernel\",0],[21474836481,\"kernel\",0],[21474836482,\"empty\",0]],\"edges\":"
            "[[21474836480,21474836482,\"full\"],[21474836482,21474836481,\"programmatic\"]],"
            "\"renamed\":[[25769803775,21474836481]]}");
  EXPECT_LT(json.find("\"nodescopeGraphs\""), json.find("\"traceEvents\""));
}

TEST(ChromeTraceWriter, NoDagsNoKey) {
  Trace t = DagTrace();
  t.gpu.ForEachFrom(0, [](GpuActivity& a) { a.graph_id = 0, a.graph_node_id = 0; });
  EXPECT_EQ(Write(t).find("nodescopeGraphs"), std::string::npos);
}

}  // namespace
}  // namespace nodescope
