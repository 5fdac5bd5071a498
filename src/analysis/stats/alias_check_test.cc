// Tests of the alias check on small hand-written traces: clean, aliased, inconsistent, torch-style.
#include "analysis/stats/alias_check.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope::analysis {
namespace {

StatusOr<AliasReport> Check(std::string_view json, const AliasCheckOptions& options = {}) {
  AliasChecker checker(options);
  ASSIGN_OR_RETURN(TraceMetadata meta, ReadTraceText("trace.json", json, [&](const TraceEvent& e) {
                     checker.Add(e);
                     return OkStatus();
                   }));
  return checker.Finish(meta);
}

// A kernel event on graph `graph`, node `index` of that graph.
std::string Kernel(std::string_view name, uint64_t graph, uint64_t index) {
  return R"({"ph":"X","cat":"kernel","name":")" + std::string(name) +
         R"(","pid":0,"tid":7,"ts":1.0,"dur":2.0,"args":{"graph id":)" + std::to_string(graph) +
         R"(,"graph node id":)" + std::to_string(graph << 32 | index) + "}}";
}

std::string Trace(const std::vector<std::string>& events, std::string_view nodescope = "") {
  std::string json = "{";
  if (!nodescope.empty()) json += "\"nodescope\":" + std::string(nodescope) + ",";
  json += "\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "\n") + events[i];
  return json + "]}";
}

TEST(ClassifyCategory, KinetoAndOldTorchNames) {
  EXPECT_EQ(ClassifyCategory("kernel"), GpuEventKind::kKernel);
  EXPECT_EQ(ClassifyCategory("Kernel"), GpuEventKind::kKernel);
  EXPECT_EQ(ClassifyCategory("gpu_memcpy"), GpuEventKind::kCopy);
  EXPECT_EQ(ClassifyCategory("Memcpy"), GpuEventKind::kCopy);
  EXPECT_EQ(ClassifyCategory("gpu_memset"), GpuEventKind::kFill);
  EXPECT_EQ(ClassifyCategory("MEMSET"), GpuEventKind::kFill);
  EXPECT_EQ(ClassifyCategory("cuda_runtime"), GpuEventKind::kNone);
  EXPECT_EQ(ClassifyCategory("gpu_user_annotation"), GpuEventKind::kNone);
  EXPECT_EQ(ClassifyCategory(""), GpuEventKind::kNone);
}

TEST(AliasCheck, CleanReplays) {
  // Two graphs: 3 nodes x 4 replays and 1 node x 2 replays, plus a copy, a fill and a flow.
  std::vector<std::string> events;
  for (int replay = 0; replay < 4; ++replay) {
    for (uint64_t node = 0; node < 3; ++node)
      events.push_back(Kernel("k" + std::to_string(node), 5, node));
  }
  events.push_back(Kernel("other", 6, 0));
  events.push_back(Kernel("other", 6, 0));
  events.push_back(R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":8})");
  events.push_back(R"({"ph":"X","cat":"gpu_memset","name":"Memset","pid":0,"tid":8})");
  events.push_back(R"({"ph":"f","cat":"kernel","name":"not counted","args":{"graph id":9}})");
  events.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1})");
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->events, 18u);
  EXPECT_EQ(r->gpu_events, 16u);
  EXPECT_EQ(r->kernels, 14u);
  EXPECT_EQ(r->copies, 1u);
  EXPECT_EQ(r->fills, 1u);
  EXPECT_EQ(r->with_both_keys, 14u);
  EXPECT_EQ(r->graph_ids, 2u);
  EXPECT_EQ(r->node_ids, 4u);
  EXPECT_EQ(r->keys, 4u);
  EXPECT_EQ(r->min_per_node, 2u);
  EXPECT_EQ(r->median_per_node, 4.0);
  EXPECT_EQ(r->max_per_node, 4u);
  EXPECT_TRUE(r->aliased.empty());
  EXPECT_TRUE(r->mismatched.empty());
  EXPECT_EQ(r->one_key_only, 0u);
  EXPECT_TRUE(r->clean());
  EXPECT_EQ(r->verdict(), "clean");
}

