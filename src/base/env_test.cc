// Tests of the strict number and flag parsing used for every NODESCOPE_* variable.
#include "base/env.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace nodescope {
namespace {

TEST(ParseDecimal, AcceptsOnlyWholeDecimalNumbersInRange) {
  EXPECT_EQ(*ParseDecimal("5", 1, 10), 5u);
  EXPECT_EQ(*ParseDecimal("18446744073709551615", 0, UINT64_MAX), UINT64_MAX);
  for (const char* bad : {"", " 5", "5 ", "+5", "-5", "0x5", "5.0", "5k", "1e3"}) {
    EXPECT_FALSE(ParseDecimal(bad, 0, 100).ok()) << "'" << bad << "'";
  }
  EXPECT_FALSE(ParseDecimal("18446744073709551616", 0, UINT64_MAX).ok());  // 2^64 wraps
  EXPECT_FALSE(ParseDecimal("0", 1, 10).ok());
  EXPECT_FALSE(ParseDecimal("11", 1, 10).ok());
}

TEST(ReadEnvDecimal, NamesTheVariableAndLeavesTheDefaultWhenUnset) {
  uint64_t v = 7;
  unsetenv("NODESCOPE_TEST_NUMBER");
  EXPECT_TRUE(ReadEnvDecimal("NODESCOPE_TEST_NUMBER", 1, 10, &v).ok());
  EXPECT_EQ(v, 7u);
  setenv("NODESCOPE_TEST_NUMBER", " 5", 1);
  Status s = ReadEnvDecimal("NODESCOPE_TEST_NUMBER", 1, 10, &v);
  EXPECT_EQ(s.message(), "NODESCOPE_TEST_NUMBER=' 5' is not a whole number from 1 to 10");
  EXPECT_EQ(v, 7u);
  setenv("NODESCOPE_TEST_NUMBER", "\x1b[2J", 1);  // a value is never echoed raw
  s = ReadEnvDecimal("NODESCOPE_TEST_NUMBER", 1, 10, &v);
  EXPECT_NE(s.message().find("'\\x1b[2J'"), std::string::npos) << s.message();
  setenv("NODESCOPE_TEST_NUMBER", "10", 1);
  EXPECT_TRUE(ReadEnvDecimal("NODESCOPE_TEST_NUMBER", 1, 10, &v).ok());
  EXPECT_EQ(v, 10u);
}

TEST(ReadEnvFlag, AcceptsTheDocumentedWordsOnly) {
  bool on = false;
  setenv("NODESCOPE_TEST_FLAG", "yes", 1);
  EXPECT_TRUE(ReadEnvFlag("NODESCOPE_TEST_FLAG", &on).ok());
  EXPECT_TRUE(on);
  setenv("NODESCOPE_TEST_FLAG", "0", 1);
  EXPECT_TRUE(ReadEnvFlag("NODESCOPE_TEST_FLAG", &on).ok());
  EXPECT_FALSE(on);
  setenv("NODESCOPE_TEST_FLAG", "1x", 1);
  EXPECT_FALSE(ReadEnvFlag("NODESCOPE_TEST_FLAG", &on).ok());
}

}  // namespace
}  // namespace nodescope
