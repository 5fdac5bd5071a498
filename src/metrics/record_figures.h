// A traced process's figures (registry.h) computed from the neutral records a session holds
// (model/trace.h), without the analysis library: what an in-process session serves
// (NODESCOPE_METRICS, api/region_metrics.h) and what the traced process hands `nodescope run
// --metrics`. The same families, labels and counts as trace_figures.h reading the trace the same
// session writes (record_figures_test.cc compares the two on the same records):
//   - a node is a (graph id, graph node id) pair; its name is the record's as the trace writes it
//     (export/chrome_trace_writer.h, GpuRecordName), its scope the capture-time range path, its
//     device its first record's;
//   - graph names (model/graph_name.h) from every node seen so far, the graph's DAG when the
//     session holds one, made unique in graph-id order, as analysis::GraphNames does;
//   - a replay is a (graph id, launch correlation) pair: first start to last end of its records.
//
// Incremental: Add() takes the records not counted yet, each once (by arrival: metrics_fed); the
// state is one histogram per node and per graph, plus the replays still open (those that ended
// within kReplayCloseNs of the last interval's end), so memory follows the graphs, not the run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "metrics/exposition.h"
#include "metrics/registry.h"
#include "model/graph_dag.h"
#include "model/trace.h"

namespace nodescope::metrics {

// A replay whose last record ended this long before the end of the interval added last is
// complete: its duration is observed then (a replay longer than this would be split in two).
inline constexpr uint64_t kReplayCloseNs = 1'000'000'000;

class RecordFigures {
 public:
  // Adds the GPU records of `trace` not counted before (metrics_fed clear: a live copy's
  // records, CopyUnfedGpu, or a part's or the final trace's records that no copy counted), and
  // takes the process's counters from it (sampling's graph launches, drops, withheld keys,
  // rank: cumulative in a session, so the latest win).
  void Add(const Trace& trace);
  // Whether `trace` holds, among the records Add() would count, a node not seen yet that was
  // captured under a user range: its scope needs the session's ranges in `trace` before Add().
  bool NeedsRanges(const Trace& trace) const;
  // Observes the replays that ended at or before `until_ns` (UINT64_MAX: all of them, at the
  // end of tracing).
  void CloseReplays(uint64_t until_ns);
  // The figures so far (replays still open are not in them). A graph is in them once one of its
  // replays has closed: before, its node set (hence its name) may still be partial, and a series
  // named after it would stay, at zero, for ever.
  ProcessFigures Figures(uint64_t pid) const;

  size_t open_replays() const { return open_.size(); }
  size_t nodes() const { return nodes_.size(); }

 private:
  struct Node {
    std::string name;    // as the trace writes it
    std::string scope;   // capture-time range path; empty when none
    std::string kernel;  // the label: ShortKernelName(name)
    int64_t device = -1;
    HistogramValues durations;
  };
  struct Replay {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    int64_t device = -1;
  };
  std::map<std::pair<uint32_t, uint64_t>, Node> nodes_;  // (graph id, graph node id)
  std::map<uint32_t, std::shared_ptr<const GraphDag>> dags_;
  std::map<std::pair<uint32_t, uint32_t>, Replay> open_;             // (graph id, correlation)
  std::map<std::pair<uint32_t, int64_t>, HistogramValues> replays_;  // (graph id, device)
  std::set<uint32_t> closed_;  // graphs with a replay closed: their names are published
  uint64_t replays_kept_ = 0;
  uint64_t graph_launches_ = 0;  // sampled: every launch seen; else 0
  uint64_t dropped_ = 0;
  std::vector<std::pair<std::string, uint64_t>> withheld_;
  std::string rank_;
};

// Seconds of a record's duration exactly as the trace reader reads it back ("dur" in
// microseconds with three decimals, times 1e-6), so both paths put it in the same bucket.
double DurationSeconds(uint64_t start_ns, uint64_t end_ns);

}  // namespace nodescope::metrics