TEST(AliasCheck, ExecUpdateAliasesEveryKey) {
  // CUPTI after cudaGraphExecUpdate: the same (graph id, node id) now runs a different kernel.
  std::vector<std::string> events;
  for (int replay = 0; replay < 6; ++replay) {
    for (uint64_t node = 0; node < 4; ++node) {
      std::string before = "void before" + std::to_string(node) + "(float*)";
      std::string after = "void after" + std::to_string(node) + "(float*)";
      events.push_back(Kernel(replay < 2 ? before : after, 3, node));
    }
  }
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->with_both_keys, 24u);
  EXPECT_EQ(r->node_ids, 4u);
  EXPECT_EQ(r->min_per_node, 6u);
  ASSERT_EQ(r->aliased.size(), 4u);
  const AliasedKey& first = r->aliased[0];
  EXPECT_EQ(first.key.graph_id, 3u);
  EXPECT_EQ(first.key.node_id, 3ull << 32);
  ASSERT_EQ(first.names.size(), 2u);
  EXPECT_EQ(first.names[0].name, "void after0(float*)");  // most frequent first
  EXPECT_EQ(first.names[0].count, 4u);
  EXPECT_EQ(first.names[1].name, "void before0(float*)");
  EXPECT_EQ(first.names[1].count, 2u);
  EXPECT_EQ(r->aliased[3].key.node_id, 3ull << 32 | 3);
  EXPECT_TRUE(r->mismatched.empty());
  EXPECT_FALSE(r->clean());
  EXPECT_EQ(r->verdict(), "aliased");
}

TEST(AliasCheck, NodeIdOfAnotherGraph) {
  std::vector<std::string> events = {
      Kernel("a", 5, 0),
      R"({"ph":"X","cat":"kernel","name":"b","args":{"graph id":5,"graph node id":30064771072}})",
      R"({"ph":"X","cat":"kernel","name":"b","args":{"graph id":5,"graph node id":30064771072}})",
      R"({"ph":"X","cat":"kernel","name":"c","args":{"graph id":2,"graph node id":4}})"};
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->mismatched.size(), 2u);
  EXPECT_EQ(r->mismatched[0].key, (GraphKey{2, 4}));
  EXPECT_EQ(r->mismatched[0].name, "c");
  EXPECT_EQ(r->mismatched[1].key, (GraphKey{5, 7ull << 32}));
  EXPECT_EQ(r->mismatched[1].events, 2u);
  EXPECT_EQ(r->mismatched[1].name, "b");
  EXPECT_TRUE(r->aliased.empty());
  EXPECT_TRUE(r->inconsistent());
  EXPECT_EQ(r->verdict(), "inconsistent");
}

TEST(AliasCheck, OneKeyWithoutTheOther) {
  std::vector<std::string> events = {
      Kernel("a", 1, 0), R"({"ph":"X","cat":"kernel","name":"only graph","args":{"graph id":1}})",
      R"({"ph":"X","cat":"gpu_memcpy","name":"only node","args":{"graph node id":4294967296}})"};
  std::string json = Trace(events);
  auto r = Check(json);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->one_key_only, 2u);
  EXPECT_EQ(r->with_both_keys, 1u);
  ASSERT_EQ(r->one_key_examples.size(), 2u);
  EXPECT_EQ(r->one_key_examples[0].name, "only graph");
  EXPECT_EQ(r->one_key_examples[0].graph_id, 1u);
  EXPECT_FALSE(r->one_key_examples[0].node_id.has_value());
  EXPECT_EQ(json.substr(r->one_key_examples[1].offset, 9), "{\"ph\":\"X\"");
  EXPECT_EQ(r->verdict(), "inconsistent");
}

