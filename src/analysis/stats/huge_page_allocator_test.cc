// Tests of the column allocator: small and large blocks hold their values; large ones are
// aligned to the huge page.
#include "analysis/stats/huge_page_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace nodescope::analysis {
namespace {

TEST(HugePageAllocatorTest, SmallAndLargeColumnsHoldTheirValues) {
  for (size_t n : {size_t{0}, size_t{10}, kHugePageBytes / 8 - 1, kHugePageBytes / 8 * 3 + 5}) {
    Column<int64_t> c;
    for (size_t i = 0; i < n; ++i) c.push_back(static_cast<int64_t>(i) * 3);
    ASSERT_EQ(c.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(c[i], static_cast<int64_t>(i) * 3);
  }
}

TEST(HugePageAllocatorTest, LargeBlocksAreHugePageAligned) {
  Column<double> c;
  c.reserve(kHugePageBytes / sizeof(double) + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % kHugePageBytes, 0u);
  Column<uint8_t> small;
  small.reserve(100);
  EXPECT_NE(small.data(), nullptr);
}

}  // namespace
}  // namespace nodescope::analysis
