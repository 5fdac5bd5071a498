// Tests of the report line between the library and `nodescope run`, and of the trace-path rule.
#include "model/run_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nodescope::report {
namespace {

TEST(ReportLine, TraceLineRoundTripsWithAwkwardPaths) {
  Line l;
  l.pid = 4242;
  l.summary.gpu_events = 6416;
  l.summary.kernels = 6403;
  l.summary.dropped = 1;
  l.summary.buffers_refused = 2;
  l.flush_ms = 3;
  l.path = "out dir/a\tb\\c\nd.json";
  std::string text = Format(l);
  ASSERT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "a newline in the path split the line";
  auto back = Parse(std::string_view(text).substr(0, text.size() - 1));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kind, Line::Kind::kTrace);
  EXPECT_EQ(back->pid, 4242u);
  EXPECT_EQ(back->summary.gpu_events, 6416u);
  EXPECT_EQ(back->summary.kernels, 6403u);
  EXPECT_EQ(back->summary.dropped, 1u);
  EXPECT_EQ(back->summary.buffers_refused, 2u);
  EXPECT_EQ(back->flush_ms, 3u);
  EXPECT_EQ(back->path, l.path);
}

TEST(ReportLine, ErrorLineRoundTrips) {
  Line l;
  l.kind = Line::Kind::kError;
  l.pid = 7;
  l.message = "ALREADY_EXISTS: another CUPTI client";
  std::string text = Format(l);
  EXPECT_EQ(text, "error\tpid=7\tmessage=ALREADY_EXISTS: another CUPTI client\n");
  auto back = Parse(std::string_view(text).substr(0, text.size() - 1));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kind, Line::Kind::kError);
  EXPECT_EQ(back->message, l.message);
}

TEST(ReportLine, AnythingElseIsRejected) {
  Line l;
  l.pid = 9;
  l.path = "t.json";
  std::string good = Format(l);
  good.pop_back();
  ASSERT_TRUE(Parse(good).ok());
  for (std::string bad : {
           std::string("trace\tpid=9\tpath=/etc/shadow"),  // fields missing
           good + "\textra=1",                             // a field too many
           std::string("hello"),
           std::string(""),
           std::string("error\tpid=-1\tmessage=x"),
           std::string("error\tpid= 9\tmessage=x"),
           std::string("error\tpid=0\tmessage=x"),
           std::string("error\tmessage=x\tpid=9"),
           std::string("error\tpid=9\tmessage=bad \\q escape"),
           std::string("error\tpid=9\tmessage=") + std::string(kMaxLineBytes, 'x'),
       }) {
    EXPECT_FALSE(Parse(bad).ok()) << bad.substr(0, 80);
  }
  std::string forged_count = good;
  forged_count.replace(forged_count.find("kernels=0"), 9, "kernels=1e9");
  EXPECT_FALSE(Parse(forged_count).ok());
}

TEST(ReportLine, RankAndEmptyLinesRoundTrip) {
  Line l;
  l.pid = 31;
  l.rank = 3;
  l.path = "out/t-rank3.json";
  std::string text = Format(l);
  EXPECT_EQ(text.rfind("trace\tpid=31\trank=3\tgpu_events=0\t", 0), 0u) << text;
  auto back = Parse(std::string_view(text).substr(0, text.size() - 1));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->rank, 3);
  EXPECT_EQ(back->path, l.path);
  l.rank = -1;  // no rank: the field is there, empty
  text = Format(l);
  EXPECT_EQ(text.rfind("trace\tpid=31\trank=\tgpu_events=0\t", 0), 0u) << text;
  back = Parse(std::string_view(text).substr(0, text.size() - 1));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rank, -1);

  Line empty;
  empty.kind = Line::Kind::kEmpty;
  empty.pid = 30;
  empty.summary.api_calls = 12;
  EXPECT_EQ(Format(empty), "empty\tpid=30\tapi_calls=12\n");
  back = Parse("empty\tpid=30\tapi_calls=12");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->kind, Line::Kind::kEmpty);
  EXPECT_EQ(back->summary.api_calls, 12u);
  for (std::string bad :
       {"empty\tpid=30", "empty\tpid=30\tapi_calls=12\tpath=x", "empty\tpid=30\tapi_calls=x",
        "trace\tpid=31\trank=-1", "trace\tpid=31\trank=x\tgpu_events=0"}) {
    EXPECT_FALSE(Parse(bad).ok()) << bad;
  }
  std::string text3 = Format(l);
  text3.pop_back();
  text3.replace(text3.find("rank="), 5, "rank=1x");
  EXPECT_FALSE(Parse(text3).ok());
}

TEST(TracePathFor, RanksNameTheirFiles) {
  EXPECT_EQ(TracePathFor("out/job.json", "77", 80, 1), "out/job-rank1.json");
  EXPECT_EQ(TracePathFor("out/job.json", "77", 77, 0), "out/job-rank0.json");  // the root too
  EXPECT_EQ(TracePathFor(nullptr, nullptr, 80, 12), "nodescope-rank12.json");
  EXPECT_EQ(TracePathFor("trace", "77", 80, 2), "trace-rank2");
  EXPECT_EQ(TracePathFor("out/job.json", "77", 80, -1), "out/job-80.json");
}

TEST(TracePathFor, DefaultsToPidInWorkingDirectory) {
  EXPECT_EQ(TracePathFor(nullptr, nullptr, 123), "nodescope-123.json");
  EXPECT_EQ(TracePathFor("", "123", 123), "nodescope-123.json");
}

TEST(TracePathFor, RootProcessGetsTheRequestedPath) {
  EXPECT_EQ(TracePathFor("out/t.json", "77", 77), "out/t.json");
  EXPECT_EQ(TracePathFor("out/t.json", nullptr, 5), "out/t.json");
}

TEST(TracePathFor, ChildProcessesGetTheirOwnFile) {
  EXPECT_EQ(TracePathFor("out/t.json", "77", 80), "out/t-80.json");
  EXPECT_EQ(TracePathFor("out.d/trace", "77", 80), "out.d/trace-80");
  EXPECT_EQ(TracePathFor("trace", "77", 80), "trace-80");
}

// The writing side (the process session and a backend's entry point both use it): only a pipe
// named by NODESCOPE_REPORT_FD is written to, one whole line at a time.
TEST(ReportLine, WrittenToThePipeNamedInTheEnvironmentOnly) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  setenv(kFdVariable, std::to_string(fds[1]).c_str(), 1);
  EXPECT_EQ(ReportFdFromEnv(), fds[1]);
  Line l;
  l.kind = Line::Kind::kError;
  l.pid = 7;
  l.message = "another build";
  WriteLine(ReportFdFromEnv(), l);
  close(fds[1]);
  char buf[256];
  ssize_t n = read(fds[0], buf, sizeof(buf));
  close(fds[0]);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)), Format(l));

  FILE* file = std::tmpfile();  // not a pipe: never written to
  ASSERT_NE(file, nullptr);
  setenv(kFdVariable, std::to_string(fileno(file)).c_str(), 1);
  EXPECT_EQ(ReportFdFromEnv(), -1);
  std::fclose(file);
  setenv(kFdVariable, "junk", 1);
  EXPECT_EQ(ReportFdFromEnv(), -1);
  unsetenv(kFdVariable);
  EXPECT_EQ(ReportFdFromEnv(), -1);
}

}  // namespace
}  // namespace nodescope::report