TEST(AliasCheck, ZeroKeysMeanOutsideAGraph) {
  std::vector<std::string> events = {
      Kernel("a", 1, 0),
      R"({"ph":"X","cat":"kernel","name":"x","args":{"graph id":0,"graph node id":0}})",
      R"({"ph":"X","cat":"kernel","name":"y","args":{"graph id":0,"graph node id":0}})"};
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->zero_keys, 2u);
  EXPECT_EQ(r->with_both_keys, 1u);
  EXPECT_TRUE(r->clean());
}

TEST(AliasCheck, AliasedAndInconsistentTogether) {
  std::vector<std::string> events = {
      Kernel("a", 1, 0), Kernel("b", 1, 0),
      R"({"ph":"X","cat":"kernel","name":"x","args":{"graph node id":1}})"};
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), "aliased, inconsistent");
}

// A merged trace (`nodescope merge`): two ranks' processes (pids in slots 0 and 1) with the
// same graph and node ids running different kernels. A key is (process, graph id, node id), so
// that is clean; the same within one process is aliased.
TEST(AliasCheck, KeysOfAMergedTraceArePerProcess) {
  auto in_slot = [](std::string event, uint32_t slot) {
    const std::string pid = "\"pid\":" + std::to_string((uint64_t{slot} << 22) | 7);
    return event.replace(event.find("\"pid\":0"), 7, pid);
  };
  const std::string merged = R"({"merged":[{"rank":0},{"rank":1}]})";
  auto r = Check(Trace({in_slot(Kernel("gemm", 2, 0), 0), in_slot(Kernel("relu", 2, 0), 1),
                        in_slot(Kernel("gemm", 2, 0), 0), in_slot(Kernel("relu", 2, 1), 1)},
                       merged));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->clean()) << r->verdict();
  EXPECT_EQ(r->keys, 3u);
  EXPECT_EQ(r->graph_ids, 2u);  // graph 2 of each process
  EXPECT_EQ(r->node_ids, 3u);
  EXPECT_EQ(r->merged_ranks, (std::vector<int64_t>{0, 1}));
  r = Check(Trace({in_slot(Kernel("gemm", 2, 0), 1), in_slot(Kernel("relu", 2, 0), 1)}, merged));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->aliased.size(), 1u);
  EXPECT_EQ(r->aliased[0].key.process, 1u);
}

TEST(AliasCheck, TorchTraceWithoutGraphKeysIsClean) {
  auto r = Check(R"({"schemaVersion":1,"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":"Spans","tid":"Traces","ts":1,"dur":2,
     "args":{"External id":1}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":3,"dur":1,
     "args":{"External id":1,"correlation":42}},
    {"ph":"X","cat":"Memcpy","name":"Memcpy DtoH","pid":0,"tid":7,"ts":5,"dur":1},
    {"ph":"i","s":"g","name":"Iteration Start: PyTorch Profiler","pid":"Traces","tid":"Trace"}
  ]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gpu_events, 2u);
  EXPECT_EQ(r->copies, 1u);
  EXPECT_EQ(r->with_both_keys, 0u);
  EXPECT_EQ(r->node_ids, 0u);
  EXPECT_EQ(r->min_per_node, 0u);
  EXPECT_EQ(r->max_per_node, 0u);
  EXPECT_FALSE(r->has_nodescope_metadata);
  EXPECT_TRUE(r->clean());
}

TEST(AliasCheck, WithheldAndDroppedComeFromTheMetadata) {
  auto r = Check(Trace({Kernel("a", 1, 0)},
                       R"({"version":"0.1.0","dropped_records":{"total":12},
                           "attribution":{"mode":"native","fresh_graph_ids":1,
                                          "withheld":{"exec_changed":3,"unknown_exec":0}}})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->has_nodescope_metadata);
  EXPECT_EQ(r->dropped_total, 12u);
  ASSERT_EQ(r->withheld.size(), 2u);
  EXPECT_EQ(r->withheld[0], (std::pair<std::string, uint64_t>{"exec_changed", 3}));
  EXPECT_TRUE(r->clean());  // withheld keys are not aliased ones
}

