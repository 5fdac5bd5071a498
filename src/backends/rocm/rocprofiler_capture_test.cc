// CaptureTracker: ranges by node in launch order, per capturing stream, kept by graph.
#include "backends/rocm/rocprofiler_capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

namespace nodescope::rocprofiler {
namespace {

using Ranges = std::vector<uint64_t>;

TEST(CaptureTracker, RangesInLaunchOrderPerStream) {
  CaptureTracker c;
  c.KernelLaunched(0x10, 5);  // not capturing: ignored
  c.BeginCapture(0x10);
  c.BeginCapture(0x20);
  c.KernelLaunched(0x10, 1);
  c.KernelLaunched(0x20, 9);
  c.KernelLaunched(0x30, 7);  // another stream, not capturing
  c.KernelLaunched(0x10, 2);
  c.KernelLaunched(0x10, 0);
  c.EndCapture(0x10, 0xa00);
  c.EndCapture(0x20, 0);  // failed: no graph
  EXPECT_EQ(c.RangesOf(0xa00), (Ranges{1, 2, 0}));
  EXPECT_TRUE(c.RangesOf(0).empty());
  c.KernelLaunched(0x10, 3);  // capture over
  EXPECT_EQ(c.RangesOf(0xa00), (Ranges{1, 2, 0}));
  c.GraphDestroyed(0xa00);  // the address may come back as another graph
  EXPECT_TRUE(c.RangesOf(0xa00).empty());
}

TEST(CaptureTracker, BuiltGraphsFollowedOnlyAsChains) {
  CaptureTracker c;
  const uint64_t n1 = 0x1, n2 = 0x2, both[] = {0x1, 0x2};
  c.KernelNodeAdded(0xa00, n1, nullptr, 0, 4);
  c.KernelNodeAdded(0xa00, n2, &n1, 1, 5);
  c.KernelNodeAdded(0xa00, 0x3, &n2, 1, 0);
  EXPECT_EQ(c.RangesOf(0xa00), (Ranges{4, 5, 0}));
  c.KernelNodeAdded(0xb00, n1, nullptr, 0, 4);  // a fan: root -> two children
  c.KernelNodeAdded(0xb00, n2, &n1, 1, 5);
  c.KernelNodeAdded(0xb00, 0x3, &n1, 1, 6);
  EXPECT_TRUE(c.RangesOf(0xb00).empty());
  c.KernelNodeAdded(0xc00, n2, both, 2, 4);  // depends on nodes never seen
  EXPECT_TRUE(c.RangesOf(0xc00).empty());
  c.BeginCapture(0x10);
  c.KernelLaunched(0x10, 7);
  c.EndCapture(0x10, 0xd00);
  c.KernelNodeAdded(0xd00, n1, nullptr, 0, 7);  // a captured graph edited: its nodes are unknown
  EXPECT_TRUE(c.RangesOf(0xd00).empty());
}

using ByKernel = std::vector<std::pair<std::string, uint64_t>>;

// A capture on 0x10 forked to 0x20 by event 0xe1 and joined back by 0xe2: followed by kernel.
TEST(CaptureTracker, ForkedCaptureGoesByKernel) {
  CaptureTracker c;
  c.HostKernel(0xf1, "a");
  c.HostKernel(0xf2, "b");
  c.HostKernel(0xf3, "c");
  c.HostKernel(0xf4, "d");
  c.EventRecorded(0xe1, 0x10);  // not capturing: nothing
  c.BeginCapture(0x10);
  c.KernelLaunched(0x10, 1, 0xf1);
  c.EventRecorded(0xe1, 0x10);
  c.StreamWaited(0x20, 0xe1);  // the fork
  c.KernelLaunched(0x20, 2, 0xf2);
  c.KernelLaunched(0x10, 1, 0xf3);
  c.KernelLaunched(0x20, 2, 0xf2);  // b twice, under one range: still placed
  c.EventRecorded(0xe2, 0x20);
  c.StreamWaited(0x10, 0xe2);  // the join
  c.KernelLaunched(0x10, 0, 0xf4);
  c.EndCapture(0x10, 0xa00);
  c.KernelLaunched(0x20, 9, 0xf1);  // 0x20 left the capture with it
  uint32_t launches = 0;
  ByKernel by = c.KernelRangesOf(0xa00, &launches);
  std::sort(by.begin(), by.end());
  EXPECT_EQ(by, (ByKernel{{"a", 1}, {"b", 2}, {"c", 1}}));
  EXPECT_EQ(launches, 5u);
  EXPECT_TRUE(c.RangesOf(0xa00).empty()) << "capture order is not run order";
  EXPECT_EQ(c.unscoped_launches(), 0u);
}

TEST(CaptureTracker, ForkedKernelUnderTwoRangesOrUnknownIsCountedNotGuessed) {
  CaptureTracker c;
  c.HostKernel(0xf1, "a");
  c.BeginCapture(0x10);
  c.KernelLaunched(0x10, 1, 0xf1);
  c.EventRecorded(0xe1, 0x10);
  c.StreamWaited(0x20, 0xe1);
  c.KernelLaunched(0x20, 2, 0xf1);  // "a" again, under another range: which node is which?
  c.KernelLaunched(0x20, 3, 0xf9);  // no host symbol seen
  c.KernelLaunched(0x20, 0, 0xf8);  // unknown but under no range: nothing lost
  c.EventRecorded(0xe2, 0x20);
  c.StreamWaited(0x10, 0xe2);
  c.EndCapture(0x10, 0xa00);
  uint32_t launches = 0;
  EXPECT_TRUE(c.KernelRangesOf(0xa00, &launches).empty());
  EXPECT_EQ(launches, 4u);
  EXPECT_EQ(c.unscoped_launches(), 3u);
  c.KernelNodeAdded(0xa00, 0x1, nullptr, 0, 5);  // edited after capture: forgotten
  EXPECT_EQ((c.KernelRangesOf(0xa00, &launches), launches), 0u);
}

}  // namespace
}  // namespace nodescope::rocprofiler
