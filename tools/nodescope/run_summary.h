// What `nodescope run` prints when the program has ended, from the lines on the report pipe.
// The program can write to that pipe too, so nothing in a line is trusted: a line is shown only
// if it parses strictly (api/run_report.h), and a trace line only if its path is the one this
// run gave that pid (report::TracePathFor) and that path is a regular file (not a link) written
// since the run started. Everything else is counted and said, never printed.
#pragma once

#include <time.h>

#include <cstdio>
#include <string>

#include "child_process.h"

namespace nodescope::cli {

struct RunContext {
  std::string output;  // NODESCOPE_OUTPUT as the program saw it; empty: nodescope-<pid>.json
  int root_pid = 0;    // the program's pid
  timespec started{};  // the output folder's clock when the run began (CheckWritable)
  std::string runtime = "the GPU runtime";  // the launcher's (backend.h), e.g. "CUDA"
};

void PrintRunSummary(const ChildResult& result, const RunContext& context, FILE* out);

}  // namespace nodescope::cli
