// The session lifecycle: backend started and ranges armed; backend stopped and the trace finished.
#include "api/tracing_session.h"

#include <string>
#include <utility>

#include "api/backend_loader.h"
#include "api/process_session.h"
#include "attribution/annotations.h"
#include "base/clock.h"

namespace nodescope {

StatusOr<std::unique_ptr<TracingSession>> TracingSession::Start(std::string_view backend,
                                                                Scope scope) {
  StatusOr<TracerOptions> options = TracerOptionsFromEnv();
  if (!options.ok()) return options.status();
  // In-process users link libnodescope.so alone: the backend libraries beside it are loaded
  // when the first session starts (`nodescope run` injects one, which registers itself first).
  Status loaded = OkStatus();
  if (RegisteredTracers().empty()) loaded = LoadBuiltBackendLibraries();
  StatusOr<std::unique_ptr<Tracer>> tracer = CreateTracer(backend);
  if (!tracer.ok()) return loaded.ok() ? tracer.status() : loaded;
  if (options->sample_every > 1 && !(*tracer)->can_sample()) {
    return FailedPreconditionError("the " + std::string((*tracer)->name()) +
                                   " backend cannot sample launches (NODESCOPE_SAMPLE=" +
                                   std::to_string(options->sample_every) +
                                   "): unset it to trace every launch");
  }
  RETURN_IF_ERROR((*tracer)->Start(*options));
  RangeRecorder& ranges = RangeRecorder::Get();
  RangeRecorder::CounterValues baseline;
  if (scope == Scope::kRegion) baseline = ranges.counter_values();
  std::unique_ptr<TracingSession> session(
      new TracingSession(std::move(tracer).value(), scope, baseline));
  ranges.Arm();
  // Ranges this thread opened before the session started cover the work it launches next.
  ranges.SyncThisThread();
  return session;
}

Status TracingSession::Stop() {
  if (stopped_) return OkStatus();
  stopped_ = true;
  uint64_t t0 = NowNs();
  Status stopped = tracer_->Stop();
  backend_stop_ns_ = NowNs() - t0;
  if (scope_ == Scope::kRegion && !ProcessSessionActive()) RangeRecorder::Get().Disarm();
  Trace& trace = tracer_->trace();
  // A region keeps the ranges that overlap it; the whole process, every range since it started.
  uint64_t since_ns = scope_ == Scope::kRegion ? trace.start_ns : 0;
  RangeRecorder::Get().Collect(trace, since_ns, trace.end_ns, range_baseline_);
  BuildDeviceSpans(trace);
  return stopped;
}

TracingSession::~TracingSession() {
  if (!stopped_) (void)tracer_->Stop();
}

}  // namespace nodescope
