// Tests of the whole-process session's ending over fake backends, in a forked child that exits as
// a traced program does: a process that recorded GPU work writes its trace, named by its rank,
// with the job in its header; one that recorded none writes no file and says so on the report
// pipe (what `nodescope run` prints for torchrun's own process).
#include "api/process_session.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "backends/backend.h"
#include "base/clock.h"

namespace nodescope {
namespace {

class FakeTracer : public Tracer {
 public:
  explicit FakeTracer(bool gpu_work) : gpu_work_(gpu_work) {}
  std::string_view name() const override { return "fake"; }
  Status Start(const TracerOptions&) override {
    trace_.start_ns = NowNs();
    return OkStatus();
  }
  Status Stop() override {
    if (gpu_work_) {
      GpuActivity a{};
      a.kind = ActivityKind::kKernel;
      a.start_ns = trace_.start_ns + 1000;
      a.end_ns = trace_.start_ns + 2000;
      a.kernel.name = trace_.strings.Intern("k");
      trace_.gpu.push_back(a);
    }
    trace_.end_ns = NowNs();
    return OkStatus();
  }
  Trace& trace() override { return trace_; }

 private:
  bool gpu_work_;
  Trace trace_;
};

[[maybe_unused]] const bool kRegistered =
    RegisterTracer("fake_gpu_work", [] { return std::unique_ptr<Tracer>(new FakeTracer(true)); }) &&
    RegisterTracer("fake_no_gpu_work",
                   [] { return std::unique_ptr<Tracer>(new FakeTracer(false)); });

struct Ended {
  int pid = 0;
  std::string report;  // what the child wrote on the report pipe
};

// Forks a child with RANK=3 and WORLD_SIZE=4 that traces with `backend` and exits.
Ended RunChild(const std::string& backend, const std::string& output) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setenv("NODESCOPE_REPORT_FD", std::to_string(fds[1]).c_str(), 1);
    setenv("NODESCOPE_OUTPUT", output.c_str(), 1);
    setenv("NODESCOPE_ROOT_PID", "1", 1);
    setenv("RANK", "3", 1);
    setenv("WORLD_SIZE", "4", 1);
    if (!StartProcessSession(backend).ok()) _exit(3);
    std::exit(0);  // the trace is written at exit
  }
  close(fds[1]);
  Ended ended;
  ended.pid = pid;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) ended.report.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return ended;
}

std::string TempDir() {
  char tmpl[] = "/tmp/nodescope-session-XXXXXX";
  return mkdtemp(tmpl);
}

TEST(ProcessSession, ARankWithGpuWorkWritesItsTraceNamedByRank) {
  const std::string dir = TempDir();
  Ended e = RunChild("fake_gpu_work", dir + "/job.json");
  EXPECT_EQ(e.report.rfind("trace\tpid=" + std::to_string(e.pid) + "\trank=3\tgpu_events=1\t", 0),
            0u)
      << e.report;
  EXPECT_NE(e.report.find("\tpath=" + dir + "/job-rank3.json\n"), std::string::npos) << e.report;
  std::ifstream in(dir + "/job-rank3.json");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find(R"("job":{"rank":3,"rank_variable":"RANK","world_size":4,"host":")"),
            std::string::npos)
      << text.str().substr(0, 2000);
  EXPECT_NE(text.str().find("\"distributedInfo\": {\"rank\": 3, \"world_size\": 4}"),
            std::string::npos);
}

TEST(ProcessSession, AProcessWithoutGpuWorkWritesNoFileAndSaysSo) {
  const std::string dir = TempDir();
  Ended e = RunChild("fake_no_gpu_work", dir + "/job.json");
  EXPECT_EQ(e.report, "empty\tpid=" + std::to_string(e.pid) + "\tapi_calls=0\n");
  struct stat st {};
  EXPECT_NE(stat((dir + "/job-rank3.json").c_str(), &st), 0) << "a file was written";
  EXPECT_NE(stat((dir + "/job.json").c_str(), &st), 0) << "a file was written";
}

}  // namespace
}  // namespace nodescope
