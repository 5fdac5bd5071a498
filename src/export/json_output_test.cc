// Tests of JsonOutput: numbers, microseconds, ratios, escaping, and the fd sink.
#include "export/json_output.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace nodescope {
namespace {

template <typename F>
std::string Render(F&& write) {
  StringJsonOutput out;
  write(out);
  return out.str();
}

std::string Micros(int64_t ns) {
  return Render([&](JsonOutput& o) { o.MicrosFromNs(ns); });
}
std::string Ratio(uint64_t num, uint64_t den) {
  return Render([&](JsonOutput& o) { o.Ratio(num, den); });
}
std::string Quoted(std::string_view s) {
  return Render([&](JsonOutput& o) { o.String(s); });
}

TEST(JsonOutput, Integers) {
  EXPECT_EQ(Render([](JsonOutput& o) { o.Uint(0); }), "0");
  EXPECT_EQ(Render([](JsonOutput& o) { o.Uint(std::numeric_limits<uint64_t>::max()); }),
            "18446744073709551615");
  EXPECT_EQ(Render([](JsonOutput& o) { o.Int(std::numeric_limits<int64_t>::min()); }),
            "-9223372036854775808");
  EXPECT_EQ(Render([](JsonOutput& o) { o.Int(-42), o.Char(','), o.Raw("true"); }), "-42,true");
}

TEST(JsonOutput, MicrosecondsHaveThreeDecimals) {
  EXPECT_EQ(Micros(0), "0.000");
  EXPECT_EQ(Micros(1), "0.001");
  EXPECT_EQ(Micros(10), "0.010");
  EXPECT_EQ(Micros(999), "0.999");
  EXPECT_EQ(Micros(1000), "1.000");
  EXPECT_EQ(Micros(123456), "123.456");
  EXPECT_EQ(Micros(1000000007), "1000000.007");
  EXPECT_EQ(Micros(std::numeric_limits<int64_t>::max()), "9223372036854775.807");
}

TEST(JsonOutput, NegativeMicrosecondsClampToZero) {
  EXPECT_EQ(Micros(-1), "0.000");
  EXPECT_EQ(Micros(std::numeric_limits<int64_t>::min()), "0.000");
}

TEST(JsonOutput, RatioKeepsTwoToSixDecimals) {
  EXPECT_EQ(Ratio(66, 132), "0.50");
  EXPECT_EQ(Ratio(132, 132), "1.00");
  EXPECT_EQ(Ratio(1, 132), "0.007576");
  EXPECT_EQ(Ratio(2, 3), "0.666667");
  EXPECT_EQ(Ratio(1, 8), "0.125");
  EXPECT_EQ(Ratio(999999999, 1000000000), "1.00");  // rounds up into the integer part
  EXPECT_EQ(Ratio(1, 3000000), "0.00");
  EXPECT_EQ(Ratio(0, 7), "0.00");
  EXPECT_EQ(Ratio(7, 0), "0.00");
  EXPECT_EQ(Ratio(std::numeric_limits<uint64_t>::max(), 1), "18446744073709551615.00");
  EXPECT_EQ(Ratio(std::numeric_limits<uint64_t>::max() - 1, std::numeric_limits<uint64_t>::max()),
            "1.00");
}

TEST(JsonOutput, EscapesQuotesBackslashAndControls) {
  EXPECT_EQ(Quoted(""), R"("")");
  EXPECT_EQ(Quoted("plain"), R"("plain")");
  EXPECT_EQ(Quoted(R"(a "b" \c)"), R"("a \"b\" \\c")");
  EXPECT_EQ(Quoted("\n\t\r\b\f"), R"("\n\t\r\b\f")");
  EXPECT_EQ(Quoted(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(Quoted("</script>"), R"("</script>")");
}

TEST(JsonOutput, PassesValidUtf8) {
  EXPECT_EQ(Quoted("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  EXPECT_EQ(Quoted("\xF4\x8F\xBF\xBF"), "\"\xF4\x8F\xBF\xBF\"");  // U+10FFFF
  EXPECT_EQ(Quoted("\xED\x9F\xBF"), "\"\xED\x9F\xBF\"");          // U+D7FF
}

TEST(JsonOutput, ReplacesInvalidUtf8) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(Quoted(std::string("a\xFF") + "b"), "\"a" + r + "b\"");
  EXPECT_EQ(Quoted("\x80"), "\"" + r + "\"");      // stray continuation
  EXPECT_EQ(Quoted("\xC3"), "\"" + r + "\"");      // truncated at the end
  EXPECT_EQ(Quoted("\xE2\x82"), "\"" + r + "\"");  // one maximal subpart
  EXPECT_EQ(Quoted(std::string("\xE2\x82") + "A"), "\"" + r + "A\"");
  EXPECT_EQ(Quoted("\xC0\xAF"), "\"" + r + r + "\"");                  // overlong
  EXPECT_EQ(Quoted("\xE0\x80\x80"), "\"" + r + r + r + "\"");          // overlong
  EXPECT_EQ(Quoted("\xED\xA0\x80"), "\"" + r + r + r + "\"");          // surrogate
  EXPECT_EQ(Quoted("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // above U+10FFFF
  EXPECT_EQ(Quoted("\xF0\x9F\x98\""), "\"" + r + "\\\"\"");
}

TEST(JsonOutput, AppendEscapedMatchesString) {
  const std::string s = "x\"\\\n\x01\xC3\xA9\xFF";
  std::string cached;
  JsonOutput::AppendEscaped(s, cached);
  EXPECT_EQ(cached, Quoted(s));
}

TEST(JsonOutput, LongStringsCrossTheBuffer) {
  std::string s;
  for (int i = 0; i < 50000; ++i) s += "ab\"\xC3\xA9\n";
  std::string expected;
  JsonOutput::AppendEscaped(s, expected);
  std::string raw(300000, 'z');
  EXPECT_EQ(Render([&](JsonOutput& o) { o.String(s), o.Raw(raw); }), expected + raw);
}

class TempFile {
 public:
  TempFile() {
    char name[] = "/tmp/json_output_test.XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
  }
  ~TempFile() {
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  std::string Contents() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  int fd_ = -1;
  std::string path_;
};

TEST(FdJsonOutput, WritesMoreThanOneBuffer) {
  TempFile file;
  ASSERT_GE(file.fd(), 0);
  std::string expected;
  {
    FdJsonOutput out(file.fd());
    for (uint64_t i = 0; i < 300000; ++i) {
      out.Uint(i);
      out.Raw(",\"k\":");
      out.MicrosFromNs(static_cast<int64_t>(i * 7));
      out.Char('\n');
      expected += std::to_string(i) + ",\"k\":" + std::to_string(i * 7 / 1000) + "." +
                  std::to_string(1000 + i * 7 % 1000).substr(1) + "\n";
    }
    ASSERT_GT(expected.size(), FdJsonOutput::kBufferBytes * 3);
    EXPECT_TRUE(out.Flush().ok());
  }
  EXPECT_EQ(file.Contents(), expected);
}

TEST(FdJsonOutput, WriteErrorsBecomeStatus) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[1]);
  FdJsonOutput out(fds[0]);  // the read end: write(2) fails with EBADF
  out.Raw("{}");
  Status s = out.Flush();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("write to fd"), std::string::npos) << s.ToString();
  out.Raw("more");
  EXPECT_EQ(out.Flush().message(), s.message()) << "the first error sticks";
  close(fds[0]);
}

}  // namespace
}  // namespace nodescope
