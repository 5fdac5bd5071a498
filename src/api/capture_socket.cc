// The capture socket: abstract unix socket, one line each way, peers checked both ways.
#include "api/capture_socket.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "base/clock.h"

namespace nodescope {
namespace {

socklen_t AbstractAddress(const std::string& name, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  const size_t n = std::min(name.size(), sizeof(addr->sun_path) - 1);
  std::memcpy(addr->sun_path + 1, name.data(), n);  // sun_path[0] = 0: abstract
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a peer that does not read its answer loses it
    done += static_cast<size_t>(n);
  }
}

bool PeerOf(int fd, ucred* peer) {
  socklen_t len = sizeof(*peer);
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, peer, &len) == 0;
}

// Reads one line (without its '\n') within `timeout_ms` in all. EOF before a newline: what came.
StatusOr<std::string> ReadLine(int fd, int timeout_ms, bool* closed) {
  std::string line;
  const uint64_t deadline = NowNs() + static_cast<uint64_t>(timeout_ms) * 1000000;
  char buf[512];
  while (line.size() < 65536) {
    const uint64_t now = NowNs();
    if (now >= deadline) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>((deadline - now) / 1000000 + 1));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *closed = true;
      return line;
    }
    const char* nl = static_cast<const char*>(std::memchr(buf, '\n', static_cast<size_t>(n)));
    line.append(buf, nl != nullptr ? static_cast<size_t>(nl - buf) : static_cast<size_t>(n));
    if (nl != nullptr) return line;
  }
  return UnavailableError("no answer within " + std::to_string(timeout_ms) + " ms");
}

// The names a process `pid` may listen on: "@nodescope-<pid>", then "@nodescope-<pid>-*" as
// /proc/net/unix lists them (the abstract names of this network namespace).
std::vector<std::string> CandidateNames(long pid) {
  std::vector<std::string> names = {CaptureSocketName(pid)};
  // Appended, not "@" + name: g++ 12 -O3 misreads that as an overlapping memcpy (-Wrestrict,
  // GCC bug 105329).
  std::string prefix = "@";
  prefix += CaptureSocketName(pid);
  prefix += '-';
  std::ifstream table("/proc/net/unix");
  std::string line;
  while (std::getline(table, line) && names.size() < 64) {
    const size_t at = line.rfind(' ');
    if (at == std::string::npos || line.compare(at + 1, prefix.size(), prefix) != 0) continue;
    const std::string name = line.substr(at + 2);
    bool seen = false;
    for (const std::string& n : names) seen = seen || n == name;
    if (!seen) names.push_back(name);
  }
  return names;
}

}  // namespace

std::string CaptureSocketName(long pid) { return "nodescope-" + std::to_string(pid); }

std::string EscapeAnswer(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeAnswer(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
      out += text[i] == 'n' ? '\n' : text[i];
    } else {
      out += text[i];
    }
  }
  return out;
}

CaptureServer::~CaptureServer() {
  for (int i = count_ - 1; i >= 0; --i) Drop(i);
  if (listen_fd_ >= 0) close(listen_fd_);
}

Status CaptureServer::Listen(long pid) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return ErrnoError("socket", errno);
  // Another process may hold our name (any user can bind any abstract name): then a name with
  // a random suffix, which `nodescope capture` finds in /proc/net/unix and checks by pid.
  std::string name = CaptureSocketName(pid);
  int err = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (attempt > 0) {
      uint32_t r = 0;
      if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
        r = static_cast<uint32_t>(NowNs() * 2654435761u) ^ static_cast<uint32_t>(attempt);
      }
      char suffix[16];
      std::snprintf(suffix, sizeof(suffix), "-%08x", r);
      name = CaptureSocketName(pid) + suffix;
    }
    sockaddr_un addr;
    const socklen_t len = AbstractAddress(name, &addr);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0) {
      if (listen(fd, kMaxClients) != 0) break;
      listen_fd_ = fd;
      name_ = name;
      return OkStatus();
    }
    err = errno;
    if (err != EADDRINUSE) break;
  }
  if (err == 0) err = errno;
  close(fd);
  return ErrnoError("capture socket @" + CaptureSocketName(pid), err);
}

int CaptureServer::PollFds(pollfd* fds, uint64_t now_ns) const {
  int n = 0;
  // A resting listener is polled as -1 (ignored), so the clients' indices stay the same.
  if (listen_fd_ >= 0) fds[n++] = pollfd{Resting(now_ns) ? -1 : listen_fd_, POLLIN, 0};
  for (int i = 0; i < count_; ++i) fds[n++] = pollfd{clients_[i].fd, POLLIN, 0};
  return n;
}

int CaptureServer::TimeoutMs(uint64_t now_ns) const {
  int timeout = -1;
  for (int i = 0; i < count_; ++i) {
    const uint64_t d = clients_[i].deadline_ns;
    const int ms = d <= now_ns ? 0 : static_cast<int>((d - now_ns) / 1000000 + 1);
    timeout = timeout < 0 ? ms : std::min(timeout, ms);
  }
  if (Resting(now_ns)) {
    const int ms = static_cast<int>((window_start_ns_ + kAcceptWindowNs - now_ns) / 1000000 + 1);
    timeout = timeout < 0 ? ms : std::min(timeout, ms);
  }
  return timeout;
}

