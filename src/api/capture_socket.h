// The capture socket (issue 14): `nodescope capture PID` asks a traced process to write its
// current window to a new file. The process session listens on a unix socket in the abstract
// namespace, "@nodescope-<pid>" (no file to clean up; gone with the process), or, when another
// process took that name first, "@nodescope-<pid>-<random>". One request per connection: the
// line "capture\n", answered "ok <path>\n" or "error <message>\n" (backslash and newline in
// them escaped as \\ and \n).
//
// Both ends check the other (issue 24): the server serves only a peer of its own user or root,
// and refuses another user's connection before reading anything from it; the client talks only
// to a socket whose listener is the process it named (SO_PEERCRED), so a name squatted by
// another process is never believed.
#pragma once

#include <poll.h>
#include <stdint.h>

#include <string>

#include "base/status.h"

namespace nodescope {

// "nodescope-<pid>": the socket's name, without the leading NUL of the abstract namespace.
std::string CaptureSocketName(long pid);

// The server side, driven by the service thread's poll loop: one listening socket and at most
// kMaxClients connections awaiting their request, each for at most kRequestDeadlineMs. No
// connection can hold the thread: reads never block, and a slow or silent client is dropped.
class CaptureServer {
 public:
  static constexpr int kMaxClients = 8;
  static constexpr int kRequestDeadlineMs = 1000;
  static constexpr size_t kMaxRequestBytes = 64;
  // Connections accepted per 100 ms at most: past that the listener is left to the kernel's
  // queue until the next window, so a flood of connections (another user's, refused) costs the
  // traced program at most this many accepts, not one per attempt.
  static constexpr int kAcceptsPerWindow = 64;
  static constexpr uint64_t kAcceptWindowNs = 100'000'000;

  CaptureServer() = default;
  CaptureServer(const CaptureServer&) = delete;
  CaptureServer& operator=(const CaptureServer&) = delete;
  ~CaptureServer();

  // Listens as process `pid` (close-on-exec, non-blocking). name() is the name taken.
  Status Listen(long pid);
  const std::string& name() const { return name_; }
  bool listening() const { return listen_fd_ >= 0; }

  // The descriptors to poll (the listener first unless it rests, then the clients): at most
  // 1 + kMaxClients.
  int PollFds(pollfd* fds, uint64_t now_ns) const;
  // Milliseconds until the next client's deadline or the listener's rest ends, or -1.
  int TimeoutMs(uint64_t now_ns) const;
  // After poll(): accepts, reads, answers complete requests (calling `capture`), drops clients
  // past their deadline. Returns how many requests were served (captures asked for).
  int Handle(const pollfd* fds, int n, uint64_t now_ns, StatusOr<std::string> (*capture)());

 private:
  struct Client {
    int fd = -1;
    uint64_t deadline_ns = 0;
    std::string request;
  };
  void Accept(uint64_t now_ns);
  void Drop(int i);
  bool Resting(uint64_t now_ns) const {
    return accepted_ >= kAcceptsPerWindow && now_ns < window_start_ns_ + kAcceptWindowNs;
  }

  int listen_fd_ = -1;
  std::string name_;
  Client clients_[kMaxClients];
  int count_ = 0;
  uint64_t window_start_ns_ = 0;
  int accepted_ = 0;  // in the window that began at window_start_ns_
};

// Asks process `pid` for a capture and waits (at most `timeout_ms`) for the path it wrote. A
// process that is not traced by nodescope, or a name held by another process, is a clear error;
// nothing is sent to a listener that is not `pid`.
StatusOr<std::string> RequestCapture(long pid, int timeout_ms);

// The escaping of an answer's text, and its inverse.
std::string EscapeAnswer(const std::string& text);
std::string UnescapeAnswer(const std::string& text);

}  // namespace nodescope
