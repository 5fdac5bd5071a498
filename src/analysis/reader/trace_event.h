// What the trace reader hands out: one event of "traceEvents", the trace's metadata, and the
// visitor type. Shared by the reader's front (trace_reader.h) and its window parser
// (window_reader.h), which depends on these types alone.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/graph_dag.h"

namespace nodescope::analysis {

// "pid" / "tid": kineto writes numbers, torch.profiler also writes strings ("Spans", "Traces").
struct TraceId {
  enum class Kind : uint8_t { kAbsent, kNumber, kString };
  Kind kind = Kind::kAbsent;
  int64_t number = 0;     // when kNumber (an unsigned value above INT64_MAX keeps its bits)
  std::string_view text;  // when kString
};

// One element of "traceEvents". Every key is optional; absent strings are empty. The string_views
// point into the reader's buffers and are valid only during the visitor call.
struct TraceMetadata;
struct TraceEvent {
  // What the reader has read of the trace's top level so far (what precedes "traceEvents").
  const TraceMetadata* metadata = nullptr;
  // The trace as messages name it ("PATH", or "PATH (inflated)" when offsets count the bytes of
  // a decompressed trace), for a visitor's own "SOURCE: byte OFFSET: ..." errors.
  std::string_view source;
  uint64_t offset = 0;  // byte offset of the event's '{' in the file
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  TraceId pid;
  TraceId tid;
  std::optional<double> ts_us;
  std::optional<double> dur_us;
  // From "args".
  std::optional<uint64_t> graph_id;
  std::optional<uint64_t> graph_node_id;
  std::optional<int64_t> correlation;
  std::optional<int64_t> external_id;
  std::optional<std::string_view> scope;
  // With TraceReadOptions::raw_events only (`nodescope merge`): the event's JSON text as in the
  // file, from its '{' to its '}', and the tokens of its "pid", "ts" and "id" values in it
  // (empty when absent).
  std::string_view raw;
  std::string_view raw_pid;
  std::string_view raw_ts;
  std::string_view raw_id;
};

// Which process of a merged trace (`nodescope merge`) an event belongs to: merge writes the
// pids of its n-th input as (n << 22) | pid (Linux pids are below 2^22), so in a trace of one
// process this is 0 for every numeric pid. String pids (torch's "Spans") are 0.
inline uint32_t ProcessSlot(const TraceId& pid) {
  if (pid.kind != TraceId::Kind::kNumber || pid.number < 0) return 0;
  return static_cast<uint32_t>(static_cast<uint64_t>(pid.number) >> 22);
}
inline constexpr int kMergePidBits = 22;

// What the reader keeps of the top-level "nodescope" object; the rest of it stays opaque.
struct TraceMetadata {
  bool has_nodescope = false;  // the trace has a "nodescope" object (written by nodescope)
  // "nodescope"."attribution"."withheld": reason -> count, in file order.
  std::vector<std::pair<std::string, uint64_t>> withheld;
  // "nodescope"."dropped_records"."total".
  std::optional<uint64_t> dropped_total;
  uint64_t events = 0;  // elements of "traceEvents" handed to the visitor
  // "baseTimeNanoseconds": what "ts" counts from (kineto writes it after the events, nodescope
  // before them).
  std::optional<uint64_t> base_time_ns;
  // "nodescope"."job" (api/job_info.h), or the rank and world size of torch's "distributedInfo".
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string host;
  std::optional<uint64_t> clock_realtime_ns;
  std::optional<uint64_t> clock_boottime_ns;
  // "nodescope"."sampling": a sampled trace (NODESCOPE_SAMPLE) holds about 1 launch in `every`.
  struct Sampling {
    uint64_t every = 0;
    uint64_t burst = 1;  // "burst", written when > 1: kept launches of an exec in a row
    uint64_t graph_launches = 0;
    uint64_t graph_launches_traced = 0;
  };
  std::optional<Sampling> sampling;
  // "nodescope"."merged": the rank of each input of a merged trace, by process slot (-1: none).
  std::vector<int64_t> merged_ranks;
  // "nodescopeGraphs": the exec DAGs (docs/TRACE-DAG.md), by graph id; written before
  // "traceEvents", so complete when the first event is visited.
  std::vector<GraphDag> graph_dags;
};

// Called once per event, in file order. A non-OK status stops reading and is returned as is.
// When the trace is bad further on, events before the bad byte may have been visited already.
using TraceEventVisitor = std::function<Status(const TraceEvent&)>;

}  // namespace nodescope::analysis
