// Tests of the plots' text helpers: XML escaping of any bytes, numbers, kernel-name shortening.
#include "analysis/plot/svg_text.h"

#include <gtest/gtest.h>

namespace nodescope::analysis {
namespace {

TEST(XmlEscaped, MarkupQuotesControlsAndBadUtf8) {
  EXPECT_EQ(XmlEscaped("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(XmlEscaped("tab\there\nnl\x01\x7f"), "tab here nl  ");
  EXPECT_EQ(XmlEscaped("µs ▲ ok"), "µs ▲ ok");
  EXPECT_EQ(XmlEscaped("bad\xFFz"), "bad\xEF\xBF\xBDz");
  EXPECT_EQ(XmlEscaped("cut\xE2\x96"), "cut\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(XmlEscaped("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(XmlEscaped("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(XmlEscaped("\xEF\xBF\xBF"), "\xEF\xBF\xBD");  // U+FFFF is not an XML character
  EXPECT_EQ(XmlEscaped("\xC2\x85"), " ");                 // C1 control
  EXPECT_EQ(XmlEscaped("\xF0\x9F\x9A\x80"), "\xF0\x9F\x9A\x80");
}

TEST(Numbers, FixedAndSignificant) {
  EXPECT_EQ(Fixed(2.25, 1), "2.2");  // binary 2.25 is exact: round half to even
  EXPECT_EQ(Fixed(-0.01, 1), "0.0");
  EXPECT_EQ(Fixed(-1.5, 0), "-2");
  EXPECT_EQ(Fixed(12, 0), "12");
  EXPECT_EQ(Significant(1234.5678, 4), "1235");
  EXPECT_EQ(Significant(0.0125, 3), "0.0125");
  EXPECT_EQ(Significant(59.7, 3), "59.7");
  EXPECT_EQ(Significant(9.9996, 4), "10");
  EXPECT_EQ(Significant(640, 3), "640");
  EXPECT_EQ(Significant(0, 3), "0");
  EXPECT_EQ(Significant(123456, 3), "123456");
}

}  // namespace
}  // namespace nodescope::analysis