void CaptureServer::Drop(int i) {
  close(clients_[i].fd);
  clients_[i] = std::move(clients_[count_ - 1]);
  clients_[count_ - 1] = Client{};
  --count_;
}

void CaptureServer::Accept(uint64_t now_ns) {
  if (now_ns >= window_start_ns_ + kAcceptWindowNs) {
    window_start_ns_ = now_ns;
    accepted_ = 0;
  }
  // Bounded per window, so a flood of connections cannot keep the thread busy.
  while (accepted_ < kAcceptsPerWindow) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    ++accepted_;
    ucred peer{};
    if (!PeerOf(fd, &peer) || (peer.uid != getuid() && peer.uid != 0)) {
      WriteAll(fd, "error refused: the requesting process belongs to another user\n");
      close(fd);
      continue;
    }
    if (count_ == kMaxClients) {
      WriteAll(fd, "error busy: too many requests waiting; try again\n");
      close(fd);
      continue;
    }
    clients_[count_++] =
        Client{fd, now_ns + static_cast<uint64_t>(kRequestDeadlineMs) * 1000000, {}};
  }
}

int CaptureServer::Handle(const pollfd* fds, int n, uint64_t now_ns,
                          StatusOr<std::string> (*capture)()) {
  int served = 0;
  // Clients first (their indices match fds[1..] only before Accept adds more).
  const int first = listen_fd_ >= 0 ? 1 : 0;  // the listener's slot, resting (-1) or not
  std::vector<int> done;
  for (int k = first; k < n; ++k) {
    const int i = k - first;
    if (i >= count_ || fds[k].fd != clients_[i].fd) continue;
    Client& c = clients_[i];
    bool finished = now_ns >= c.deadline_ns;
    if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      char buf[kMaxRequestBytes];
      const ssize_t got = recv(c.fd, buf, sizeof(buf), 0);
      if (got <= 0) {
        finished = got == 0 || (errno != EAGAIN && errno != EINTR);
      } else {
        c.request.append(buf, static_cast<size_t>(got));
        const size_t nl = c.request.find('\n');
        if (nl != std::string::npos) {
          if (c.request.compare(0, nl, "capture") == 0 && nl == 7) {
            StatusOr<std::string> path = capture();
            ++served;
            WriteAll(c.fd, path.ok() ? "ok " + EscapeAnswer(*path) + "\n"
                                     : "error " + EscapeAnswer(path.status().ToString()) + "\n");
          } else {
            WriteAll(c.fd, "error unknown request (expected \"capture\")\n");
          }
          finished = true;
        } else if (c.request.size() >= kMaxRequestBytes) {
          WriteAll(c.fd, "error unknown request (expected \"capture\")\n");
          finished = true;
        }
      }
    }
    if (finished) done.push_back(i);
  }
  for (int i = count_ - 1; i >= 0; --i) {  // expired ones too, whatever poll said
    bool drop = now_ns >= clients_[i].deadline_ns;
    for (int d : done) drop = drop || d == i;
    if (drop) Drop(i);
  }
  if (listen_fd_ >= 0 && n > 0 && fds[0].fd == listen_fd_ && (fds[0].revents & POLLIN) != 0 &&
      !Resting(now_ns)) {
    Accept(now_ns);
  }
  return served;
}

StatusOr<std::string> RequestCapture(long pid, int timeout_ms) {
  if (pid <= 0) return InvalidArgumentError("not a process id: " + std::to_string(pid));
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
    return NotFoundError("no process " + std::to_string(pid));
  }
  std::string impostors;
  for (const std::string& name : CandidateNames(pid)) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return ErrnoError("socket", errno);
    sockaddr_un addr;
    const socklen_t len = AbstractAddress(name, &addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      close(fd);
      continue;
    }
    // The listener is the process named, or this is not our socket: nothing is sent to it.
    ucred peer{};
    if (!PeerOf(fd, &peer) || peer.pid != static_cast<pid_t>(pid)) {
      impostors += (impostors.empty() ? "" : ", ") + std::string("@") + name + " is held by pid " +
                   std::to_string(peer.pid) + " (uid " + std::to_string(peer.uid) + ")";
      close(fd);
      continue;
    }
    WriteAll(fd, "capture\n");
    bool closed = false;
    StatusOr<std::string> answer = ReadLine(fd, timeout_ms, &closed);
    close(fd);
    if (!answer.ok()) return answer.status();
    if (closed && answer->empty()) {
      return UnavailableError("process " + std::to_string(pid) +
                              " closed the connection without answering (did it exit while "
                              "capturing?)");
    }
    if (answer->rfind("ok ", 0) == 0) return UnescapeAnswer(answer->substr(3));
    if (answer->rfind("error ", 0) == 0) return UnavailableError(UnescapeAnswer(answer->substr(6)));
    return DataLossError("unexpected answer from process " + std::to_string(pid) + " (" +
                         std::to_string(answer->size()) + " bytes, not \"ok\" or \"error\")");
  }
  if (!impostors.empty()) {
    return FailedPreconditionError("process " + std::to_string(pid) +
                                   " does not answer as nodescope, and another process holds its "
                                   "name: " +
                                   impostors + "; nothing was sent to it");
  }
  return FailedPreconditionError("process " + std::to_string(pid) +
                                 " is not traced by nodescope (nothing listens on @" +
                                 CaptureSocketName(pid) + "; start it with `nodescope run`)");
}

}  // namespace nodescope
