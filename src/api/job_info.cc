// Reading the job's rank from the environment (job_info.h) and the clock anchor.
#include "api/job_info.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include <string_view>

#include "base/diagnostics.h"
#include "base/env.h"
#include "base/terminal_text.h"

namespace nodescope {
namespace {

struct RankSource {
  const char* rank;
  const char* size;
};
constexpr RankSource kRankSources[] = {
    {"RANK", "WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};
constexpr const char* kLocalRankVariables[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                               "MPI_LOCALRANKID", "SLURM_LOCALID"};

// The variable's value as a whole number below 2^31, or -1 (unset, empty or not a number).
int64_t Number(const EnvLookup& env, const char* var) {
  const char* v = env(var);
  if (v == nullptr || *v == '\0') return -1;
  StatusOr<uint64_t> n = ParseDecimal(v, 0, INT32_MAX);
  return n.ok() ? static_cast<int64_t>(*n) : -1;
}

uint64_t ClockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

JobInfo ReadJobInfo(const EnvLookup& env) {
  JobInfo job;
  for (const RankSource& source : kRankSources) {
    int64_t rank = Number(env, source.rank);
    if (rank < 0) continue;
    job.rank = rank;
    job.rank_variable = source.rank;
    job.world_size = Number(env, source.size);
    break;
  }
  for (const char* var : kLocalRankVariables) {
    job.local_rank = Number(env, var);
    if (job.local_rank >= 0) break;
  }
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) job.host = host;
  // Realtime between two reads of the steady clocks: the anchor's error is half their distance.
  uint64_t mono0 = ClockNs(CLOCK_MONOTONIC);
  uint64_t boot0 = ClockNs(CLOCK_BOOTTIME);
  job.realtime_ns = ClockNs(CLOCK_REALTIME);
  uint64_t mono1 = ClockNs(CLOCK_MONOTONIC);
  uint64_t boot1 = ClockNs(CLOCK_BOOTTIME);
  job.monotonic_ns = mono0 + (mono1 - mono0) / 2;
  job.boottime_ns = boot0 + (boot1 - boot0) / 2;
  return job;
}

bool ClaimTracePath(const std::string& path) {
  std::string absolute = path;
  char cwd[PATH_MAX];
  if (!path.empty() && path[0] != '/' && getcwd(cwd, sizeof(cwd)) != nullptr) {
    absolute = std::string(cwd) + "/" + path;
  }
  uint64_t hash = 1469598103934665603ull;  // FNV-1a: a name that fits sun_path whatever the path
  for (unsigned char c : absolute) hash = (hash ^ c) * 1099511628211ull;
  char name[64];
  const int n = std::snprintf(name, sizeof(name), "nodescope-trace-%016llx",
                              static_cast<unsigned long long>(hash));
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name, static_cast<size_t>(n));  // sun_path[0] = 0: abstract
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  // A claim listens (never accepts), so a later claimant can ask the kernel who holds it.
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) == 0) {
    listen(fd, SOMAXCONN);
    return true;  // fd kept
  }
  const int err = errno;
  close(fd);
  if (err != EADDRINUSE) return true;
  // Held. Believed only when the holder is one of ours: a process of this user that listens. Any
  // user can bind any abstract name; a name squatted by another user, or bound by something that
  // does not listen, does not rename the trace (the write itself still never replaces a file
  // another writer made meanwhile: base/atomic_file.h).
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  const int connected = connect(fd, reinterpret_cast<const sockaddr*>(&addr), len);
  const int connect_err = errno;
  ucred holder{};
  socklen_t cred_len = sizeof(holder);
  const bool known =
      connected == 0 && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &holder, &cred_len) == 0;
  close(fd);
  if (known) {
    if (holder.uid == getuid()) return false;
    LogWarning("claim_held_by_other_user",
               "a process of another user (pid %d, uid %u) holds the claim on %s; ignored",
               static_cast<int>(holder.pid), static_cast<unsigned>(holder.uid),
               TerminalText(path).c_str());
    return true;
  }
  if (connect_err == ECONNREFUSED) {
    LogWarning("claim_held_by_foreign_process",
               "a process that is not nodescope holds the claim on %s; ignored",
               TerminalText(path).c_str());
    return true;
  }
  return false;  // cannot tell (a full queue): named by pid, the safe side
}

}  // namespace nodescope
