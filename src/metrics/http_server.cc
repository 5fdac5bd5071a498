#include "metrics/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "metrics/exposition.h"

namespace nodescope::metrics {
namespace {

uint64_t NowMs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

struct Connection {
  int fd = -1;
  uint64_t deadline_ms = 0;
  std::string request;
  std::string answer;
  size_t sent = 0;
  bool answering = false;
  bool is_scrape = false;
  uint64_t render = 0;  // renders_ number of its body
};

std::string Answer(int code, const char* reason, const char* type, const std::string& body) {
  std::string a = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\n";
  a += "Content-Type: ";
  a += type;
  a += "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  a += body;
  return a;
}

// Whether the request's Accept header names OpenMetrics before the text format (q-values aside:
// Prometheus lists it first when it prefers it).
bool AcceptsOpenMetrics(const std::string& request) {
  size_t pos = 0;
  while ((pos = request.find('\n', pos)) != std::string::npos) {
    ++pos;
    if (request.size() - pos < 7) break;
    std::string name = request.substr(pos, 7);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name != "accept:") continue;
    const size_t end = request.find('\n', pos);
    const std::string value =
        request.substr(pos + 7, end == std::string::npos ? std::string::npos : end - pos - 7);
    const size_t om = value.find("application/openmetrics-text");
    const size_t text = value.find("text/plain");
    return om != std::string::npos && (text == std::string::npos || om < text);
  }
  return false;
}

}  // namespace

std::string ListenAddress::ToString() const {
  if (unix_socket) return path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

StatusOr<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress a;
  if (text.rfind("unix:", 0) == 0 || text.find('/') != std::string::npos) {
    a.unix_socket = true;
    a.path = text.rfind("unix:", 0) == 0 ? text.substr(5) : text;
    if (a.path.empty()) return InvalidArgumentError("--metrics: empty Unix socket path");
    if (a.path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      return InvalidArgumentError("--metrics: Unix socket path too long: " + a.path);
    }
    return a;
  }
  std::string port = text;
  a.host = "127.0.0.1";
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find("]:");
    if (close == std::string::npos) {
      return InvalidArgumentError("--metrics: expected [IPv6]:PORT, got '" + text + "'");
    }
    a.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host == "localhost") a.host = "127.0.0.1";
  }
  unsigned char buf[sizeof(in6_addr)];
  if (inet_pton(AF_INET, a.host.c_str(), buf) != 1 &&
      inet_pton(AF_INET6, a.host.c_str(), buf) != 1) {
    return InvalidArgumentError("--metrics: not a numeric address: '" + a.host + "'");
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
    return InvalidArgumentError("--metrics: not a port number: '" + port + "'");
  }
  a.port = static_cast<uint16_t>(std::stoul(port));
  return a;
}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Listen(const ListenAddress& address) {
  int fd = -1;
  if (address.unix_socket) {
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return ErrnoError("socket", errno);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, address.path.c_str(), sizeof(sa.sun_path) - 1);
    const mode_t old = umask(0177);  // 0600: only this user can connect
    const int r = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    const int err = errno;
    umask(old);
    if (r != 0) {
      close(fd);
      return ErrnoError(address.ToString(), err);
    }
    unix_path_ = address.path;
  } else {
    const bool v6 = address.host.find(':') != std::string::npos;
    fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return ErrnoError("socket", errno);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
               sizeof(one));  // TIME_WAIT only, not a taken port
    int r = 0;
    if (v6) {
      sockaddr_in6 sa{};
      sa.sin6_family = AF_INET6;
      sa.sin6_port = htons(address.port);
      inet_pton(AF_INET6, address.host.c_str(), &sa.sin6_addr);
      r = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    } else {
      sockaddr_in sa{};
      sa.sin_family = AF_INET;
      sa.sin_port = htons(address.port);
      inet_pton(AF_INET, address.host.c_str(), &sa.sin_addr);
      r = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    }
    if (r != 0) {
      const int err = errno;
      close(fd);
      return ErrnoError(address.ToString(), err);
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  if (listen(fd, 512) != 0) {
    const int err = errno;
    close(fd);
    if (!unix_path_.empty()) unlink(unix_path_.c_str());
    return ErrnoError(address.ToString(), err);
  }
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    close(fd);
    return ErrnoError("pipe", err);
  }
  listen_fd_ = fd;
  return OkStatus();
}

void HttpServer::Start() {
  if (listen_fd_ < 0 || thread_.joinable()) return;
  thread_ = std::thread([this] {
    sigset_t all;  // signals go to the threads that handle them, never here
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    Loop();
  });
}

