// Tests of program lookup, exit statuses and signal handling of the child launcher.
#include "child_process.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace nodescope::cli {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/nodescope-test-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(ResolveProgram, SearchesPathAndReportsWhy) {
  auto sh = ResolveProgram("sh", "/nonexistent:/bin:/usr/bin");
  ASSERT_TRUE(sh.ok()) << sh.status().ToString();
  EXPECT_NE(sh->find("/sh"), std::string::npos);
  auto missing = ResolveProgram("definitely-not-a-program-xyz", "/bin:/usr/bin");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("not found"), std::string::npos);
  EXPECT_EQ(ResolveProgram("./no/such/file", nullptr).status().code(), StatusCode::kNotFound);
  // As `env ""` does: status 127, not 126.
  EXPECT_EQ(ResolveProgram("", nullptr).status().code(), StatusCode::kNotFound);

  std::string dir = TempDir();
  std::string plain = dir + "/plain.txt";
  std::ofstream(plain) << "not a program";
  chmod(plain.c_str(), 0644);
  EXPECT_EQ(ResolveProgram(plain, nullptr).status().code(), StatusCode::kPermissionDenied);
}

TEST(RunChild, PassesExitCodeEnvironmentAndReport) {
  auto r = RunChild({"/bin/sh", "-c",
                     "echo \"trace\tpid=$$\tvalue=$NODESCOPE_TEST_VALUE\" >&$NODESCOPE_REPORT_FD;"
                     " [ \"$NODESCOPE_ROOT_PID\" = \"$$\" ] || exit 9; exit 3"},
                    {"NODESCOPE_TEST_VALUE=42"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_status, 3);
  EXPECT_EQ(r->signal, 0);
  ASSERT_EQ(r->report_lines.size(), 1u);
  EXPECT_NE(r->report_lines[0].find("value=42"), std::string::npos);
  EXPECT_NE(r->report_lines[0].find("pid=" + std::to_string(r->pid)), std::string::npos);
}

TEST(RunChild, SignalDeathIsReportedAsShellStatus) {
  auto r = RunChild({"/bin/sh", "-c", "kill -TERM $$"}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->signal, SIGTERM);
  EXPECT_EQ(r->exit_status, 128 + SIGTERM);
}

TEST(RunChild, ForwardsTerminationSentToUs) {
  // The child traps TERM and reports it; we send TERM to ourselves (as `kill <nodescope>` would).
  pid_t self = getpid();
  std::string script =
      "trap 'echo got-term >&$NODESCOPE_REPORT_FD; exit 7' TERM; "
      "kill -TERM " +
      std::to_string(self) +
      "; i=0; while [ $i -lt 100 ]; do sleep 0.05; "
      "i=$((i+1)); done; exit 1";
  auto r = RunChild({"/bin/sh", "-c", script}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_status, 7);
  ASSERT_EQ(r->report_lines.size(), 1u);
  EXPECT_EQ(r->report_lines[0], "got-term");
}

// Signals that nodescope does not expect (USR1, ALRM, ...) used to end it and leave the program
// running with ppid 1; now every catchable one that would end it reaches the program instead.
TEST(RunChild, ForwardsEveryTerminatingSignal) {
  for (int sig : {SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR, SIGPIPE, SIGHUP,
                  SIGQUIT, SIGXCPU, SIGXFSZ, SIGRTMIN, SIGRTMAX}) {
    // The program sends the signal to us and waits: it must come back to it, with no trap.
    // (One this test inherited as ignored would rightly stay ignored: start from the default.)
    signal(sig, SIG_DFL);
    std::string script = "ulimit -c 0; kill -" + std::to_string(sig) + " " +
                         std::to_string(getpid()) +
                         "; i=0; while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; exit 1";
    auto r = RunChild({"/bin/sh", "-c", script}, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->signal, sig) << strsignal(sig) << ": exit status " << r->exit_status;
  }
}

// However nodescope ends, the program must not run on without it (PR_SET_PDEATHSIG): a
// `nodescope` stand-in runs a program, is killed, and the program must end within seconds.
TEST(RunChild, NoOrphanWhenWeAreKilled) {
  // Orphans are reparented to this test (not to init), so it can see how they end.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  for (int sig : {SIGKILL, SIGSEGV}) {
    std::string pid_file = TempDir() + "/pid";
    pid_t middle = fork();
    ASSERT_GE(middle, 0);
    if (middle == 0) {
      rlimit no_core{0, 0};
      setrlimit(RLIMIT_CORE, &no_core);
      auto r = RunChild({"/bin/sh", "-c",
                         "echo $$ > " + pid_file + ".tmp; mv " + pid_file + ".tmp " + pid_file +
                             "; exec sleep 30"},
                        {});
      _exit(r.ok() ? 0 : 1);
    }
    pid_t program = 0;
    for (int i = 0; i < 500 && program == 0; ++i) {
      usleep(10000);
      std::ifstream(pid_file) >> program;
    }
    ASSERT_GT(program, 0) << "the program did not start";
    kill(middle, sig);
    int status = 0;
    ASSERT_EQ(waitpid(middle, &status, 0), middle);
    // (Under AddressSanitizer a SIGSEGV ends it through ASan's handler, with a status.)
    pid_t ended = 0;
    for (int i = 0; i < 500 && ended == 0; ++i) {
      ended = waitpid(program, &status, WNOHANG);
      if (ended == 0) usleep(10000);
    }
    if (ended == 0) {  // still running after 5 s: an orphan
      kill(program, SIGKILL);
      waitpid(program, &status, 0);
    }
    EXPECT_EQ(ended, program) << "the program ran on after nodescope got " << strsignal(sig);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
}

TEST(CheckWritable, ReportsUnwritableFolders) {
  std::string dir = TempDir();
  EXPECT_TRUE(CheckWritable(dir + "/t.json").ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "probe left behind";
  auto s = CheckWritable("/nonexistent-dir-xyz/t.json");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent-dir-xyz/t.json"), std::string::npos);
  s = CheckWritable(dir);
  EXPECT_FALSE(s.ok()) << "a folder is not a trace file";
}

TEST(CheckWritable, ReturnsTheFolderClockBeforeLaterFiles) {
  std::string dir = TempDir();
  auto started = CheckWritable(dir + "/t.json");
  ASSERT_TRUE(started.ok());
  std::ofstream(dir + "/t.json") << "{}";
  struct stat st {};
  ASSERT_EQ(stat((dir + "/t.json").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mtim.tv_sec > started->tv_sec ||
              (st.st_mtim.tv_sec == started->tv_sec && st.st_mtim.tv_nsec >= started->tv_nsec));
}

// The traced program can write to the report pipe without limit (it reached 1 GB in 8 s):
// what is kept stays bounded, the rest is drained (the writer never blocks) and counted.
TEST(RunChild, ReportPipeIsBoundedAndDrained) {
  // 64 MiB of 1000-byte lines, then one line of 64 KiB without a newline.
  auto r = RunChild({"/bin/sh", "-c",
                     "yes \"$(printf '%0999d' 0)\" | head -c 67108864 >&$NODESCOPE_REPORT_FD; "
                     "head -c 65536 /dev/zero | tr '\\0' x >&$NODESCOPE_REPORT_FD; exit 4"},
                    {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_status, 4);
  size_t kept = 0;
  for (const std::string& line : r->report_lines) kept += line.size() + 1;
  EXPECT_LE(kept, report::kMaxReportBytes);
  EXPECT_GT(kept, report::kMaxReportBytes - 1000) << "kept less than the limit allows";
  EXPECT_EQ(kept + r->report_bytes_discarded, size_t{67108864} + 65536);
}

TEST(RunChild, OverlongLinesAreDroppedWhole) {
  ReportLimits limits;
  limits.max_line_bytes = 10;
  auto r = RunChild(
      {"/bin/sh", "-c", "printf 'short\\n0123456789ABCDEF\\nok\\n' >&$NODESCOPE_REPORT_FD"}, {},
      limits);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->report_lines.size(), 2u);
  EXPECT_EQ(r->report_lines[0], "short");
  EXPECT_EQ(r->report_lines[1], "ok");
  EXPECT_EQ(r->report_bytes_discarded, 17u);
}

}  // namespace
}  // namespace nodescope::cli
