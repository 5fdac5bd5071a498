// The vendor-neutral face of a backend: a Tracer collects device activity into a neutral Trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/ring_window.h"
#include "base/status.h"
#include "model/trace.h"

namespace nodescope {

struct TracerOptions {
  size_t buffer_bytes = 8u << 20;    // one vendor activity buffer
  size_t max_buffers = 64;           // buffers in flight; past this the vendor drops (counted)
  uint64_t max_events = 50'000'000;  // records kept; past this they are counted as store_full
  bool trace_driver_api = true;
  // Engine-issued graph keys (src/attribution); NODESCOPE_DISABLE_GRAPH_ATTRIBUTION=1 turns it
  // off and records keep the vendor's native ids (CUPTI's, which alias after exec updates).
  bool graph_attribution = true;
  // CUDA: cuptiActivityEnableDeviceGraph(1) at start (device-launched graphs' records, where a
  // CUPTI and GPU give them); NODESCOPE_DISABLE_DEVICE_GRAPHS=1 leaves it off (to measure it).
  bool device_graphs = true;
  // NODESCOPE_SAMPLE=N (`nodescope run --sample N`): trace about 1 launch in N (every exec's
  // first launch always), with the vendor's activity collection enabled only around those.
  // 1 traces everything. Backends that cannot sample refuse it (Tracer::can_sample()).
  uint32_t sample_every = 1;
  // NODESCOPE_SAMPLE_BURST=B: a pick keeps B launches of the exec in a row, then one guard
  // (launch_sampler.h, "Bursts"): fewer launches instrumented for as many kept. 1..15.
  // 4 by default: the first kept replay after uninstrumented ones runs differently on the H200
  // (a 1-us node 0.9 of a 32-ns tick shorter), so with B = 1 a per-node mean was 2.8 % off the
  // full trace's and with B = 4 0.8 %, at the same overhead (bench/RESULTS.md, "Bursts by
  // default").
  uint32_t sample_burst = 4;
  // Bounded memory (ring_window.h). NODESCOPE_RING: keep only the most recent window, trimmed by
  // the backend after each decoded batch (TrimWindow). The two below are the session's:
  // NODESCOPE_STREAM writes the window as the next part file each time it holds this many
  // records, and NODESCOPE_CAPTURE_EVERY writes a capture of it every so often.
  WindowPolicy ring;
  uint64_t stream_records = 0;
  uint64_t capture_every_ns = 0;
};

// The ranges TracerOptionsFromEnv() accepts (README, "Environment variables").
inline constexpr uint64_t kMaxBufferSizeMb = 1024;          // NODESCOPE_BUFFER_SIZE_MB: 1..1024
inline constexpr uint64_t kMaxBuffers = 65536;              // NODESCOPE_MAX_BUFFERS: 2..65536
inline constexpr uint64_t kMaxEvents = 1'000'000'000'000;   // NODESCOPE_MAX_EVENTS: 1..10^12
inline constexpr uint64_t kMaxSampleEvery = 1'000'000'000;  // NODESCOPE_SAMPLE: 1..10^9
inline constexpr uint64_t kMaxSampleBurst = 15;             // NODESCOPE_SAMPLE_BURST: 1..15

// One option as TracerOptionsFrom() finds it: its value (empty: not set) and the name a message
// gives it ("NODESCOPE_SAMPLE" from the environment, "sample" from an options string).
struct OptionValue {
  std::string_view value;
  std::string name;
};
// Finds the option whose environment variable is `var` ("NODESCOPE_SAMPLE").
using OptionLookup = std::function<OptionValue(const char* var)>;

// Reads NODESCOPE_BUFFER_SIZE_MB, NODESCOPE_MAX_BUFFERS, NODESCOPE_MAX_EVENTS, NODESCOPE_SAMPLE
// (whole decimal numbers in the ranges above), NODESCOPE_DISABLE_GRAPH_ATTRIBUTION,
// NODESCOPE_RING, NODESCOPE_STREAM (sizes or durations, ring_window.h) and
// NODESCOPE_CAPTURE_EVERY through `lookup`; a bad value is an error naming the option, never
// silently replaced. In ring or streaming mode the window bounds memory, so
// NODESCOPE_MAX_EVENTS applies only when set.
StatusOr<TracerOptions> TracerOptionsFrom(const OptionLookup& lookup);
// TracerOptionsFrom() the environment.
StatusOr<TracerOptions> TracerOptionsFromEnv();

// What an in-process session starts with (nodescope_start_with_options).
struct SessionOptions {
  TracerOptions tracer;
  std::string backend;  // empty: the first registered
  std::string output;   // what streaming parts and periodic captures are named after
  // NODESCOPE_METRICS ("[ADDR:]PORT" or "unix:PATH"; empty: none): /metrics served by the
  // session (api/region_metrics.h); NODESCOPE_METRICS_SERIES: its per-node series limit.
  std::string metrics;
  uint64_t metrics_series = 2000;
};
// An options string: `key=value` pairs separated by ';' or newlines (blanks around keys and
// values ignored, empty pairs skipped). The keys are the variables' names in lower case without
// NODESCOPE_ (buffer_size_mb, max_buffers, max_events, sample, sample_burst,
// disable_graph_attribution, ring, stream, capture_every, output, metrics, metrics_series), with
// their values' syntax, plus `backend` (a registered backend's name). A variable the string does
// not name is read from the environment, as TracerOptionsFromEnv() does (NODESCOPE_OUTPUT for
// output, NODESCOPE_METRICS for metrics, NODESCOPE_METRICS_SERIES for metrics_series: 1..10^6). An
// unknown key, a key given twice, a pair without '=' or with an empty value, or a bad value is an
// error naming the key.
StatusOr<SessionOptions> SessionOptionsFromString(std::string_view text);

class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual std::string_view name() const = 0;
  // Subscribes to the vendor SDK and enables activity collection.
  virtual Status Start(const TracerOptions& options) = 0;
  // Flushes every buffer the vendor holds and stops collection. Idempotent.
  virtual Status Stop() = 0;
  // The collected trace; complete after Stop().
  virtual Trace& trace() = 0;
  // Whether Start() honours TracerOptions::sample_every > 1.
  virtual bool can_sample() const { return false; }

