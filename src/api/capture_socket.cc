// The capture socket: abstract unix socket, one line each way.
#include "api/capture_socket.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nodescope {
namespace {

socklen_t AbstractAddress(long pid, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  const std::string name = CaptureSocketName(pid);
  std::memcpy(addr->sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// Reads one line (without its '\n') within `timeout_ms`.
StatusOr<std::string> ReadLine(int fd, int timeout_ms) {
  std::string line;
  char c = 0;
  while (line.size() < 4096) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0)
      return UnavailableError("no answer within " + std::to_string(timeout_ms) + " ms");
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') return line;
    line.push_back(c);
  }
  return line;
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string CaptureSocketName(long pid) { return "nodescope-" + std::to_string(pid); }

StatusOr<int> ListenCaptureSocket(long pid) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoError("socket", errno);
  sockaddr_un addr;
  const socklen_t len = AbstractAddress(pid, &addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd, 4) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoError("capture socket @" + CaptureSocketName(pid), err);
  }
  return fd;
}

void ServeCaptureConnection(int fd, StatusOr<std::string> (*capture)()) {
  ucred peer{};
  socklen_t len = sizeof(peer);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      (peer.uid != getuid() && peer.uid != 0)) {
    WriteAll(fd, "error refused: the requesting process belongs to another user\n");
    return;
  }
  StatusOr<std::string> request = ReadLine(fd, 1000);
  if (!request.ok() || *request != "capture") {
    WriteAll(fd, "error unknown request (expected \"capture\")\n");
    return;
  }
  StatusOr<std::string> path = capture();
  WriteAll(fd, path.ok() ? "ok " + *path + "\n" : "error " + path.status().ToString() + "\n");
}

StatusOr<std::string> RequestCapture(long pid, int timeout_ms) {
  if (pid <= 0) return InvalidArgumentError("not a process id: " + std::to_string(pid));
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
    return NotFoundError("no process " + std::to_string(pid));
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket", errno);
  sockaddr_un addr;
  const socklen_t len = AbstractAddress(pid, &addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    const int err = errno;
    close(fd);
    if (err == ECONNREFUSED || err == ENOENT) {
      return FailedPreconditionError("process " + std::to_string(pid) +
                                     " is not traced by nodescope (nothing listens on @" +
                                     CaptureSocketName(pid) + "; start it with `nodescope run`)");
    }
    return ErrnoError("connect to @" + CaptureSocketName(pid), err);
  }
  WriteAll(fd, "capture\n");
  StatusOr<std::string> answer = ReadLine(fd, timeout_ms);
  close(fd);
  if (!answer.ok()) return answer.status();
  if (answer->rfind("ok ", 0) == 0) return answer->substr(3);
  if (answer->rfind("error ", 0) == 0) return UnavailableError(answer->substr(6));
  return DataLossError("unexpected answer from process " + std::to_string(pid) + ": " + *answer);
}

}  // namespace nodescope
