// Tests of `nodescope merge` on synthetic traces of two ranks (synthetic_job.h): the
// result is one valid trace, each rank a process of its own, every event at its own time on one
// axis, flow ids kept apart, graph keys kept per rank; errors name the file and the byte.
#include "analysis/merge/trace_merge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/merge/synthetic_job.h"
#include "analysis/reader/trace_reader.h"
#include "analysis/stats/node_series.h"
#include "export/trace_validity.h"

namespace nodescope::analysis {
namespace {

using namespace synthetic;

struct Kernel {
  uint32_t slot = 0;
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  int64_t start_ns = 0;  // absolute, base + ts
};

std::vector<Kernel> Kernels(const std::string& name, const std::string& json,
                            analysis::TraceMetadata* meta = nullptr) {
  std::vector<Kernel> out;
  auto read = analysis::ReadTraceText(name, json, [&](const TraceEvent& e) {
    if (e.cat == "kernel") {
      out.push_back({analysis::ProcessSlot(e.pid), *e.graph_id, *e.graph_node_id,
                     std::llround(*e.ts_us * 1000)});
    }
    return OkStatus();
  });
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  for (Kernel& k : out) k.start_ns += static_cast<int64_t>(*read->base_time_ns - kJobStart);
  if (meta != nullptr && read.ok()) *meta = *read;
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TraceMerge, TwoRanksOnOneAxis) {
  JobShape job;
  std::vector<std::string> paths = WriteRankTraces(job);
  StringJsonOutput out;
  // Rank 1 first: slots follow the ranks, not the arguments.
  StatusOr<MergeResult> merged = MergeTraces({paths[1], paths[0]}, out);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const std::string text = out.str();
  Status valid = CheckTraceForViewers(text);
  EXPECT_TRUE(valid.ok()) << valid.ToString();  // flows of both ranks: each id one s, one f

  ASSERT_EQ(merged->inputs.size(), 2u);
  EXPECT_EQ(merged->inputs[0].rank, 0);
  EXPECT_EQ(merged->inputs[0].path, paths[0]);
  EXPECT_EQ(merged->inputs[1].rank, 1);
  EXPECT_EQ(merged->base_time_ns, kJobStart);
  EXPECT_EQ(merged->inputs[0].shift_ns, 0);
  EXPECT_EQ(merged->inputs[1].shift_ns, 1000000);  // rank 1's trace started 1 ms later
  EXPECT_TRUE(merged->notes.empty());

  analysis::TraceMetadata meta;
  std::vector<Kernel> all = Kernels("merged.json", text, &meta);
  EXPECT_EQ(meta.merged_ranks, (std::vector<int64_t>{0, 1}));
  ASSERT_EQ(all.size(), 2u * 4 * 10);
  std::map<uint32_t, std::vector<Kernel>> by_slot;
  for (const Kernel& k : all) by_slot[k.slot].push_back(k);
  ASSERT_EQ(by_slot.size(), 2u);
  for (uint32_t slot : {0u, 1u}) {
    std::vector<Kernel> original = Kernels(paths[slot], Slurp(paths[slot]));
    ASSERT_EQ(by_slot[slot].size(), original.size());
    for (size_t i = 0; i < original.size(); ++i) {
      EXPECT_EQ(by_slot[slot][i].start_ns, original[i].start_ns) << "slot " << slot << " #" << i;
      EXPECT_EQ(by_slot[slot][i].graph_id, 2 + slot);  // keys as they were
      EXPECT_EQ(by_slot[slot][i].node_id, original[i].node_id);
    }
  }
  // The all-reduce of replay 3 on rank 1 starts 50 us after rank 0's, on the merged axis too.
  EXPECT_EQ(by_slot[1][3 * 4 + 2].start_ns - by_slot[0][3 * 4 + 2].start_ns, 50000);
  EXPECT_NE(text.find("\"labels\":\"rank 1\""), std::string::npos);
  EXPECT_NE(text.find("\"pid\":" + std::to_string((1 << 22) | 1001)), std::string::npos);
}

// Each rank's exec DAGs come along, named by the rank's process slot, and reach that process's
// GraphNodes (docs/TRACE-DAG.md).
TEST(TraceMerge, EachRanksDagsKeepTheirProcess) {
  JobShape job;
  char tmpl[] = "/tmp/nodescope-dags-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::vector<std::string> paths;
  for (int r = 0; r < job.ranks; ++r) {
    Trace t = RankTrace(job, r);
    GraphDag dag;
    dag.graph_id = 2 + static_cast<uint64_t>(r);  // each rank's graph id
    for (uint64_t i = 0; i < 4; ++i) {
      dag.nodes.push_back({(dag.graph_id << 32) | i, DagNodeType::kKernel, 0});
      if (i > 0) dag.edges.push_back({(dag.graph_id << 32) | (i - 1), (dag.graph_id << 32) | i});
    }
    t.graph_dags = {std::make_shared<const GraphDag>(dag)};
    paths.push_back(dir + "/rank" + std::to_string(r) + ".json");
    ASSERT_TRUE(WriteChromeTraceFile(t, paths.back()).ok());
  }
  StringJsonOutput out;
  ASSERT_TRUE(MergeTraces({paths[1], paths[0]}, out).ok());
  EXPECT_TRUE(CheckTraceForViewers(out.str()).ok());
  EXPECT_NE(out.str().find("{\"graph id\":3,\"process\":1,"), std::string::npos) << out.str();
  StatusOr<std::vector<GraphNodes>> per = CollectNodeSeriesPerProcessFromText("m.json", out.str());
  ASSERT_TRUE(per.ok()) << per.status().ToString();
  ASSERT_EQ(per->size(), 2u);
  for (uint32_t slot = 0; slot < 2; ++slot) {
    ASSERT_EQ((*per)[slot].dags.size(), 1u) << slot;
    EXPECT_EQ((*per)[slot].dags[0].graph_id, 2u + slot);
    EXPECT_EQ((*per)[slot].dags[0].process, slot);
    EXPECT_EQ((*per)[slot].dags[0].edges.size(), 3u);
  }
}

TEST(TraceMerge, ARealtimeStepOnOneHostIsUndoneByTheBoottimeAnchor) {
  JobShape job;
  std::vector<std::string> paths = WriteRankTraces(job);
  // Rank 1 again, as if the realtime clock had been stepped 2 s forward before it started: its
  // realtime stamps (and base) are 2 s late, its boottime anchor is not.
  Trace stepped = RankTrace(job, 1);
  stepped.start_ns += 2000000000ull;
  stepped.end_ns += 2000000000ull;
  stepped.job.realtime_ns += 2000000000ull;
  for (size_t i = 0; i < stepped.gpu.size(); ++i) {
    stepped.gpu[i].start_ns += 2000000000ull;
    stepped.gpu[i].end_ns += 2000000000ull;
  }
  for (size_t i = 0; i < stepped.api.size(); ++i) {
    stepped.api[i].start_ns += 2000000000ull;
    stepped.api[i].end_ns += 2000000000ull;
  }
  ASSERT_TRUE(WriteChromeTraceFile(stepped, paths[1]).ok());
  StringJsonOutput out;
  StatusOr<MergeResult> merged = MergeTraces(paths, out);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->inputs[1].clock_step_ns, -2000000000);
  ASSERT_EQ(merged->notes.size(), 1u);
  EXPECT_NE(merged->notes[0].find("moved by 2000000 us"), std::string::npos) << merged->notes[0];
  std::vector<Kernel> all = Kernels("merged.json", out.str());
  // Rank 1's all-reduce again 50 us after rank 0's.
  int64_t r0 = 0, r1 = 0;
  for (const Kernel& k : all) {
    if ((k.node_id & 0xffffffff) == 2 && r0 == 0 && k.slot == 0) r0 = k.start_ns;
    if ((k.node_id & 0xffffffff) == 2 && r1 == 0 && k.slot == 1) r1 = k.start_ns;
  }
  EXPECT_EQ(r1 - r0, 50000);
}

TEST(TraceMerge, ErrorsNameTheFileAndTheByte) {
  JobShape job;
  std::vector<std::string> paths = WriteRankTraces(job);
  std::string bad = Slurp(paths[1]);
  const size_t at = bad.find("\"cat\":\"kernel\"");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 14, "\"cat\":kernel\" ");
  std::ofstream(paths[1]) << bad;
  StringJsonOutput out;
  StatusOr<MergeResult> merged = MergeTraces(paths, out);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find(paths[1] + ": byte "), std::string::npos)
      << merged.status().message();

  std::ofstream(paths[1]) << R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":5000000,)"
                          << R"("tid":1,"ts":1,"dur":1}]})";
  merged = MergeTraces(paths, out);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find(": byte 16: \"pid\" 5000000 cannot be renumbered"),
            std::string::npos)
      << merged.status().message();

  // A merged trace is not merged again.
  StringJsonOutput once;
  ASSERT_TRUE(MergeTraces({paths[0]}, once).ok());
  std::ofstream(paths[1]) << once.str();
  merged = MergeTraces(paths, out);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("is a merged trace already"), std::string::npos);
}

