// CaptureTracker: ranges by node in launch order, per capturing stream, kept by graph.
#include "backends/rocprofiler/rocprofiler_capture.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace nodescope::rocprofiler
