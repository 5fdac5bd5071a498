// One tracing session, start to finish: the lifecycle both the C API (c_api.cc) and the
// whole-process session (process_session.cc) run, written once so the two cannot drift apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "base/diagnostics.h"
#include "base/status.h"
#include "model/trace.h"
#include "ranges/range_recorder.h"

namespace nodescope {

class TracingSession {
 public:
  // Which user ranges the finished trace holds.
  enum class Scope {
    kProcess,  // the whole process (`nodescope run`): every range since the process started
    kRegion,   // nodescope_start() to nodescope_stop(): ranges and range counts of that interval
  };

  // Creates the backend (`backend` empty: the first registered), starts it with `options`, and
  // arms user-range recording.
  static StatusOr<std::unique_ptr<TracingSession>> Start(std::string_view backend, Scope scope,
                                                         const TracerOptions& options);
  // The same with the options of the environment (TracerOptionsFromEnv).
  static StatusOr<std::unique_ptr<TracingSession>> Start(std::string_view backend, Scope scope);

  // Stops the backend (every vendor buffer flushed), then finishes the trace: the user ranges of
  // the scope copied in and projected onto the device timeline (attribution/annotations.h). A
  // region also stops range recording unless another session keeps it (KeepRangesArmedWhile).
  // Returns the backend's stop status; the trace is finished either way. The warnings and errors
  // raised since Start() are counted in trace().counters by id ("warnings_<id>", "errors_<id>":
  // base/diagnostics.h). A second call does nothing.
  Status Stop();
  // `keeps()` true: a session that needs range recording armed is running (the whole-process
  // one, which sets this when it starts), so a region's Stop() leaves it armed.
  static void KeepRangesArmedWhile(bool (*keeps)());
  bool stopped() const { return stopped_; }
  // How long the backend took to stop (the flush), once stopped.
  uint64_t backend_stop_ns() const { return backend_stop_ns_; }

  // While running (issue 14): the current window as a finished trace in `out` (a fresh Trace):
  // the backend flushed, its window copied under its decode lock (the decoder waits for a copy
  // only), then the user ranges overlapping the window collected and projected, outside it.
  // `release` releases the copied records from the window (a streaming part).
  Status CaptureWindow(Trace* out, bool release);
  // While running, for live metrics (api/region_metrics.h): the GPU records not counted by an
  // earlier call that ended by `ended_by_ns`, each marked counted (Tracer::SnapshotRecent, no
  // API record), the backend flushed first.
  Status CaptureRecent(Trace* out, uint64_t ended_by_ns);
  // The user ranges of the session so far into `out` (the capture-time scopes of new nodes).
  void CollectRanges(Trace* out);
  // GPU + API records the backend holds now, its vendor buffers flushed first (streaming decides
  // on it). Streaming: at least the part's size when a thread's range ring is half full of
  // ranges no part holds yet, so a part is cut before they leave it.
  uint64_t FlushAndCountHeld() {
    (void)tracer_->Flush();
    const uint64_t held = tracer_->HeldRecords();
    if (options_.stream_records != 0 && RangeRecorder::Get().RangesAwaitAPart()) {
      return std::max(held, options_.stream_records);
    }
    return held;
  }
  // The options the session started the backend with (ring, streaming, captures).
  const TracerOptions& options() const { return options_; }

  // The collected trace; complete after Stop().
  Trace& trace() { return tracer_->trace(); }
  const Trace& trace() const { return tracer_->trace(); }

  // Stops the backend if Stop() was never called (the trace is then not finished).
  ~TracingSession();

 private:
  TracingSession(std::unique_ptr<Tracer> tracer, Scope scope, RangeRecorder::CounterValues baseline,
                 const TracerOptions& options)
      : tracer_(std::move(tracer)), scope_(scope), range_baseline_(baseline), options_(options) {}

  std::unique_ptr<Tracer> tracer_;
  Scope scope_;
  // Range counters when a region started: it reports only what happened during it.
  RangeRecorder::CounterValues range_baseline_;
  // The diagnostics channel's counts when the session started: it reports what was raised since.
  std::vector<DiagnosticTally> diagnostic_baseline_;
  TracerOptions options_;
  bool stopped_ = false;
  uint64_t backend_stop_ns_ = 0;
  uint64_t parts_until_ns_ = 0;  // streaming: the end of the last part written (0: none yet)
};

}  // namespace nodescope
