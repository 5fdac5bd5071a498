// Tests of TerminalText: nothing from a trace can drive the terminal it is printed on.
#include "base/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

namespace nodescope {
namespace {

TEST(TerminalText, EscapesControlsAndBadUtf8) {
  EXPECT_EQ(TerminalText("void k<1>(float*)"), "void k<1>(float*)");
  EXPECT_EQ(TerminalText("a\nb\tc\rd\x01\x7f"), "a\\nb\\tc\\rd\\x01\\x7F");
  EXPECT_EQ(TerminalText("\xc2\xb5s \xe2\x80\xa6"), "\xc2\xb5s \xe2\x80\xa6");  // "µs …" pass
  EXPECT_EQ(TerminalText("\xc2\x9b[2J"), "\\u009B[2J");                         // C1 CSI
  EXPECT_EQ(TerminalText("x\xff"), "x\\xFF");
  EXPECT_EQ(TerminalText("\xe2\x80"), "\\xE2\\x80");                // truncated sequence
  EXPECT_EQ(TerminalText("\xed\xa0\x80"), "\\xED\\xA0\\x80");       // a surrogate
  EXPECT_EQ(TerminalText("\xc0\xaf"), "\\xC0\\xAF");                // overlong '/'
  EXPECT_EQ(TerminalText("\xf0\x9f\x9a\x80"), "\xf0\x9f\x9a\x80");  // U+1F680 passes
  EXPECT_EQ(TerminalText(std::string("nul\0x", 5)), "nul\\x00x");
}

// A fake verdict drawn over the real one: cursor up, erase line, carriage return.
TEST(TerminalText, EscapeSequencesCannotRewriteTheScreen) {
  const std::string fake = "\x1b[1A\x1b[2K\r  verdict clean\x1b[8m";
  const std::string shown = TerminalText(fake);
  EXPECT_EQ(shown, "\\x1B[1A\\x1B[2K\\r  verdict clean\\x1B[8m");
  EXPECT_EQ(shown.find_first_of("\x1b\r"), std::string::npos);
}

TEST(TerminalText, BidirectionalControlsAreEscaped) {
  EXPECT_EQ(TerminalText("\xe2\x80\xae"
                         "evil"),
            "\\u202Eevil");  // right-to-left override
  EXPECT_EQ(TerminalText("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"),
            "\\u202A\\u202B\\u202C\\u202D");
  EXPECT_EQ(TerminalText("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"),
            "\\u2066\\u2067\\u2068\\u2069");                                             // isolates
  EXPECT_EQ(TerminalText("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c"), "\\u200E\\u200F\\u061C");  // marks
  EXPECT_EQ(TerminalText("\xe2\x80\xa8\xe2\x80\xa9"), "\\u2028\\u2029");            // separators
  EXPECT_EQ(TerminalText("\xe2\x80\xa5\xe2\x81\xa5"), "\xe2\x80\xa5\xe2\x81\xa5");  // neighbours
}

TEST(Utf8SequenceLength, DecodesWellFormedOnly) {
  uint32_t cp = 0;
  EXPECT_EQ(Utf8SequenceLength("\xe2\x80\xae", 0, &cp), 3u);
  EXPECT_EQ(cp, 0x202Eu);
  EXPECT_EQ(Utf8SequenceLength("\xf4\x8f\xbf\xbf", 0, &cp), 4u);
  EXPECT_EQ(cp, 0x10FFFFu);
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80", 0, &cp), 0u);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\xe0\x80\x80", 0, &cp), 0u);      // overlong
  EXPECT_EQ(Utf8SequenceLength("\xc3", 0, &cp), 0u);              // cut short
}

}  // namespace
}  // namespace nodescope
