// What a traced process tells `nodescope run`: one line per process on the report pipe. Written by
// the library (process_session.cc), read by the CLI (tools/nodescope/run_command.cc); both use only
// this file, so the format lives in one place.
//
//   trace<TAB>pid=N<TAB>rank=R<TAB>gpu_events=N<TAB>kernels=N<TAB>memcpys=N<TAB>memsets=N<TAB>graph_events=N
//        <TAB>api_calls=N<TAB>dropped=N<TAB>buffers_refused=N<TAB>flush_ms=N<TAB>write_ms=N
//        <TAB>path=TEXT<LF>
//   empty<TAB>pid=N<TAB>api_calls=N<LF>        (no GPU work recorded: no trace file written)
//   error<TAB>pid=N<TAB>message=TEXT<LF>
//
// N is decimal digits only; R is N, or empty when the process has no rank (job_info.h); in TEXT a
// backslash, tab and newline are written \\, \t and \n. The traced program can write to the pipe
// too, so the reader trusts nothing in a line: it parses strictly, bounds what it keeps
// (kMaxLineBytes, kMaxReportBytes) and accepts a `path` only if it is the one TracePathFor() gives
// that pid and this run wrote it (run_command.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"

namespace nodescope::report {

// Variables `nodescope run` sets for the program.
inline constexpr char kFdVariable[] = "NODESCOPE_REPORT_FD";      // the pipe's write end
inline constexpr char kRootPidVariable[] = "NODESCOPE_ROOT_PID";  // the pid run started
inline constexpr char kOutputVariable[] = "NODESCOPE_OUTPUT";     // -o, when given

// What the reader keeps: a longer line is discarded whole; past the total, everything is
// discarded (and counted). A line is ~300 bytes plus its path, so 1 MiB holds thousands.
inline constexpr size_t kMaxLineBytes = 8192;
inline constexpr size_t kMaxReportBytes = size_t{1} << 20;

struct Line {
  enum class Kind { kTrace, kEmpty, kError };
  Kind kind = Kind::kTrace;
  uint64_t pid = 0;
  int64_t rank = -1;     // kTrace: the rank its path was named by (-1: by pid)
  TraceSummary summary;  // kTrace; kEmpty: api_calls only
  uint64_t flush_ms = 0;
  uint64_t write_ms = 0;
  std::string path;     // kTrace
  std::string message;  // kError
};

// The line for `line`, ending in '\n'.
std::string Format(const Line& line);
// Parses one line (without its '\n'): every field of its kind exactly once, nothing else.
StatusOr<Line> Parse(std::string_view text);

// The trace path a process with `pid` uses, given NODESCOPE_OUTPUT and NODESCOPE_ROOT_PID values
// (either may be null): the root writes `output` (default nodescope-<pid>.json), the processes it
// starts write <stem>-<pid><ext> beside it. A process of a job with a rank (`rank` >= 0, the
// root too) writes <stem>-rank<rank><ext> (default nodescope-rank<rank>.json) instead. When
// `output` is a device or a FIFO (-o /dev/null), no file is named after it: those processes write
// the default name in their folder.
std::string TracePathFor(const char* output, const char* root_pid, long pid, int64_t rank = -1);

// The writing side, for the traced process: the report pipe `nodescope run` passed
// (kFdVariable), or -1. A bad value is ignored with a warning (base/diagnostics.h), and so,
// silently, is an fd that is not a pipe (a value inherited from elsewhere must not make us write
// into an unrelated file).
int ReportFdFromEnv();
// Writes `line` to `fd` (nothing if fd < 0) in one write(): lines up to PIPE_BUF bytes from
// several processes never interleave.
void WriteLine(int fd, const Line& line);

}  // namespace nodescope::report
