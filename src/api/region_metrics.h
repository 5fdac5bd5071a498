// NODESCOPE_METRICS for an in-process session (nodescope_start_with_options' metrics=, the
// Python package's profile(metrics=...)): the program asked for it itself, so a thread of the
// session serves /metrics (metrics/http_server.h) with the figures `nodescope run --metrics`
// serves (metrics/registry.h), made from the session's records by metrics/record_figures.h.
//
// Every NODESCOPE_METRICS_INTERVAL_MS (default 1000; at least twice per ring age) the thread
// copies only the GPU records that ended since the last interval (TracingSession::CaptureRecent,
// no API record, never the whole window) and adds those that ended in (last end, now - 200 ms]:
// the margin lets the attribution decide a record's key before it counts. A streaming part is
// added as it leaves memory (AddPart). At nodescope_stop() the rest of the trace is added, every
// open replay closed: the served counts are then those `nodescope nodes` reads in the trace the
// session writes. The server answers until nodescope_destroy() (or exit).
//
// Safe at exit (an atexit handler stops the threads of every live instance before static
// destructors run), at fork (the child closes the inherited listening socket and never serves;
// its copies of the instance are left alone), and never blocking the program: the copy holds the
// backend's decode lock as a capture does, scrapes only read the registry.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/tracing_session.h"
#include "base/status.h"
#include "metrics/http_server.h"
#include "metrics/record_figures.h"
#include "metrics/registry.h"

namespace nodescope {

inline constexpr char kMetricsVariable[] = "NODESCOPE_METRICS";

class RegionMetrics {
 public:
  // Binds `listen` ("[ADDR:]PORT", "unix:PATH": metrics/http_server.h; 127.0.0.1 when no
  // address is named) before tracing starts: a port already taken is an error and the session
  // does not start. `max_series`: the per-node series limit (registry.h).
  static StatusOr<std::unique_ptr<RegionMetrics>> Listen(const std::string& listen,
                                                         size_t max_series);
  ~RegionMetrics();
  RegionMetrics(const RegionMetrics&) = delete;
  RegionMetrics& operator=(const RegionMetrics&) = delete;

  // Starts serving and the interval thread over `session` (which outlives this or Finish()).
  void Start(TracingSession* session);
  // A streaming part, under the lock AddPartLock() took before the part was cut: its records
  // that ended after the last interval are added (they leave memory with it).
  std::unique_lock<std::mutex> AddPartLock() { return std::unique_lock<std::mutex>(mu_); }
  void AddPartLocked(const Trace& part);
  // After the session stopped: the interval thread ended, the rest of `trace` added, every
  // replay closed. Serving goes on. Idempotent.
  void Finish(const Trace& trace);

  uint16_t port() const { return server_->port(); }
  std::string address() const { return address_.ToString(); }

 private:
  RegionMetrics() = default;
  void Run();
  void Interval();  // one copy, under mu_
  void Publish();   // under mu_
  void StopThread();
  void Shutdown();  // the thread and the server stopped; idempotent
  static void RegisterOnce();
  static void StopAllAtExit();

  TracingSession* session_ = nullptr;
  pid_t owner_ = 0;
  int listen_fd_ = -1;  // as registered for a forked child to close
  metrics::ListenAddress address_;
  std::unique_ptr<metrics::Registry> registry_;
  std::unique_ptr<metrics::HttpServer> server_;
  std::mutex mu_;  // the figures and fed_until_ns_
  metrics::RecordFigures figures_;
  uint64_t fed_until_ns_ = 0;
  bool finished_ = false;
  unsigned interval_ms_ = 1000;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nodescope