  // ---- While running: captures and streaming parts (ring_window.h) ----
  // Hands every vendor buffer filled so far to the decoder (CUPTI: cuptiActivityFlushAll(0)).
  // Called with no nodescope lock held; the decoder takes its own.
  virtual Status Flush() { return UnavailableError(std::string(name()) + " cannot flush"); }
  // Copies the window held now into `out` (a fresh Trace) under the decode lock (CopyWindow),
  // with the attribution report and the devices; `release` then releases it (a streaming part).
  // FailedPrecondition when not running.
  virtual Status SnapshotWindow(Trace* /*out*/, bool /*release*/) {
    return UnavailableError(std::string(name()) + " cannot copy its window while running");
  }
  // The records a live metrics interval needs (CopyUnfedGpu, ring_window.h): GPU records not
  // counted by an earlier call that ended by `ended_by_ns` (each one marked counted), with the
  // attribution report, the drops and the graphs' DAGs.
  virtual Status SnapshotRecent(Trace* /*out*/, uint64_t /*ended_by_ns*/) {
    return UnavailableError(std::string(name()) + " cannot copy its records while running");
  }
  // GPU + API records held now (read under the decode lock): streaming decides on it.
  virtual uint64_t HeldRecords() { return 0; }
};

using TracerFactory = std::unique_ptr<Tracer> (*)();

// Backends register themselves at static-initialisation time (they are linked as object
// libraries, so their registrars are never dropped by the linker).
bool RegisterTracer(std::string_view name, TracerFactory factory);
// `name` empty picks the first registered backend.
StatusOr<std::unique_ptr<Tracer>> CreateTracer(std::string_view name);
std::vector<std::string> RegisteredTracers();

}  // namespace nodescope

namespace nodescope {

// How `nodescope run` makes an unmodified program load the tracer for one vendor.
struct Launcher {
  std::string name;
  // The vendor runtime the program must initialise to be traced, for messages ("CUDA").
  std::string runtime;
  // The backend library the vendor runtime loads (found beside libnodescope.so, which it links:
  // "libnodescope_cuda.so") and the entry point the runtime calls in it ("InitializeInjection").
  std::string library;
  std::string entry_symbol;
  // OK when this vendor's driver and at least one device are present; else a message a user
  // can act on ("no CUDA driver (libcuda.so.1) found", "no CUDA-capable device").
  Status (*probe)();
  // Adds the variables that make the vendor runtime load `library_path`, the full path of
  // `library` (e.g. CUDA_INJECTION64_PATH).
  void (*add_env)(const std::string& library_path, std::vector<std::string>* env);
  // Whether the backend's tracer samples launches (Tracer::can_sample()): `run --sample` is
  // refused before the program starts when it does not.
  bool can_sample = false;
};
bool RegisterLauncher(const Launcher& launcher);
std::vector<Launcher> RegisteredLaunchers();

}  // namespace nodescope
