// Tests of the GPU activity table and the file check on the analysis library's test traces.
#include "analysis/stats/gpu_activity.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "analysis/stats/node_series.h"

namespace nodescope::analysis {
namespace {

std::string Testdata(const std::string& name) {
  return std::string(NODESCOPE_TESTDATA_DIR) + "/" + name;
}

TEST(GpuActivityTest, OneRowPerGpuEventWithKeysAndOrdinals) {
  StatusOr<GpuActivityTable> t = CollectGpuActivities(Testdata("merged_4x2.json"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  StatusOr<AliasReport> report = CheckTraceFile(Testdata("merged_4x2.json"));
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(t->size(), report->gpu_events);
  ASSERT_GT(t->size(), 0u);
  EXPECT_EQ(t->strings[t->name[0]], "void gemm(float*)");
  EXPECT_EQ(t->strings[t->cat[0]], "kernel");
  EXPECT_EQ(t->graph_id[0], 1);
  EXPECT_EQ(t->node_id[0], int64_t{1} << 32);
  EXPECT_EQ(t->ordinal[0], 0);
  EXPECT_EQ(t->device[0], 100);
  EXPECT_EQ(t->correlation[0], 1);
  std::set<int64_t> ranks(t->rank.begin(), t->rank.end());
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1, 2, 3}));
}

TEST(GpuActivityTest, GzipReadsTheSameRows) {
  StatusOr<GpuActivityTable> plain = CollectGpuActivities(Testdata("clean.json"));
  StatusOr<GpuActivityTable> packed = CollectGpuActivities(Testdata("clean.json.gz"));
  ASSERT_TRUE(plain.ok() && packed.ok());
  EXPECT_EQ(plain->ts_us, packed->ts_us);
  EXPECT_EQ(plain->node_id, packed->node_id);
}

TEST(GpuActivityTest, RefusedEventsAreErrorsWithTheirByte) {
  for (const char* name : {"refused_dur.json", "truncated.json"}) {
    StatusOr<GpuActivityTable> t = CollectGpuActivities(Testdata(name));
    ASSERT_FALSE(t.ok()) << name;
    EXPECT_EQ(t.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(t.status().message().find(": byte "), std::string::npos) << t.status().message();
    EXPECT_FALSE(CheckTraceFile(Testdata(name)).ok());
  }
}

TEST(GpuActivityTest, KindNamesKernelsCopiesAndFills) {
  // clean.json: 27 kernels, 5 "gpu_memcpy", 5 "gpu_memset" (and 5 runtime calls, not rows).
  StatusOr<GpuActivityTable> t = CollectGpuActivities(Testdata("clean.json"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->kind.size(), t->size());
  std::map<std::string, std::set<std::string>> kinds;  // cat -> kind names
  for (size_t i = 0; i < t->size(); ++i) {
    kinds[t->strings[t->cat[i]]].insert(kGpuActivityKindNames[t->kind[i]]);
  }
  EXPECT_EQ(kinds,
            (std::map<std::string, std::set<std::string>>{
                {"kernel", {"kernel"}}, {"gpu_memcpy", {"memcpy"}}, {"gpu_memset", {"memset"}}}));
  EXPECT_EQ(t->size(), 37u);
}

// CollectNodeSeriesPerProcess's second visitor (the Python package's load() counts the keys
// with it): it sees every event the grouping accepted, the nodes are the same, and its error
// stops the read.
TEST(GpuActivityTest, NodeSeriesHandsEveryEventToASecondVisitor) {
  const std::string path = Testdata("merged_4x2.json");
  uint64_t seen = 0;
  StatusOr<std::vector<GraphNodes>> also =
      CollectNodeSeriesPerProcess(path, nullptr, {}, [&seen](const TraceEvent&) {
        ++seen;
        return OkStatus();
      });
  StatusOr<std::vector<GraphNodes>> plain = CollectNodeSeriesPerProcess(path);
  StatusOr<AliasReport> report = CheckTraceFile(path);
  ASSERT_TRUE(also.ok() && plain.ok() && report.ok());
  EXPECT_EQ(seen, report->events);
  ASSERT_EQ(also->size(), plain->size());
  for (size_t p = 0; p < plain->size(); ++p) {
    EXPECT_EQ((*also)[p].nodes.size(), (*plain)[p].nodes.size());
  }
  StatusOr<std::vector<GraphNodes>> stopped = CollectNodeSeriesPerProcess(
      path, nullptr, {}, [](const TraceEvent&) { return InternalError("enough"); });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), "enough");
}

}  // namespace
}  // namespace nodescope::analysis
