// Starting the traced program: PATH lookup, fork/exec with extra environment, signal forwarding,
// and the exit status as a shell reports it.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/run_report.h"

namespace nodescope::cli {

// Resolves `program` like execvp: a name with '/' is used as is, else searched in `path_env`.
// NOT_FOUND if missing, PERMISSION_DENIED if found but not executable.
StatusOr<std::string> ResolveProgram(const std::string& program, const char* path_env);

// What is kept of the report pipe: the traced program can write to it too, without limit.
struct ReportLimits {
  size_t max_line_bytes = report::kMaxLineBytes;     // a longer line is discarded whole
  size_t max_total_bytes = report::kMaxReportBytes;  // past this every line is discarded
};

struct ChildResult {
  int pid = 0;                            // the program's pid
  int exit_status = 0;                    // as a shell reports it: code, or 128 + signal
  int signal = 0;                         // the terminating signal, 0 if it exited
  std::vector<std::string> report_lines;  // lines the traced processes wrote to the report pipe
  uint64_t report_bytes_discarded = 0;    // over the limits, or a last line without '\n'
};

// Runs `argv` (argv[0] already resolved) with `extra_env` added. Every catchable signal that
// would end us (HUP, INT, QUIT, TERM, USR1, USR2, ALRM, PIPE, realtime, ...) is passed on to the
// program instead (a terminal's Ctrl-C already reaches the whole process group, so it is not
// sent twice); if we end anyway (SIGKILL, a fault) the kernel sends the program SIGKILL
// (PR_SET_PDEATHSIG), so it is never left running without us.
// The child finds the report pipe's write end in NODESCOPE_REPORT_FD and its own pid in
// NODESCOPE_ROOT_PID (processes it starts in turn write their own trace files).
// The pipe is read while the program runs (never left full, so writers never block) and kept
// within `limits`; the rest is drained and counted in report_bytes_discarded.
StatusOr<ChildResult> RunChild(const std::vector<std::string>& argv,
                               const std::vector<std::string>& extra_env,
                               const ReportLimits& limits = {});

// Checks that `path` can be created, without leaving anything behind. Returns the modification
// time of the probe it created beside `path`: "now" on the clock of the file system that the
// trace will be written to (a file written after this is at least as new).
StatusOr<timespec> CheckWritable(const std::string& path);

}  // namespace nodescope::cli
