// Tests of the plots' scales: nice ticks, log ticks, units, colours and replay buckets.
#include "analysis/plot/plot_scale.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nodescope::analysis {
namespace {

TEST(NiceTicks, CoverTheRangeWithRoundSteps) {
  EXPECT_EQ(NiceTicks(0, 13.75, 5).values, (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14}));
  EXPECT_EQ(NiceTicks(0, 231, 5).values, (std::vector<double>{0, 50, 100, 150, 200, 250}));
  Ticks small = NiceTicks(0, 0.75, 5);
  EXPECT_EQ(small.decimals, 1);
  EXPECT_DOUBLE_EQ(small.values.back(), 0.8);
  EXPECT_EQ(NiceTicks(0, 0, 5).values.back(), 1);  // empty range: still an axis
  EXPECT_EQ(NiceTicks(1, 200, 6).values.front(), 0);
}

TEST(LogTicks, DensityFollowsTheRoom) {
  EXPECT_EQ(LogTicks(3, 640, 10).values, (std::vector<double>{5, 10, 20, 50, 100, 200, 500}));
  EXPECT_EQ(LogTicks(3, 640, 6).values, (std::vector<double>{3, 10, 30, 100, 300}));
  EXPECT_EQ(LogTicks(3, 640, 2).values, (std::vector<double>{10, 100}));
}

TEST(UnitFor, KeepsLabelsShort) {
  EXPECT_EQ(UnitFor(0.5).name, "ns");
  EXPECT_EQ(UnitFor(0.5).per_us, 1000);
  EXPECT_EQ(UnitFor(250).name, "µs");
  EXPECT_EQ(UnitFor(25000).name, "ms");
}

TEST(Colors, DivergingEndsAndPaletteWraps) {
  EXPECT_EQ(Diverging(0), "#2166ac");    // blue: faster than the median
  EXPECT_EQ(Diverging(1), "#b2182b");    // red: slower
  EXPECT_EQ(Diverging(0.5), "#f7f7f7");  // the median: pale
  EXPECT_EQ(Diverging(-3), "#2166ac");
  EXPECT_EQ(Diverging(7), "#b2182b");
  EXPECT_EQ(Diverging(std::nan("")), "#f7f7f7");
  EXPECT_EQ(SeriesColor(0), SeriesColor(12));
  EXPECT_NE(SeriesColor(0), SeriesColor(11));
}

TEST(BucketDurations, EvenRunsAndMissingTail) {
  std::vector<NodeOccurrence> occ;
  for (int i = 0; i < 7; ++i) occ.push_back({0, static_cast<double>(i + 1), 0});
  std::vector<Bucket> b = BucketDurations(occ, 10, 4);  // replays 0-1, 2-4, 5-6, 7-9
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[1].first, 2u);
  EXPECT_EQ(b[1].last, 4u);
  EXPECT_EQ(b[1].count, 3u);
  EXPECT_DOUBLE_EQ(b[1].mean_us, 4);
  EXPECT_DOUBLE_EQ(b[1].min_us, 3);
  EXPECT_DOUBLE_EQ(b[1].max_us, 5);
  EXPECT_EQ(b[3].count, 0u);  // the node ran only 7 times
  EXPECT_DOUBLE_EQ(DurationQuantile(occ, 0.5), 4);
  EXPECT_DOUBLE_EQ(DurationQuantile(occ, 1), 7);
  EXPECT_DOUBLE_EQ(DurationQuantile({}, 0.5), 0);
}

}  // namespace
}  // namespace nodescope::analysis