// A torch.profiler trace writes baseTimeNanoseconds after its events: read first, all the same.
TEST(TraceMerge, BaseTimeAfterTheEvents) {
  char tmpl[] = "/tmp/nodescope-torchlike-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::ofstream(dir + "/a.json")
      << R"({"distributedInfo":{"rank":1},"traceEvents":[)"
      << R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,)"
      << R"("ts":10.5,"dur":1,"args":{"graph id":1,"graph node id":4294967296}}],)"
      << R"("baseTimeNanoseconds":2000})";
  std::ofstream(dir + "/b.json")
      << R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k",)"
      << R"("pid":0,"tid":1,"ts":1,"dur":1}],"baseTimeNanoseconds":1000})";
  StringJsonOutput out;
  StatusOr<MergeResult> merged = MergeTraces({dir + "/b.json", dir + "/a.json"}, out);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->base_time_ns, 1000u);
  EXPECT_EQ(merged->inputs[0].rank, 1);  // ranked traces first
  EXPECT_EQ(merged->inputs[0].shift_ns, 1000);
  EXPECT_NE(out.str().find(R"("pid":0,"tid":1,"ts":11.500,)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(R"("pid":4194304,"tid":1,"ts":1,)"), std::string::npos) << out.str();
  EXPECT_TRUE(CheckTraceForViewers(out.str()).ok());
}

}  // namespace
}  // namespace nodescope::analysis
