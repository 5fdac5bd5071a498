// The capture socket (issue 14): `nodescope capture PID` asks a traced process to write its
// current window to a new file. The process session listens on a unix socket in the abstract
// namespace, "@nodescope-<pid>" (no file to clean up; gone with the process); one request per
// connection: the line "capture\n", answered "ok <path>\n" or "error <message>\n". Only a peer of
// the same user (or root) is served.
#pragma once

#include <string>

#include "base/status.h"

namespace nodescope {

// "nodescope-<pid>": the socket's name, without the leading NUL of the abstract namespace.
std::string CaptureSocketName(long pid);

// The listening socket of this process (close-on-exec, non-blocking accept).
StatusOr<int> ListenCaptureSocket(long pid);

// Serves one accepted connection: reads the request (at most 1 s), calls `capture` for a
// "capture" request and writes its answer. Refuses a peer of another user.
void ServeCaptureConnection(int fd, StatusOr<std::string> (*capture)());

// Asks process `pid` for a capture and waits (at most `timeout_ms`) for the path it wrote. A
// process that is not traced by nodescope is a clear error; nothing is sent to it.
StatusOr<std::string> RequestCapture(long pid, int timeout_ms);

}  // namespace nodescope
