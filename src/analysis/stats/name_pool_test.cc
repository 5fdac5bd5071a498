// Tests of the bounded name pool: one copy per name, stable views, the budget, hash chains.
#include "analysis/stats/name_pool.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope::analysis {
namespace {

TEST(NamePool, OneIdPerNameAndViewsThatStay) {
  NamePool pool(8 << 20);
  std::optional<uint32_t> a = pool.Intern("void scale(float*)");
  std::optional<uint32_t> b = pool.Intern("void reduce(int)");
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(pool.Intern("void scale(float*)"), a);
  EXPECT_EQ(pool.Find("void reduce(int)"), b);
  EXPECT_EQ(pool.Find("absent"), std::nullopt);
  const std::string_view first = pool.Get(*a);
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(pool.Intern("name " + std::to_string(i)));
  EXPECT_EQ(pool.Get(*a).data(), first.data());  // not moved by growth
  EXPECT_EQ(pool.Get(*a), "void scale(float*)");
  EXPECT_EQ(pool.size(), 20002u);
  const std::string long_name(200000, 'x');  // a block of its own
  std::optional<uint32_t> l = pool.Intern(long_name);
  ASSERT_TRUE(l);
  EXPECT_EQ(pool.Get(*l), long_name);
  EXPECT_EQ(pool.Get(*pool.Intern("")), "");
}

TEST(NamePool, TheBudgetCountsTextAndPerNameCost) {
  NamePool pool(2 * NamePool::kPerNameBytes + 6);
  EXPECT_TRUE(pool.Intern("abc"));
  EXPECT_TRUE(pool.Intern("def"));
  EXPECT_EQ(pool.bytes(), 2 * NamePool::kPerNameBytes + 6);
  EXPECT_FALSE(pool.Intern("g"));   // over the budget: refused, not stored
  EXPECT_TRUE(pool.Intern("abc"));  // a name held costs nothing more
  EXPECT_EQ(pool.Find("g"), std::nullopt);
  EXPECT_EQ(pool.size(), 2u);
}

}  // namespace
}  // namespace nodescope::analysis