TEST(AliasCheck, EvenMedianAndManyKeys) {
  std::vector<std::string> events;
  for (uint64_t node = 0; node < 4; ++node) {
    for (uint64_t i = 0; i <= node; ++i) events.push_back(Kernel("k", 9, node));
  }
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->min_per_node, 1u);
  EXPECT_EQ(r->median_per_node, 2.5);
  EXPECT_EQ(r->max_per_node, 4u);
}

TEST(AliasCheck, BadInputIsAnErrorNotAReport) {
  EXPECT_EQ(Check(R"({"traceEvents":[{"args":{"graph id":"1"}}]})").status().code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(Check(R"({"traceEvents":[)").status().code(), StatusCode::kDataLoss);
}

// Memory bounds (issue 9): keys past max_keys are counted, not held, and the verdict says the
// check is incomplete; small limits stand in for the millions of keys of a real trace.
TEST(AliasCheckLimits, KeysPastTheLimitAreCountedAndMakeItIncomplete) {
  std::vector<std::string> events;
  for (int replay = 0; replay < 3; ++replay) {
    for (uint64_t node = 0; node < 5; ++node) events.push_back(Kernel("k", 4, node));
  }
  events.push_back(Kernel("other", 4, 1));  // key 1 aliased: held, so found
  AliasCheckOptions options;
  options.max_keys = 2;
  auto r = Check(Trace(events), options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->keys, 2u);
  EXPECT_EQ(r->max_keys, 2u);
  EXPECT_EQ(r->with_both_keys, 16u);
  EXPECT_EQ(r->unchecked_events, 9u);  // keys 2, 3, 4: three replays each
  EXPECT_FALSE(r->complete());
  EXPECT_FALSE(r->clean());
  ASSERT_EQ(r->aliased.size(), 1u);
  EXPECT_EQ(r->verdict(), "aliased, incomplete");

  events.pop_back();
  r = Check(Trace(events), options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), "incomplete");
  EXPECT_FALSE(r->clean());
  // Within the limit: complete, clean, as before.
  options.max_keys = 5;
  r = Check(Trace(events), options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unchecked_events, 0u);
  EXPECT_EQ(r->verdict(), "clean");
}

TEST(AliasCheckLimits, NamesPerKeyAreBounded) {
  std::vector<std::string> events;
  for (int name = 0; name < 12; ++name) {
    events.push_back(Kernel("name" + std::to_string(name), 4, 0));
    if (name < 2) events.push_back(Kernel("name" + std::to_string(name), 4, 0));
  }
  events.push_back(Kernel("name11", 4, 0));  // a name past the list: counted with the others
  auto r = Check(Trace(events));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->aliased.size(), 1u);
  const AliasedKey& a = r->aliased[0];
  EXPECT_EQ(a.names.size(), AliasCheckOptions::kNamesPerKey);
  EXPECT_EQ(a.names[0].name, "name0");
  EXPECT_EQ(a.names[0].count, 2u);
  EXPECT_EQ(a.other_name_events, 5u);  // name8..name11, name11 twice
  EXPECT_TRUE(r->complete());          // every event of the key was checked
  EXPECT_EQ(r->verdict(), "aliased");
}

TEST(AliasCheckLimits, NameBytesAreBounded) {
  AliasCheckOptions options;
  options.max_name_bytes = 10 + NamePool::kPerNameBytes;  // "short" fits, nothing more
  auto r = Check(Trace({Kernel("short", 4, 0), Kernel("a_much_longer_name", 4, 1),
                        Kernel("short", 4, 2), Kernel("short", 4, 0)}),
                 options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->keys, 2u);  // keys 0 and 2 share the one name held
  EXPECT_EQ(r->unchecked_events, 1u);
  EXPECT_EQ(r->verdict(), "incomplete");
}

}  // namespace
}  // namespace nodescope::analysis
