// Synthetic traces of a job's ranks, written by nodescope's own writer (export/), for the tests of
// `merge` and of `nodes` across ranks, their CLI tests (make_rank_traces) and the benchmark
// (bench/nodes_ranks_bench.cc): every rank replays one graph of
//   node 0  gemm_a      10 us
//   node 1  gemm_b      20 us (+ `slow_us` on the straggler rank)
//   node 2  ncclDevKernel_AllReduce_Sum_f32_RING_LL   (starts when node 1 ends; ends when the
//                                                      last rank's copy has run 5 us)
//   node 3  relu         3 us
// with 1 us between nodes, one replay every 1000 us, each rank's trace starting `rank` ms after
// the first (its own baseTimeNanoseconds) and each rank's graph its own graph id (2 + rank), as
// in separate processes. So the straggler's all-reduce starts `slow_us` after the others', and
// each other rank waits `slow_us` in it in every replay.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "export/chrome_trace_writer.h"

namespace nodescope::analysis::synthetic {

inline constexpr uint64_t kJobStart = 1700000000000000000ull;
inline constexpr uint64_t kReplayPeriodNs = 1000000;  // 1 ms
inline constexpr const char* kNodeNames[] = {"gemm_a", "gemm_b",
                                             "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "relu"};

struct JobShape {
  int ranks = 2;
  int replays = 10;
  int straggler = 1;
  double slow_us = 50;
};

// Absolute start (ns) of the replay's all-reduce on `rank`.
inline uint64_t AllReduceStart(const JobShape& job, int rank, int replay) {
  const uint64_t replay_start =
      kJobStart + 10000000 + static_cast<uint64_t>(replay) * kReplayPeriodNs;
  const uint64_t slow = rank == job.straggler ? static_cast<uint64_t>(job.slow_us * 1000) : 0;
  return replay_start + 10000 + 1000 + 20000 + slow + 1000;
}

inline Trace RankTrace(const JobShape& job, int rank) {
  Trace t;
  t.pid = 1000 + static_cast<uint32_t>(rank);
  t.process_name = "python3";
  t.start_ns = kJobStart + static_cast<uint64_t>(rank) * 1000000;  // ranks start 1 ms apart
  t.job.rank = rank;
  t.job.rank_variable = "RANK";
  t.job.world_size = job.ranks;
  t.job.host = "hostA";
  t.job.realtime_ns = t.start_ns;
  t.job.boottime_ns = t.start_ns - 5000000000ull;  // one host: realtime - boottime the same
  const uint32_t graph = 2 + static_cast<uint32_t>(rank);
  for (int replay = 0; replay < job.replays; ++replay) {
    const uint32_t corr = 100 + static_cast<uint32_t>(replay);
    const uint64_t replay_start =
        kJobStart + 10000000 + static_cast<uint64_t>(replay) * kReplayPeriodNs;
    ApiCall launch{};
    launch.domain = ApiDomain::kRuntime;
    launch.name = t.strings.Intern("cudaGraphLaunch");
    launch.pid = t.pid;
    launch.tid = t.pid;
    launch.correlation_id = corr;
    launch.start_ns = replay_start - 5000;
    launch.end_ns = replay_start - 1000;
    t.api.push_back(launch);
    uint64_t ar_last = 0;
    for (int r = 0; r < job.ranks; ++r) ar_last = std::max(ar_last, AllReduceStart(job, r, replay));
    const uint64_t slow = rank == job.straggler ? static_cast<uint64_t>(job.slow_us * 1000) : 0;
    const uint64_t ar_start = AllReduceStart(job, rank, replay);
    const uint64_t starts[] = {replay_start, replay_start + 11000, ar_start, ar_last + 5000 + 1000};
    const uint64_t ends[] = {replay_start + 10000, replay_start + 31000 + slow, ar_last + 5000,
                             ar_last + 5000 + 1000 + 3000};
    for (uint32_t k = 0; k < 4; ++k) {
      GpuActivity a{};
      a.kind = ActivityKind::kKernel;
      a.start_ns = starts[k];
      a.end_ns = ends[k];
      a.correlation_id = corr;
      a.device = static_cast<uint32_t>(rank);
      a.context = 1;
      a.stream = 7;
      a.graph_id = graph;
      a.graph_node_id = (uint64_t{graph} << 32) | k;
      a.kernel.name = t.strings.Intern(kNodeNames[k]);
      a.kernel.grid[0] = a.kernel.block[0] = 1;
      a.kernel.grid[1] = a.kernel.grid[2] = a.kernel.block[1] = a.kernel.block[2] = 1;
      t.gpu.push_back(a);
    }
  }
  t.end_ns = kJobStart + 10000000 + static_cast<uint64_t>(job.replays + 1) * kReplayPeriodNs;
  return t;
}

// Writes each rank's trace into `dir` (a fresh folder under /tmp when empty) as rank<R>.json;
// returns the paths by rank. Aborts when a file cannot be written.
inline std::vector<std::string> WriteRankTraces(const JobShape& job, std::string dir = "") {
  if (dir.empty()) {
    char tmpl[] = "/tmp/nodescope-ranks-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  std::vector<std::string> paths;
  for (int r = 0; r < job.ranks; ++r) {
    std::string path = dir + "/rank" + std::to_string(r) + ".json";
    Status s = WriteChromeTraceFile(RankTrace(job, r), path);
    if (!s.ok()) {
      LogError("synthetic_job", "%s", s.ToString().c_str());
      std::abort();
    }
    paths.push_back(path);
  }
  return paths;
}

}  // namespace nodescope::analysis::synthetic
