// Tests of the GPU activity table and the file check on the analysis library's test traces.
#include "analysis/stats/gpu_activity.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

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

}  // namespace
}  // namespace nodescope::analysis
