// What `nodescope run --metrics` serves: the latest figures of every traced process, summed into
// series of bounded number, rendered as Prometheus text.
//
// Cardinality: at most `max_node_series` per-node series (labels graph, node, kernel, rank,
// device). A node first seen when that many exist is folded into its graph's node="other"
// series (kernel="other"); nodes new in the same update get series by GPU time, largest first.
// A series, once created, stays, and keeps its node(s): its counters never go backwards.
// nodescope_node_series_folded says how many nodes were folded.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "metrics/exposition.h"

namespace nodescope::metrics {

inline constexpr size_t kDefaultMaxNodeSeries = 2000;

struct NodeFigures {
  std::string graph;   // the stable name (model/graph_name.h)
  uint32_t node = 0;   // ordinal
  std::string kernel;  // shortened name
  std::string device;
  HistogramValues durations;  // DurationBuckets()
};

struct GraphFigures {
  std::string graph;
  std::string device;
  HistogramValues replays;  // first start to last end of each replay kept
};

// One traced process's figures since it started (cumulative).
struct ProcessFigures {
  uint64_t pid = 0;
  std::string rank;  // empty: none
  std::vector<NodeFigures> nodes;
  std::vector<GraphFigures> graphs;
  uint64_t replays_seen = 0;  // graph launches (all, sampled or not)
  uint64_t replays_kept = 0;  // those whose device work is in the figures
  uint64_t dropped = 0;       // records lost (vendor drops, store full)
  std::vector<std::pair<std::string, uint64_t>> withheld;  // reason -> records without keys
  uint64_t updates = 0;                                    // filled by the registry
  double updated_unix_s = 0;                               // filled by the registry
};

class Registry {
 public:
  explicit Registry(size_t max_node_series = kDefaultMaxNodeSeries)
      : max_node_series_(max_node_series) {}

  // The process's figures now. Kept unless they count fewer graph-node records than those held
  // (a counter never goes backwards). Thread-safe.
  void Update(ProcessFigures figures, double now_unix_s);
  // The exposition text of everything held (OpenMetrics when asked). Thread-safe.
  std::string Render(bool openmetrics = false);

  size_t node_series() const;
  uint64_t folded() const;

 private:
  using NodeKey = std::tuple<std::string, uint32_t, std::string, std::string, std::string>;
  mutable std::mutex mu_;
  const size_t max_node_series_;
  std::map<uint64_t, ProcessFigures> processes_;  // by pid
  // Node key -> whether it has its own series (false: folded into node="other").
  std::map<NodeKey, bool> assigned_;
  size_t own_series_ = 0;
  uint64_t folded_ = 0;
  void AssignNew(const ProcessFigures& p);  // under mu_
};

}  // namespace nodescope::metrics
