// `nodescope run --metrics [ADDR:]PORT|PATH`: serves the traced process's per-node figures as
// Prometheus text at /metrics, from this process (src/metrics), fed by the program through the
// metrics pipe (api/metrics_feed.h) and, at the end, by its trace file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "child_process.h"
#include "metrics/http_server.h"
#include "metrics/registry.h"

namespace nodescope::cli {

struct MetricsOptions {
  std::string listen;  // empty: no --metrics
  size_t max_series = metrics::kDefaultMaxNodeSeries;
  double linger_s = 30;  // after the program ends, serve until one scrape or this long
};

class RunMetrics {
 public:
  RunMetrics() = default;
  ~RunMetrics();
  // Binds (before the program starts: an address in use is an error), starts serving, makes the
  // pipe. `env` gets NODESCOPE_METRICS_FD.
  Status Start(const MetricsOptions& options, std::vector<std::string>* env);
  // After the program ended: the figures of its trace file (the one the report names for the
  // root pid), then serving until one scrape after them or the linger time; then stops.
  void Finish(const ChildResult& result, const std::string& output);

 private:
  void ReadFeed();
  MetricsOptions options_;
  std::unique_ptr<metrics::Registry> registry_;
  std::unique_ptr<metrics::HttpServer> server_;
  int pipe_[2] = {-1, -1};
  int child_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread reader_;
};

}  // namespace nodescope::cli
