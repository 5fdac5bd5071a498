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

}  // namespace
}  // namespace nodescope::rocprofiler
