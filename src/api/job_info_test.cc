// Tests of reading a job's rank, local rank and world size from launchers' variables, and of
// the clock anchor.
#include "api/job_info.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

namespace nodescope {
namespace {

JobInfo Read(const std::map<std::string, std::string>& vars) {
  return ReadJobInfo([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(JobInfo, TorchrunsVariables) {
  // What torch.distributed.run sets for its second worker of two (and more we do not read).
  JobInfo job = Read({{"RANK", "1"},
                      {"LOCAL_RANK", "1"},
                      {"WORLD_SIZE", "2"},
                      {"LOCAL_WORLD_SIZE", "2"},
                      {"GROUP_RANK", "0"},
                      {"MASTER_ADDR", "127.0.0.1"}});
  EXPECT_EQ(job.rank, 1);
  EXPECT_EQ(job.rank_variable, "RANK");
  EXPECT_EQ(job.local_rank, 1);
  EXPECT_EQ(job.world_size, 2);
  EXPECT_FALSE(job.host.empty());
}

TEST(JobInfo, RankComesFirstThenMpiThenSlurm) {
  // torchrun under srun: RANK is the process's rank, SLURM_PROCID srun's task.
  JobInfo job =
      Read({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}});
  EXPECT_EQ(job.rank, 5);
  EXPECT_EQ(job.world_size, 8);
  job = Read({{"OMPI_COMM_WORLD_RANK", "3"},
              {"OMPI_COMM_WORLD_SIZE", "4"},
              {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
              {"SLURM_PROCID", "0"}});
  EXPECT_EQ(job.rank, 3);
  EXPECT_EQ(job.rank_variable, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(job.world_size, 4);
  EXPECT_EQ(job.local_rank, 1);
  job = Read({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}});
  EXPECT_EQ(job.rank, 2);
  EXPECT_EQ(job.world_size, 3);
  job = Read({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "3"}});
  EXPECT_EQ(job.rank_variable, "SLURM_PROCID");
  EXPECT_EQ(job.rank, 7);
  EXPECT_EQ(job.local_rank, 3);
  job = Read({{"LOCAL_RANK", "1"}});
  EXPECT_EQ(job.rank, 1);
  EXPECT_EQ(job.rank_variable, "LOCAL_RANK");
  EXPECT_EQ(job.world_size, -1);
}

TEST(JobInfo, NoRankOrABadOneNamesNone) {
  EXPECT_EQ(Read({}).rank, -1);
  JobInfo job = Read({{"RANK", "-1"}, {"WORLD_SIZE", "two"}});
  EXPECT_EQ(job.rank, -1);
  EXPECT_EQ(job.world_size, -1);
  job = Read({{"RANK", ""}, {"PMI_RANK", "4"}});  // an empty RANK does not hide the next one
  EXPECT_EQ(job.rank, 4);
}

TEST(JobInfo, ClockAnchorIsReadTogether) {
  timespec before{};
  clock_gettime(CLOCK_REALTIME, &before);
  JobInfo job = Read({});
  timespec after{};
  clock_gettime(CLOCK_REALTIME, &after);
  auto ns = [](const timespec& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
  };
  EXPECT_GE(job.realtime_ns, ns(before));
  EXPECT_LE(job.realtime_ns, ns(after));
  EXPECT_GT(job.monotonic_ns, 0u);
  EXPECT_GE(job.boottime_ns, job.monotonic_ns);  // boottime also counts suspended time
}

// The second process of a rank (here: a second claim in this process) does not get its name;
// another path does; a relative path is the same claim as its absolute form.
TEST(JobInfo, ATracePathIsClaimedOnce) {
  const std::string path = "/tmp/nodescope-claim-test-" + std::to_string(getpid()) + ".json";
  EXPECT_TRUE(ClaimTracePath(path));
  EXPECT_FALSE(ClaimTracePath(path));
  EXPECT_TRUE(ClaimTracePath(path + ".other"));
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir("/tmp"), 0);
  EXPECT_FALSE(ClaimTracePath(path.substr(5)));  // "nodescope-claim-test-N.json" in /tmp
  ASSERT_EQ(chdir(cwd), 0);
}

// Issue 24: any process can bind an abstract name first. One that does not listen is not a
// claim of nodescope's (they all listen): the rank's name is kept.
TEST(JobInfo, ANameBoundByAnotherProgramDoesNotRenameTheTrace) {
  const std::string path = "/tmp/nodescope-squat-test-" + std::to_string(getpid()) + ".json";
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : path) hash = (hash ^ c) * 1099511628211ull;
  char name[64];
  const int n = std::snprintf(name, sizeof(name), "nodescope-trace-%016llx",
                              static_cast<unsigned long long>(hash));
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name, static_cast<size_t>(n));
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&addr),
                 static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n)),
            0);
  EXPECT_TRUE(ClaimTracePath(path)) << "a bound, not listening, name was taken for a claim";
  ASSERT_EQ(listen(fd, 4), 0);  // now it looks like a claim of this user's: believed
  EXPECT_FALSE(ClaimTracePath(path));
  close(fd);
}

}  // namespace
}  // namespace nodescope
