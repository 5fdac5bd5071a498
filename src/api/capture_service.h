// Capture on demand for the whole-process session (issue 14). One thread of the traced process
// takes every request to write the current window to a new file while the program goes on:
//   SIGUSR2, when the application left it at SIG_DFL (the handler only writes a byte to a pipe;
//   the file is written by the service thread, never inside the handler);
//   `nodescope capture PID`, through the socket "@nodescope-<pid>" (capture_socket.h);
//   every `every_ns` (NODESCOPE_CAPTURE_EVERY, `nodescope run --capture-every`);
//   streaming (NODESCOPE_STREAM): a part each time `stream_records` records are held.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace nodescope {

struct CaptureTriggers {
  StatusOr<std::string> (*capture)() = nullptr;  // writes the next <trace>.capture-<n>.json
  StatusOr<std::string> (*part)() = nullptr;     // writes the next part and releases it
  uint64_t (*held)() = nullptr;                  // records held now (vendor buffers flushed)
  uint64_t every_ns = 0;
  uint64_t stream_records = 0;
};

// Starts the service thread (once per process); the socket and the signal are always offered.
void StartCaptureService(const CaptureTriggers& triggers);

// "<trace path without .json>.<kind>-<n>.json": run.json -> run.capture-2.json, run.part-3.json.
std::string WindowFilePath(const std::string& trace_path, const char* kind, uint64_t n);

}  // namespace nodescope
