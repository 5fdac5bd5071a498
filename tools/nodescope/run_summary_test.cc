// Tests of which report lines `nodescope run` believes, and of what reaches the terminal.
#include "run_summary.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "model/run_report.h"

namespace nodescope::cli {
namespace {

class RunSummaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nodescope-summary-XXXXXX";
    dir_ = mkdtemp(tmpl);
    context_.output = dir_ + "/t.json";
    context_.root_pid = 1000;
    clock_gettime(CLOCK_REALTIME, &context_.started);
    context_.started.tv_sec -= 5;  // files written by the test are newer
  }

  static std::string TraceLine(uint64_t pid, const std::string& path,
                               uint64_t buffers_refused = 0) {
    report::Line l;
    l.pid = pid;
    l.summary.gpu_events = 12;
    l.summary.kernels = 10;
    l.summary.dropped = 3;
    l.summary.buffers_refused = buffers_refused;
    l.path = path;
    std::string text = report::Format(l);
    text.pop_back();
    return text;
  }

  std::string Print(const ChildResult& r) {
    char* buf = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&buf, &size);
    PrintRunSummary(r, context_, out);
    std::fclose(out);
    std::string text(buf, size);
    std::free(buf);
    return text;
  }

  std::string dir_;
  RunContext context_;
};

TEST_F(RunSummaryTest, ShowsTheTraceThisRunWrote) {
  std::ofstream(dir_ + "/t.json") << "{}";
  std::ofstream(dir_ + "/t-1001.json") << "{}";
  ChildResult r;
  r.report_lines = {TraceLine(1000, dir_ + "/t.json"), TraceLine(1001, dir_ + "/t-1001.json")};
  std::string text = Print(r);
  EXPECT_NE(text.find("nodescope: trace written to " + dir_ + "/t.json (2.0 B)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("trace (child process 1001) written to " + dir_ + "/t-1001.json"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU events               12  (kernels 10,"), std::string::npos) << text;
  EXPECT_EQ(text.find("warning"), std::string::npos) << text;
}

// Refused buffer requests are not records: shown beside the records dropped (not added to them),
// and only when there were some.
TEST_F(RunSummaryTest, RefusedBuffersAreShownBesideTheDroppedRecords) {
  std::ofstream(dir_ + "/t.json") << "{}";
  std::ofstream(dir_ + "/t-1001.json") << "{}";
  ChildResult r;
  r.report_lines = {TraceLine(1000, dir_ + "/t.json", 7), TraceLine(1001, dir_ + "/t-1001.json")};
  std::string text = Print(r);
  EXPECT_NE(text.find("  dropped records           3\n  buffers refused           7  ("),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("buffers refused"), text.rfind("buffers refused")) << text;  // 1001: none
}

// torchrun under `nodescope run`: the launcher (the root) ran nothing on the GPU and wrote no
// file; its two workers named their traces by rank.
TEST_F(RunSummaryTest, RanksAndALauncherWithoutGpuWork) {
  std::ofstream(dir_ + "/t-rank0.json") << "{}";
  std::ofstream(dir_ + "/t-rank1.json") << "{}";
  report::Line empty;
  empty.kind = report::Line::Kind::kEmpty;
  empty.pid = 1000;
  empty.summary.api_calls = 3;
  std::string empty_text = report::Format(empty);
  empty_text.pop_back();
  auto ranked = [](uint64_t pid, int64_t rank, const std::string& path) {
    report::Line l;
    l.pid = pid;
    l.rank = rank;
    l.path = path;
    std::string text = report::Format(l);
    text.pop_back();
    return text;
  };
  ChildResult r;
  r.report_lines = {empty_text, ranked(1001, 0, dir_ + "/t-rank0.json"),
                    ranked(1002, 1, dir_ + "/t-rank1.json"),
                    ranked(1003, 1, dir_ + "/t-rank0.json")};  // a path not its rank's
  std::string text = Print(r);
  EXPECT_NE(text.find("nodescope: no trace: no GPU work recorded (3 API calls)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("trace (rank 0, pid 1001) written to " + dir_ + "/t-rank0.json"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("trace (rank 1, pid 1002) written to " + dir_ + "/t-rank1.json"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ignored 1 report line not written by nodescope"), std::string::npos) << text;
  EXPECT_EQ(text.find("never initialised"), std::string::npos) << text;
}

TEST_F(RunSummaryTest, NoReportNamesTheLaunchersRuntime) {
  ChildResult r;
  context_.runtime = "ROCm";
  EXPECT_EQ(Print(r),
            "nodescope: no trace written: the program never initialised ROCm (did it use the "
            "GPU?)\n");
}

TEST_F(RunSummaryTest, APathThisRunDidNotChooseIsNeverPrinted) {
  ChildResult r;
  r.report_lines = {TraceLine(1000, "/etc/shadow"), TraceLine(1001, dir_ + "/t.json"),
                    "trace written to /etc/shadow", "garbage\x1b[2J"};
  std::string text = Print(r);
  EXPECT_EQ(text.find("/etc/shadow"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("ignored 4 report lines not written by nodescope"), std::string::npos)
      << text;
}

TEST_F(RunSummaryTest, TheNamedFileMustBeARegularFileWrittenDuringTheRun) {
  ChildResult r;
  r.report_lines = {TraceLine(1000, dir_ + "/t.json")};
  EXPECT_NE(Print(r).find("no file this run wrote is there"), std::string::npos) << "missing";

  ASSERT_EQ(symlink("/etc/passwd", (dir_ + "/t.json").c_str()), 0);
  std::string text = Print(r);
  EXPECT_NE(text.find("no file this run wrote is there"), std::string::npos) << "symlink";
  EXPECT_EQ(text.find("written to"), std::string::npos) << text;
  unlink((dir_ + "/t.json").c_str());

  std::ofstream(dir_ + "/t.json") << "{}";
  timespec old_times[2] = {{1000, 0}, {1000, 0}};  // 1970: before the run
  ASSERT_EQ(utimensat(AT_FDCWD, (dir_ + "/t.json").c_str(), old_times, 0), 0);
  EXPECT_NE(Print(r).find("no file this run wrote is there"), std::string::npos) << "stale";
}

TEST_F(RunSummaryTest, MessagesAreEscapedAndRepeatsAndDiscardsAreSaid) {
  report::Line e;
  e.kind = report::Line::Kind::kError;
  e.pid = 1000;
  e.message =
      "bad\x1b]0;title\x07 \xe2\x80\xae"
      "evil";
  std::string error = report::Format(e);
  error.pop_back();
  ChildResult r;
  r.report_lines = {error, error};
  r.report_bytes_discarded = 123;
  std::string text = Print(r);
  EXPECT_NE(text.find("no trace: bad\\x1B]0;title\\x07 \\u202Eevil\n"), std::string::npos) << text;
  EXPECT_NE(text.find("process 1000 sent more than one report"), std::string::npos) << text;
  EXPECT_NE(text.find("123 bytes of the report pipe were discarded"), std::string::npos) << text;
}

}  // namespace
}  // namespace nodescope::cli
