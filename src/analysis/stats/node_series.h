// Groups a trace's graph-launched kernels, copies and fills by node: one time series per
// (graph id, graph node id), the input of `nodescope nodes` and `nodescope plot`.
//
// Memory is bounded by NodeSeriesOptions whatever the trace's size: at most max_nodes nodes and
// max_samples occurrences are held. Past max_samples a graph keeps the occurrences of a uniform
// sample of its replays (chosen by a hash of the replay's correlation id: deterministic), while
// each node's count, total, mean, min, max and standard deviation stay exact (streaming).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/stats/name_pool.h"
#include "base/status.h"
#include "model/graph_dag.h"

namespace nodescope::analysis {

struct NodeOccurrence {
  double start_us = 0;  // "ts": microseconds after the trace's baseTimeNanoseconds
  double dur_us = 0;
  int64_t correlation = 0;  // the launch's correlation id: one graph replay shares one
};

// Figures over every occurrence of a node, also those not held (Welford's streaming mean and
// sum of squared deviations).
struct RunningStats {
  uint64_t count = 0;
  double sum = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double m2 = 0;

  void Add(double x);
  double PopulationStddev() const;
};

struct NodeSeries {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  // Held by GraphNodes::strings.
  std::string_view name;  // kernel name, or the copy/fill's name ("Memcpy DtoD (Device -> Device)")
  std::string_view cat;   // "kernel", "gpu_memcpy", "gpu_memset"
  std::string_view scope;  // capture-time range path, if any
  // Every occurrence sorted by start, or, when the graph is sampled (sample_level > 0), those
  // of the sampled replays: about one replay in 2^sample_level.
  std::vector<NodeOccurrence> occurrences;
  RunningStats durations;  // over every occurrence of the node
  uint8_t sample_level = 0;
  // The key was also seen on events of another name than `name` (an aliased key: its figures
  // mix different nodes; `nodescope check` lists the names).
  bool aliased = false;

  uint64_t count() const { return durations.count; }
  bool sampled() const { return occurrences.size() < durations.count; }
};

// Limits of CollectNodeSeries. A node costs about 150 bytes (its series and index slot), an
// occurrence slot 24 (slots are allocated as vectors grow, by doubling, so about half to all of
// them hold an occurrence): the defaults hold at most about 40 MiB of nodes and 96 MiB of
// occurrences, plus at most 64 MiB of names (NamePool) and the reader's window.
struct NodeSeriesOptions {
  static constexpr size_t kDefaultMaxNodes = size_t{1} << 18;    // 262144 distinct nodes
  static constexpr size_t kDefaultMaxSamples = size_t{1} << 22;  // 4194304 occurrences
  static constexpr size_t kDefaultMaxNameBytes = size_t{64} << 20;
  static constexpr size_t kDefaultMaxEagerNames = 4096;

  size_t max_nodes = kDefaultMaxNodes;
  size_t max_samples = kDefaultMaxSamples;
  size_t max_name_bytes = kDefaultMaxNameBytes;  // distinct name, cat and scope text
  // Distinct names of GPU work outside graphs (EagerSeries) held, every process together; the
  // events of later names are folded into GraphNodes::eager_other.
  size_t max_eager_names = kDefaultMaxEagerNames;
};

// The kernels, copies or fills of one name that ran outside graphs (no graph keys: launched
// eagerly, or by a tracer that does not key graph work), e.g. 2000 launches of an elementwise
// kernel between graph replays.
struct EagerSeries {
  std::string_view name;  // held by GraphNodes::strings
  std::string_view cat;   // of its first event
  RunningStats durations;
};

struct GraphNodes {
  std::vector<NodeSeries> nodes;  // sorted by (graph id, node id)
  TraceMetadata metadata;
  uint64_t gpu_events = 0;    // kernels, copies and fills in the trace
  uint64_t keyed_events = 0;  // of which carry both graph keys
  // Nodes whose id does not carry their graph id in its upper 32 bits (node id >> 32 != graph
  // id): not written by CUDA's scheme, so their ordinals mean nothing (`nodescope check` lists
  // them).
  uint64_t mismatched_nodes = 0;
  // Nodes whose key was seen with more than one name (NodeSeries::aliased).
  uint64_t aliased_nodes = 0;
  // Keyed events left out: their node was new after max_nodes nodes (or max_name_bytes of
  // names) were held, in the whole trace (every process of a merged trace together).
  uint64_t untracked_events = 0;
  // GPU work outside graphs (gpu_events - keyed_events), by name: by total time descending, ties
  // by name. Past limits.max_eager_names names (or the name budget), the rest are folded into
  // eager_other (count 0: none were).
  std::vector<EagerSeries> eager;
  RunningStats eager_other;
  NodeSeriesOptions limits;                 // those in force
  std::shared_ptr<const NamePool> strings;  // the text of the nodes' names
  // The dependency DAGs the trace records ("nodescopeGraphs", docs/TRACE-DAG.md), by graph id
  // ascending; empty for a trace without them (torch.profiler's, older nodescope's). In a
  // merged trace, each process's own.
  std::vector<GraphDag> dags;
};

// Called after each window read: bytes of the file consumed so far (compressed bytes for a
// compressed trace), and its size (0 when unknown: a pipe).
using ProgressFn = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;

// Reads the trace at `path` (streaming: memory is bounded by `limits`, not the file) and groups
// keyed GPU events by (graph id, node id). A node seen with several names keeps the first and
// is marked aliased (counted in aliased_nodes); `nodescope check` lists such keys' names. An event
// CheckEvent() refuses (stats/event_checks.h: a keyed event without "ts", a negative "dur", ...) is
// a DATA_LOSS error.
StatusOr<GraphNodes> CollectNodeSeries(const std::string& path,
                                       const ProgressFn& progress = nullptr,
                                       const NodeSeriesOptions& limits = {});
// The same from a trace held in memory (tests).
StatusOr<GraphNodes> CollectNodeSeriesFromText(std::string_view name, std::string_view json,
                                               const NodeSeriesOptions& limits = {});

// The same, one GraphNodes per process of a merged trace (`nodescope merge`; the process slot
// of reader/trace_event.h), indexed by slot: one element for a trace of one process. Graph keys
// of two processes never meet. `limits` holds for the whole trace, its processes together (so
// memory is bounded per file, whatever its number of processes): the first nodes seen, in any
// process, are held, and the keyed events of later ones are counted as left out by their
// process (untracked_events); sampling halves the graphs holding the most, of any process.
// Each element's metadata is the trace's (merged_ranks names each slot's rank), and they share
// one NamePool.
StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcess(const std::string& path,
                                                              const ProgressFn& progress = nullptr,
                                                              const NodeSeriesOptions& limits = {});
// The same in the same read, handing each event the grouping accepted (CheckEvent) to `also`
// too: the Python package's load() counts the keys (`check`) in the read that groups the nodes.
// A non-OK status from `also` stops the read and is returned.
StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcess(const std::string& path,
                                                              const ProgressFn& progress,
                                                              const NodeSeriesOptions& limits,
                                                              const TraceEventVisitor& also);
StatusOr<std::vector<GraphNodes>> CollectNodeSeriesPerProcessFromText(
    std::string_view name, std::string_view json, const NodeSeriesOptions& limits = {});

}  // namespace nodescope::analysis
