// `nodescope run --metrics [ADDR:]PORT|PATH`: serves the traced process's per-node figures as
// Prometheus text at /metrics, from this process (src/metrics), fed by the program through the
// metrics pipe (api/metrics_feed.h) and, at the end, by its trace file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/metrics_feed.h"
#include "base/status.h"
#include "child_process.h"
#include "metrics/http_server.h"
#include "metrics/registry.h"
#include "metrics/trace_figures.h"

namespace nodescope::cli {

struct MetricsOptions {
  std::string listen;  // empty: no --metrics
  size_t max_series = metrics::kDefaultMaxNodeSeries;
  double linger_s = 30;  // after the program ends, serve until one scrape or this long
  metrics_feed::Mode mode = metrics_feed::Mode::kWhole;  // --ring, --stream
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
  // Frames in `buf` (the reader thread's state in `in`).
  struct FeedState {
    std::string header;
    std::string body;
    bool in_body = false;
    bool broken = false;  // something not a frame came: the rest is drained, not read
    uint64_t pid = 0, from_ns = 0, to_ns = 0, bytes = 0;
    std::string kind;
  };
  void Consume(FeedState* in, const char* buf, size_t n);
  // One frame's figures (or the trace's at the end), added to what is served.
  void Take(const std::string& text, uint64_t pid, const std::string& kind, uint64_t from_ns,
            uint64_t to_ns);
  void Accumulate(metrics::ProcessFigures figures, const std::string& kind,
                  const metrics::Interval& interval);
  // Windowed feeds (a ring or streaming window): the figures so far, per pid, and the end of the
  // last interval fed. Touched by the reader thread, then (after it ended) by Finish().
  struct Totals {
    metrics::ProcessFigures figures;  // intervals, or parts, added
    metrics::ProcessFigures overlay;  // the streaming window now
    uint64_t fed_until_ns = 0;
  };
  std::map<uint64_t, Totals> totals_;
  // Processes whose final figures came (kind=final): their trace file needs no reading.
  std::map<uint64_t, bool> final_;
  MetricsOptions options_;
  std::unique_ptr<metrics::Registry> registry_;
  std::unique_ptr<metrics::HttpServer> server_;
  int pipe_[2] = {-1, -1};
  int child_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::thread reader_;
};

}  // namespace nodescope::cli
