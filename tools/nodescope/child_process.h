// Starting the traced program: PATH lookup, fork/exec with extra environment, signal forwarding,
// and the exit status as a shell reports it.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace nodescope::cli {

// Resolves `program` like execvp: a name with '/' is used as is, else searched in `path_env`.
// NOT_FOUND if missing, PERMISSION_DENIED if found but not executable.
StatusOr<std::string> ResolveProgram(const std::string& program, const char* path_env);

struct ChildResult {
  int pid = 0;              // the program's pid
  int exit_status = 0;      // as a shell reports it: code, or 128 + signal
  int signal = 0;           // the terminating signal, 0 if it exited
  std::vector<std::string> report_lines;  // lines the traced processes wrote to the report pipe
};

// Runs `argv` (argv[0] already resolved) with `extra_env` added, forwarding SIGINT/SIGTERM/SIGHUP/
// SIGQUIT that are sent to us (a terminal's Ctrl-C already reaches the whole process group).
// The child finds the report pipe's write end in NODESCOPE_REPORT_FD and its own pid in
// NODESCOPE_ROOT_PID (processes it starts in turn write their own trace files).
StatusOr<ChildResult> RunChild(const std::vector<std::string>& argv,
                               const std::vector<std::string>& extra_env);

// Checks that `path` can be created, without leaving anything behind.
Status CheckWritable(const std::string& path);

}  // namespace nodescope::cli
