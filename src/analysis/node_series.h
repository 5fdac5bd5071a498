// Groups a trace's graph-launched kernels, copies and fills by node: one time series per
// (graph id, graph node id), the input of `nodescope nodes` and `nodescope plot`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/trace_reader.h"
#include "base/status.h"

namespace nodescope::analysis {

struct NodeOccurrence {
  double start_us = 0;  // "ts": microseconds after the trace's baseTimeNanoseconds
  double dur_us = 0;
  int64_t correlation = 0;  // the launch's correlation id: one graph replay shares one
};

struct NodeSeries {
  uint64_t graph_id = 0;
  uint64_t node_id = 0;
  std::string name;   // kernel name, or the copy/fill's name ("Memcpy DtoD (Device -> Device)")
  std::string cat;    // "kernel", "gpu_memcpy", "gpu_memset"
  std::string scope;  // capture-time range path, if any
  std::vector<NodeOccurrence> occurrences;  // sorted by start
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
};

// Called after each window read: bytes of the file consumed so far (compressed bytes for a
// compressed trace), and its size (0 when unknown: a pipe).
using ProgressFn = std::function<void(uint64_t done_bytes, uint64_t total_bytes)>;

// Reads the trace at `path` (streaming: memory grows with the keyed events, not the file) and
// groups keyed GPU events by (graph id, node id). A node seen with several names keeps the first;
// use `nodescope check` to find such aliased keys.
StatusOr<GraphNodes> CollectNodeSeries(const std::string& path,
                                       const ProgressFn& progress = nullptr);
// The same from a trace held in memory (tests).
StatusOr<GraphNodes> CollectNodeSeriesFromText(std::string_view name, std::string_view json);

}  // namespace nodescope::analysis
