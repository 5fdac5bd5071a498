// Writes the synthetic job of synthetic_job.h, one trace per rank, for the CLI tests, the README's
// example and the benchmark:
//   make_rank_traces DIR [RANKS [REPLAYS [STRAGGLER [SLOW_US]]]]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/merge/synthetic_job.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 6) {
    std::fprintf(stderr, "usage: make_rank_traces DIR [RANKS [REPLAYS [STRAGGLER [SLOW_US]]]]\n");
    return 2;
  }
  nodescope::analysis::synthetic::JobShape job;
  if (argc > 2) job.ranks = std::atoi(argv[2]);
  if (argc > 3) job.replays = std::atoi(argv[3]);
  if (argc > 4) job.straggler = std::atoi(argv[4]);
  if (argc > 5) job.slow_us = std::atof(argv[5]);
  for (const std::string& p : nodescope::analysis::synthetic::WriteRankTraces(job, argv[1])) {
    std::printf("%s\n", p.c_str());
  }
  return 0;
}
