// The session lifecycle: backend started and ranges armed; backend stopped and the trace finished.
#include "api/tracing_session.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

#include "api/backend_loader.h"
#include "attribution/annotations.h"
#include "base/clock.h"

namespace nodescope {
namespace {

// A window's time axis starts at its earliest event, not at its oldest chunk's first record:
// records of several streams are not in time order, and a range open when the window began
// started before it (the writer takes the earliest event when start_ns is 0).
void StartAtEarliestEvent(Trace& trace) { trace.start_ns = 0; }

std::atomic<bool (*)()> g_ranges_kept{nullptr};

bool RangesKeptArmed() {
  bool (*keeps)() = g_ranges_kept.load(std::memory_order_acquire);
  return keeps != nullptr && keeps();
}

// The warnings and errors raised since `baseline` was taken, one counter per id. Tallies only
// grow, index for index (diagnostics.h), so the two lists line up.
void CountDiagnostics(const std::vector<DiagnosticTally>& baseline, Trace& trace) {
  const std::vector<DiagnosticTally> now = DiagnosticTallies();
  for (size_t i = 0; i < now.size(); ++i) {
    const uint64_t raised = now[i].count - (i < baseline.size() ? baseline[i].count : 0);
    if (raised == 0) continue;
    const char* prefix = now[i].level == DiagnosticLevel::kWarning ? "warnings_"
                         : now[i].level == DiagnosticLevel::kError ? "errors_"
                                                                   : nullptr;
    if (prefix == nullptr) continue;  // notes and debug output are not the trace's business
    std::string name = prefix;  // appended: g++ 12 misreads prefix + temporary (GCC bug 105329)
    name += now[i].id;
    trace.counters.emplace_back(std::move(name), static_cast<int64_t>(raised));
  }
}

}  // namespace

StatusOr<std::unique_ptr<TracingSession>> TracingSession::Start(std::string_view backend,
                                                                Scope scope) {
  StatusOr<TracerOptions> options = TracerOptionsFromEnv();
  if (!options.ok()) return options.status();
  return Start(backend, scope, *options);
}

StatusOr<std::unique_ptr<TracingSession>> TracingSession::Start(std::string_view backend,
                                                                Scope scope,
                                                                const TracerOptions& options_in) {
  std::vector<DiagnosticTally> diagnostics = DiagnosticTallies();
  const TracerOptions* options = &options_in;
  // In-process users link libnodescope.so alone: the backend libraries beside it are loaded
  // when the first session starts (`nodescope run` injects one, which registers itself first).
  Status loaded = OkStatus();
  if (RegisteredTracers().empty()) loaded = LoadBuiltBackendLibraries();
  StatusOr<std::unique_ptr<Tracer>> tracer = CreateTracer(backend);
  if (!tracer.ok()) return loaded.ok() ? tracer.status() : loaded;
  if (options->sample_every > 1 && !(*tracer)->can_sample()) {
    return FailedPreconditionError("the " + std::string((*tracer)->name()) +
                                   " backend cannot sample launches (NODESCOPE_SAMPLE or sample=" +
                                   std::to_string(options->sample_every) +
                                   "): unset it to trace every launch");
  }
  RETURN_IF_ERROR((*tracer)->Start(*options));
  RangeRecorder& ranges = RangeRecorder::Get();
  RangeRecorder::CounterValues baseline;
  if (scope == Scope::kRegion) baseline = ranges.counter_values();
  std::unique_ptr<TracingSession> session(
      new TracingSession(std::move(tracer).value(), scope, baseline, *options));
  session->diagnostic_baseline_ = std::move(diagnostics);
  // Which window the files hold (the decoder never touches this field).
  if (options->ring.enabled()) {
    session->trace().window.policy = "ring:" + options->ring.Describe();
    // The range logs too: a ring per thread (range_ring.h).
    ranges.SetRingSlots(RangeRecorder::RingSlotsFor(options->ring.max_records));
  } else if (options->stream_records != 0) {
    session->trace().window.policy = "stream:events=" + std::to_string(options->stream_records);
    // Rings sized from the part; what leaves one before a part collected it is counted.
    ranges.SetStreaming(options->stream_records);
  }
  ranges.Arm();
  // Ranges this thread opened before the session started cover the work it launches next.
  ranges.SyncThisThread();
  return session;
}

void TracingSession::KeepRangesArmedWhile(bool (*keeps)()) {
  g_ranges_kept.store(keeps, std::memory_order_release);
}

Status TracingSession::Stop() {
  if (stopped_) return OkStatus();
  stopped_ = true;
  uint64_t t0 = NowNs();
  Status stopped = tracer_->Stop();
  backend_stop_ns_ = NowNs() - t0;
  if (scope_ == Scope::kRegion && !RangesKeptArmed()) {
    RangeRecorder::Get().Disarm();
    RangeRecorder::Get().SetRingSlots(0);
  }
  Trace& trace = tracer_->trace();
  // A ring or a streaming part holds a window that starts with its oldest record.
  if (!trace.window.policy.empty()) trace.start_ns = WindowStartNs(trace, trace.end_ns);
  // A region keeps the ranges that overlap it; the whole process, every range since it started
  // (a window, the ranges that overlap it).
  uint64_t since_ns = scope_ == Scope::kRegion || !trace.window.policy.empty() ? trace.start_ns : 0;
  // Streaming: from where the last part's ranges ended (the start, without parts), so none
  // falls between two files.
  if (trace.window.policy.starts_with("stream:")) since_ns = std::min(since_ns, parts_until_ns_);
  RangeRecorder::Get().Collect(trace, since_ns, trace.end_ns, range_baseline_, /*part=*/true);
  BuildDeviceSpans(trace);
  if (!trace.window.policy.empty()) StartAtEarliestEvent(trace);
  CountDiagnostics(diagnostic_baseline_, trace);
  return stopped;
}

Status TracingSession::CaptureWindow(Trace* out, bool release) {
  if (stopped_) return FailedPreconditionError("the session has stopped");
  Status flushed = tracer_->Flush();  // no lock of ours held: the decoder takes its own
  RETURN_IF_ERROR(tracer_->SnapshotWindow(out, release));
  if (!flushed.ok()) out->counters.emplace_back("capture_flush_failed", 1);
  // A streaming part takes the ranges since the previous part's end (since the start for the
  // first), so a range between two windows is in one of them; then ranges that ended before its
  // end may leave the rings (RangeRecorder::MarkWritten).
  const uint64_t since_ns = release ? std::min(out->start_ns, parts_until_ns_) : out->start_ns;
  RangeRecorder::Get().Collect(*out, since_ns, out->end_ns, range_baseline_, /*part=*/release);
  if (release) {
    parts_until_ns_ = out->end_ns;
    RangeRecorder::Get().MarkWritten(parts_until_ns_);
  }
  BuildDeviceSpans(*out);
  StartAtEarliestEvent(*out);
  return OkStatus();
}

Status TracingSession::CaptureRecent(Trace* out, uint64_t ended_by_ns) {
  if (stopped_) return FailedPreconditionError("the session has stopped");
  (void)tracer_->Flush();
  return tracer_->SnapshotRecent(out, ended_by_ns);
}

void TracingSession::CollectRanges(Trace* out) {
  // As Stop() will: a region's ranges since it started, the whole process's since the start.
  const uint64_t since_ns = scope_ == Scope::kRegion ? tracer_->trace().start_ns : 0;
  RangeRecorder::Get().Collect(*out, since_ns, out->end_ns, range_baseline_, /*part=*/false);
}

TracingSession::~TracingSession() {
  if (!stopped_) (void)tracer_->Stop();
}

}  // namespace nodescope
