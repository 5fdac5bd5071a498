// A small HTTP/1.0-style server for /metrics: one thread, poll(), non-blocking sockets, every
// connection closed after one answer. Bounded: at most kMaxConnections open (the kernel's listen
// queue holds the rest), a request of at most 8 KiB, and a deadline per connection (a client
// that never sends or never reads is dropped), so no client can stall the others or the server.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "base/status.h"

namespace nodescope::metrics {

// Where to listen: "[ADDR:]PORT" (ADDR an IPv4 address, "[IPv6]", or "localhost"; 127.0.0.1
// when left out), or a Unix socket path (one that contains a '/', or "unix:PATH").
struct ListenAddress {
  bool unix_socket = false;
  std::string host;  // numeric
  uint16_t port = 0;
  std::string path;
  std::string ToString() const;
};
StatusOr<ListenAddress> ParseListenAddress(const std::string& text);

class HttpServer {
 public:
  static constexpr int kMaxConnections = 256;
  static constexpr int kDeadlineMs = 10000;
  static constexpr size_t kMaxRequestBytes = 8192;
  // Stop() answers the connections already accepted for at most this long.
  static constexpr int kDrainMs = 2000;

  // The body of GET /metrics, made at each scrape: OpenMetrics when the scraper accepts it.
  using Body = std::function<std::string(bool openmetrics)>;
  explicit HttpServer(Body body) : body_(std::move(body)) {}
  ~HttpServer();

  // Binds and listens (errors name the address: "127.0.0.1:9400: Address already in use"). A
  // Unix socket is created 0600 and must not exist yet.
  Status Listen(const ListenAddress& address);
  // The listening socket (-1 before Listen()): a forked child closes its copy.
  int listen_fd() const { return listen_fd_; }
  // The port bound (useful with port 0).
  uint16_t port() const { return port_; }
  void Start();
  // Stops accepting, answers the connections already accepted (for at most kDrainMs; a client
  // that does not send or read is closed then), and removes a Unix socket it created.
  void Stop();
  // Complete answers to GET /metrics so far.
  uint64_t scrapes() const { return scrapes_.load(); }
  // Bodies of /metrics made so far (numbered from 1 in the order they were made), and the
  // largest number among those answered in full: a scrape that read figures updated after
  // renders() was N has answered once answered_render() > N.
  uint64_t renders() const { return renders_.load(); }
  uint64_t answered_render() const { return answered_render_.load(); }

 private:
  void Loop();
  Body body_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::string unix_path_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> scrapes_{0};
  std::atomic<uint64_t> renders_{0};
  std::atomic<uint64_t> answered_render_{0};
};

}  // namespace nodescope::metrics
