// Whole-process tracing for `nodescope run`: started by a vendor's injection hook, finished at
// exit, on SIGINT/SIGTERM/SIGHUP, or on a crash, always leaving a complete trace file.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace nodescope {

// Starts the named backend for the whole process and arranges for the trace to be written.
// Idempotent: a second call (a second injection hook) is a no-op. Never throws.
// Environment: NODESCOPE_OUTPUT (path), NODESCOPE_ROOT_PID (the pid `nodescope run` started;
// other processes write <stem>-<pid>.json), NODESCOPE_REPORT_FD (where the summary line goes;
// the format and the path rule are in model/run_report.h).
Status StartProcessSession(std::string_view backend);

// True while a process session is tracing (the in-process API then refuses to start its own).
bool ProcessSessionActive();

}  // namespace nodescope
