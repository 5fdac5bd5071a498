// What `nodescope run` prints when the program has ended, from the lines on the report pipe.
// The program can write to that pipe too, so nothing in a line is trusted: a line is shown only
// if it parses strictly (model/run_report.h), and a trace line only if its path is the one this
// run gave that pid (report::TracePathFor, or that path named by pid when another writer took it
// meanwhile) and that path is a file written since the run started, or the device or FIFO named
// by -o. Everything else is counted and said, never printed.
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

// What the summary found: `failed` when a process reported that it could not trace or could not
// write its trace, or reported a trace that is not there (`run` then exits non-zero).
struct RunOutcome {
  size_t traces = 0;
  size_t failed = 0;
};

RunOutcome PrintRunSummary(const ChildResult& result, const RunContext& context, FILE* out);

}  // namespace nodescope::cli