void HttpServer::Stop() {
  if (thread_.joinable()) {
    stop_.store(true);
    (void)!write(wake_[1], "x", 1);
    thread_.join();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
  for (int& fd : wake_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  if (!unix_path_.empty()) unlink(unix_path_.c_str());
  unix_path_.clear();
}

void HttpServer::Loop() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  uint64_t drain_until_ms = 0;  // stopping: no new connections, those open answered until then
  while (true) {
    if (stop_.load() && drain_until_ms == 0) {
      drain_until_ms = NowMs() + kDrainMs;
      close(listen_fd_);  // new connections are refused from now on, not left unanswered
      listen_fd_ = -1;
    }
    if (drain_until_ms != 0 && (conns.empty() || NowMs() >= drain_until_ms)) break;
    fds.clear();
    fds.push_back({drain_until_ms == 0 ? wake_[0] : -1, POLLIN, 0});
    const bool accepting =
        drain_until_ms == 0 && conns.size() < static_cast<size_t>(kMaxConnections);
    fds.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});
    const uint64_t now = NowMs();
    int timeout = drain_until_ms != 0 ? 20 : 1000;
    for (const Connection& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
      const int left = c.deadline_ms > now ? static_cast<int>(c.deadline_ms - now) : 0;
      if (left < timeout) timeout = left;
    }
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLIN) {
      for (int i = 0; i < 64 && conns.size() < static_cast<size_t>(kMaxConnections); ++i) {
        const int c = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) break;
        Connection conn;
        conn.fd = c;
        conn.deadline_ms = NowMs() + kDeadlineMs;
        conns.push_back(std::move(conn));
      }
    }
    const uint64_t after = NowMs();
    for (size_t i = 0; i + 2 < fds.size() && i < conns.size(); ++i) {
      Connection& c = conns[i];
      const short ev = fds[i + 2].revents;
      bool done = false;
      if (!c.answering && (ev & (POLLIN | POLLHUP | POLLERR))) {
        char buf[2048];
        const ssize_t n = read(c.fd, buf, sizeof(buf));
        if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) {
          done = true;
        } else if (n > 0) {
          c.request.append(buf, static_cast<size_t>(n));
          const size_t end = c.request.find("\r\n\r\n");
          const size_t end_lf = c.request.find("\n\n");
          if (end != std::string::npos || end_lf != std::string::npos) {
            const size_t line_end = c.request.find_first_of("\r\n");
            const std::string line = c.request.substr(0, line_end);
            std::string path;
            const bool get = line.rfind("GET ", 0) == 0 || line.rfind("HEAD ", 0) == 0;
            if (get) {
              const size_t sp = line.find(' ');
              const size_t sp2 = line.find(' ', sp + 1);
              path =
                  line.substr(sp + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp - 1);
              path = path.substr(0, path.find('?'));
            }
            if (!get) {
              c.answer = Answer(405, "Method Not Allowed", "text/plain", "GET /metrics\n");
            } else if (path == "/metrics") {
              const bool om = AcceptsOpenMetrics(c.request);
              c.is_scrape = true;
              c.render = renders_.fetch_add(1) + 1;  // numbered before the body is made
              c.answer =
                  Answer(200, "OK", om ? kOpenMetricsContentType : kTextContentType, body_(om));
            } else if (path == "/") {
              c.answer = Answer(200, "OK", "text/plain", "nodescope: see /metrics\n");
            } else {
              c.answer = Answer(404, "Not Found", "text/plain", "not found: try /metrics\n");
            }
            if (line.rfind("HEAD ", 0) == 0)
              c.answer = c.answer.substr(0, c.answer.find("\r\n\r\n") + 4);
            c.answering = true;
          } else if (c.request.size() > kMaxRequestBytes) {
            c.answer = Answer(431, "Request Header Fields Too Large", "text/plain", "too large\n");
            c.answering = true;
          }
        }
      }
      if (c.answering && !done && (ev & POLLOUT || c.sent == 0)) {
        while (c.sent < c.answer.size()) {
          const ssize_t n =
              send(c.fd, c.answer.data() + c.sent, c.answer.size() - c.sent, MSG_NOSIGNAL);
          if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) done = true;
            break;
          }
          c.sent += static_cast<size_t>(n);
        }
        if (c.sent == c.answer.size()) {
          if (c.is_scrape) {
            scrapes_.fetch_add(1);
            uint64_t seen = answered_render_.load();
            while (c.render > seen && !answered_render_.compare_exchange_weak(seen, c.render)) {
            }
          }
          done = true;
        }
      }
      if (ev & (POLLERR | POLLNVAL)) done = true;
      if (after >= c.deadline_ms) done = true;  // never sent a request, or never read the answer
      if (done) {
        close(c.fd);
        c.fd = -1;
      }
    }
    std::erase_if(conns, [](const Connection& c) { return c.fd < 0; });
  }
  for (Connection& c : conns) close(c.fd);
}

}  // namespace nodescope::metrics
