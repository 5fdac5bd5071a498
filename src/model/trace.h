// A whole trace in neutral form: what backends fill and writers read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/chunked_vector.h"
#include "base/string_table.h"
#include "model/graph_dag.h"
#include "model/records.h"

namespace nodescope {

// The fields kineto writes under "deviceProperties".
struct DeviceProperties {
  uint32_t id = 0;
  std::string name;
  uint64_t total_global_mem = 0;
  int compute_major = 0;
  int compute_minor = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int regs_per_block = 0;
  int regs_per_multiprocessor = 0;
  int warp_size = 0;
  int shared_mem_per_block = 0;
  int shared_mem_per_multiprocessor = 0;
  int shared_mem_per_block_optin = 0;
  int num_sms = 0;
};

// Records lost anywhere between the vendor and the file. All of it is written into the trace.
struct DropCounters {
  uint64_t vendor_dropped = 0;   // the vendor SDK said it dropped records
  uint64_t buffers_refused = 0;  // buffer requests refused because the pool was exhausted
  uint64_t store_full = 0;       // records decoded but not kept: NODESCOPE_MAX_EVENTS reached
  uint64_t unknown_records = 0;  // record kinds we do not decode (counted, not kept)
  uint64_t Total() const { return vendor_dropped + store_full; }
};

// How graph keys were assigned, written under "nodescope"."attribution".
struct AttributionInfo {
  std::string mode;  // "native", "disabled", or empty when the backend has no graph attribution
  uint64_t new_node_ids = 0;  // node ids issued for nodes changed in place to run something else
  uint64_t graph_ids_past_limit = 0;  // execs whose id was too large for exact keys (withheld)
  std::vector<std::pair<std::string, uint64_t>> withheld;  // reason -> records without keys
};

// Sampled tracing (NODESCOPE_SAMPLE=N): which launches had their device activity traced.
// Written under "nodescope"."sampling" when every > 1.
struct SamplingInfo {
  uint32_t every = 1;  // about 1 launch in `every` traced, each exec's first launch always
  uint32_t burst = 1;  // kept launches of an exec in a row per pick (NODESCOPE_SAMPLE_BURST)
  uint64_t graph_launches = 0;
  uint64_t graph_launches_traced = 0;  // picked: their records are in the trace
  uint64_t plain_launches = 0;         // kernel launches, copies and fills outside graphs
  uint64_t plain_launches_traced = 0;
  // Instrumented but their records discarded: guards and launches overlapping another's window
  // (backends/launch_sampler.h says why); what the sample cost beyond the picked launches.
  uint64_t graph_launches_discarded = 0;
  uint64_t plain_launches_discarded = 0;
};

// What happened to user ranges that did not close cleanly. Written under "nodescope"."ranges".
struct RangeCounters {
  uint64_t unbalanced_pops = 0;        // a pop with no range open on that thread
  uint64_t open_at_end = 0;            // closed at the trace's end
  uint64_t ended_on_other_thread = 0;  // Start/End ranges ended by another thread
  uint64_t ended_at_thread_exit = 0;   // push/pop ranges closed when their thread ended
  uint64_t unknown_ends = 0;           // an End for an id never started (or ended twice)
  uint64_t dropped = 0;                // ranges not recorded (per-thread log full)
  uint64_t ring_released = 0;          // ring mode: slot reused for a newer range (not a drop)
  uint64_t ring_unnamed = 0;           // ring mode: recorded without its name (name table full)
  uint64_t unwritten = 0;  // streaming: left its ring before a part collected it (lost, counted)
};

// Which process of a job this trace is, and when it started on two clocks, so traces of one job
// can be merged onto one time axis (`nodescope merge`). Written under "nodescope"."job".
struct JobInfo {
  int64_t rank = -1;          // -1: the environment named no rank
  std::string rank_variable;  // the variable it came from ("RANK", "OMPI_COMM_WORLD_RANK", ...)
  int64_t local_rank = -1;
  int64_t world_size = -1;
  std::string host;  // gethostname()
  // Read together at the session's start: CLOCK_REALTIME (the trace's clock) and
  // CLOCK_MONOTONIC / CLOCK_BOOTTIME (the same on every process of one host; never stepped).
  uint64_t realtime_ns = 0;
  uint64_t monotonic_ns = 0;
  uint64_t boottime_ns = 0;
  bool known() const { return !host.empty() || realtime_ns != 0; }
};

// Bounded memory (issue 14, backends/ring_window.h): which window of the run this trace holds.
// Written under "nodescope"."window" when `policy` is set.
struct WindowInfo {
  std::string policy;          // "ring:events=N", "ring:time=60s", "stream:events=N"; empty: all
  uint64_t ring_released = 0;  // records that left the ring window (not drops: kept no longer)
  uint64_t streamed = 0;       // records written to earlier parts (streaming), not held here
  uint64_t capture = 0;        // n of <trace>.capture-<n>.json; 0 when not a capture
  uint64_t part = 0;           // n of a streaming part; 0 when not streaming
  // Streaming parts that could not be written (a full disk) before this file, and the GPU
  // records they held: lost, and said in every later part and the trace.
  uint64_t parts_failed = 0;
  uint64_t records_in_failed_parts = 0;
};

struct Trace {
  StringTable strings;
  ChunkedVector<GpuActivity> gpu;
  ChunkedVector<ApiCall> api;
  ChunkedVector<ExternalCorrelation> external;
  ChunkedVector<UserRange> ranges;
  std::vector<DeviceSpan> device_spans;  // filled by BuildDeviceSpans (attribution/annotations.h)
  // The DAGs of the execs seen instantiated, by graph id (a backend's GraphDagStore); the
  // writer keeps those whose graph id its GPU records carry.
  std::vector<std::shared_ptr<const GraphDag>> graph_dags;
  RangeCounters range_counters;

  std::vector<DeviceProperties> devices;
  // "cupti_version", "cuda_runtime_version", "cuda_driver_version", ... written as top-level ints.
  std::vector<std::pair<std::string, int64_t>> versions;
  // Free-form counters written under "nodescope" (e.g. graph execs seen).
  std::vector<std::pair<std::string, int64_t>> counters;
  DropCounters drops;
  AttributionInfo attribution;
  SamplingInfo sampling;
  JobInfo job;
  WindowInfo window;

  uint32_t pid = 0;
  std::string process_name;
  std::vector<std::pair<uint32_t, std::string>> thread_names;  // tid -> name
  uint64_t start_ns = 0;                                       // trace window, in the trace clock
  uint64_t end_ns = 0;
  std::string trace_name;
};

// Small summary printed by `nodescope run` and returned by the session API.
struct TraceSummary {
  uint64_t gpu_events = 0;
  uint64_t kernels = 0;
  uint64_t memcpys = 0;
  uint64_t memsets = 0;
  uint64_t graph_events = 0;  // GPU events carrying graph keys
  uint64_t api_calls = 0;
  uint64_t dropped = 0;          // records (drops.Total())
  uint64_t buffers_refused = 0;  // vendor buffer requests refused (not records: not in dropped)
};
TraceSummary Summarize(const Trace& trace);

}  // namespace nodescope
