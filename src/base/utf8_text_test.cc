// Tests of the one UTF-8 module: decoding, display width and the middle cut.
#include "base/utf8_text.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope {
namespace {

TEST(Utf8Text, ShortenMiddleKeepsHeadAndTail) {
  EXPECT_EQ(ShortenMiddle("abcdefghij", 0), "abcdefghij");
  EXPECT_EQ(ShortenMiddle("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(ShortenMiddle("abcdefghij", 5), "ab\xe2\x80\xa6ij");
  EXPECT_EQ(ShortenMiddle("abcdefghij", 4), "ab\xe2\x80\xa6j");
  EXPECT_EQ(ShortenMiddle("abcdefghij", 2), "a\xe2\x80\xa6");
  EXPECT_EQ(ShortenMiddle("abcdefghij", 1), "\xe2\x80\xa6");
  // Code points, not bytes: five alphas cut to three columns.
  const std::string alphas = "\xce\xb1\xce\xb1\xce\xb1\xce\xb1\xce\xb2";
  EXPECT_EQ(ShortenMiddle(alphas, 3), "\xce\xb1\xe2\x80\xa6\xce\xb2");
  EXPECT_EQ(DisplayWidth(ShortenMiddle(alphas, 3)), 3u);
}

TEST(Utf8Text, ElideMiddleTakesHeadAndTailInCodePoints) {
  EXPECT_EQ(ElideMiddle("abcdefghij", 6, 2), "abcdef\xe2\x80\xa6ij");
  EXPECT_EQ(ElideMiddle("abcdefghij", 3, 0), "abc\xe2\x80\xa6");
  const std::string alphas = "\xce\xb1\xce\xb2\xce\xb3";
  EXPECT_EQ(ElideMiddle(alphas, 1, 1), "\xce\xb1\xe2\x80\xa6\xce\xb3");
}

TEST(Utf8Text, ShortenMiddleToBytesCutsAtCodePoints) {
  EXPECT_EQ(ShortenMiddleToBytes("abcdefghijk", 9), "abc\xe2\x80\xa6ijk");
  EXPECT_EQ(ShortenMiddleToBytes("abc", 3), "abc");
  // 2-byte characters: never half of one on either side.
  const std::string out = ShortenMiddleToBytes("\xce\xb1\xce\xb1\xce\xb1\xce\xb1\xce\xb1", 8);
  EXPECT_LE(out.size(), 8u);
  EXPECT_EQ(FirstInvalidUtf8(out), out.size()) << out;
}

TEST(Utf8Text, DisplayWidthAndOffsetCountCodePoints) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("a\xce\xb1\xe2\x80\xa6"), 3u);
  EXPECT_EQ(OffsetOfCodePoint("a\xce\xb1z", 2), 3u);
  EXPECT_EQ(OffsetOfCodePoint("ab", 5), 2u);
}

TEST(Utf8Text, FirstInvalidUtf8FindsTheBadByte) {
  EXPECT_EQ(FirstInvalidUtf8("plain"), 5u);
  EXPECT_EQ(FirstInvalidUtf8("ok\xce\xb1ok"), 6u);
  EXPECT_EQ(FirstInvalidUtf8("ab\xc0\x80"), 2u);          // overlong
  EXPECT_EQ(FirstInvalidUtf8("ab\xed\xa0\x80"), 2u);      // surrogate
  EXPECT_EQ(FirstInvalidUtf8("ab\xf4\x90\x80\x80"), 2u);  // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("ab\xe2\x80"), 2u);          // cut short
}

TEST(Utf8Text, ScanConsumesTheMaximalSubpartOfABadSequence) {
  auto scan = [](std::string_view s, bool* valid) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    return Utf8Scan(p, p + s.size(), valid);
  };
  bool valid = false;
  EXPECT_EQ(scan("\xe2\x80\xa6", &valid), 3u);
  EXPECT_TRUE(valid);
  EXPECT_EQ(scan("\xe2\x80x", &valid), 2u);  // E2 80 is one bad sequence, then 'x'
  EXPECT_FALSE(valid);
  EXPECT_EQ(scan("\x80\x80", &valid), 1u);  // a stray continuation byte alone
  EXPECT_FALSE(valid);
  EXPECT_EQ(scan("\xf0\x80", &valid), 1u);  // F0 80 cannot start a character
  EXPECT_FALSE(valid);
}

}  // namespace
}  // namespace nodescope
