// The C API (include/nodescope/nodescope.h) over a TracingSession (api/tracing_session.h).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "api/metrics_feed.h"
#include "api/process_session.h"
#include "api/region_metrics.h"
#include "api/region_windows.h"
#include "api/tracing_session.h"
#include "base/diagnostics.h"
#include "export/chrome_trace_writer.h"
#include "nodescope/nodescope.h"
#include "ranges/range_recorder.h"

struct nodescope_session {
  std::unique_ptr<nodescope::TracingSession> session;
  // NODESCOPE_METRICS (region_metrics.h): serves the final figures until nodescope_destroy();
  // destroyed before the session, whose records its interval thread copies.
  std::unique_ptr<nodescope::RegionMetrics> metrics;
  // Captures and streaming parts; destroyed first (its thread ends before the session does).
  std::unique_ptr<nodescope::RegionWindows> windows;
};

namespace {

static_assert(NODESCOPE_LOG_DEBUG == static_cast<int>(nodescope::DiagnosticLevel::kDebug) &&
                  NODESCOPE_LOG_INFO == static_cast<int>(nodescope::DiagnosticLevel::kInfo) &&
                  NODESCOPE_LOG_WARNING == static_cast<int>(nodescope::DiagnosticLevel::kWarning) &&
                  NODESCOPE_LOG_ERROR == static_cast<int>(nodescope::DiagnosticLevel::kError),
              "the C API's log levels are the channel's");

thread_local std::string t_last_error;

int Fail(const nodescope::Status& s) {
  t_last_error = s.ToString();
  return static_cast<int>(s.code());
}

}  // namespace

extern "C" {

nodescope_session* nodescope_start(void) { return nodescope_start_with_options(nullptr); }

nodescope_session* nodescope_start_with_options(const char* options) {
  using namespace nodescope;
  t_last_error.clear();
  if (ProcessSessionActive()) {
    Fail(
        AlreadyExistsError("this process is already traced as a whole by `nodescope run`; "
                           "its trace will include this region"));
    return nullptr;
  }
  StatusOr<SessionOptions> parsed = SessionOptionsFromString(options != nullptr ? options : "");
  if (!parsed.ok()) {
    Fail(parsed.status());
    return nullptr;
  }
  const TracerOptions& tracer = parsed->tracer;
  if ((tracer.stream_records != 0 || tracer.capture_every_ns != 0) && parsed->output.empty()) {
    Fail(InvalidArgumentError(
        std::string(tracer.stream_records != 0 ? "stream" : "capture_every") +
        " writes files named after the trace: give output=PATH (or NODESCOPE_OUTPUT)"));
    return nullptr;
  }
  // Metrics: the port is bound before tracing starts, so a port taken is this call's error and
  // nothing is traced. Under `nodescope run --metrics` (its feed's variable set) `run` serves.
  std::unique_ptr<RegionMetrics> metrics;
  if (!parsed->metrics.empty()) {
    if (const char* fd = std::getenv(metrics_feed::kFdVariable); fd != nullptr && *fd != '\0') {
      LogWarning("metrics_served_by_run",
                 "%s is ignored: `nodescope run --metrics` serves this process's figures",
                 kMetricsVariable);
    } else {
      StatusOr<std::unique_ptr<RegionMetrics>> listening =
          RegionMetrics::Listen(parsed->metrics, parsed->metrics_series);
      if (!listening.ok()) {
        Fail(listening.status());
        return nullptr;
      }
      metrics = std::move(listening).value();
    }
  }
  StatusOr<std::unique_ptr<TracingSession>> started =
      TracingSession::Start(parsed->backend, TracingSession::Scope::kRegion, parsed->tracer);
  if (!started.ok()) {
    Fail(started.status());
    return nullptr;
  }
  auto* session = new nodescope_session;
  session->session = std::move(started).value();
  session->metrics = std::move(metrics);
  session->windows = std::make_unique<RegionWindows>(
      session->session.get(), std::move(parsed->output), session->metrics.get());
  if (session->metrics) session->metrics->Start(session->session.get());
  session->windows->Start();
  return session;
}

int nodescope_capture(nodescope_session* session, const char* path) {
  using namespace nodescope;
  if (session == nullptr || path == nullptr) return Fail(InvalidArgumentError("null argument"));
  if (session->session->stopped()) {
    return Fail(FailedPreconditionError("the session has stopped: write it instead"));
  }
  Status s = session->windows->Capture(path);
  return s.ok() ? 0 : Fail(s);
}

int nodescope_stop(nodescope_session* session) {
  if (session == nullptr) return Fail(nodescope::InvalidArgumentError("null session"));
  if (session->session->stopped()) return 0;
  session->windows->Stop();  // no part or capture after this
  nodescope::Status s = session->session->Stop();
  // The figures of the trace nodescope_write() writes: the last part's records (streaming) or
  // the window's rest are added now; the server goes on until nodescope_destroy().
  if (session->metrics) session->metrics->Finish(session->session->trace());
  return s.ok() ? 0 : Fail(s);
}

int nodescope_write(nodescope_session* session, const char* path) {
  using namespace nodescope;
  if (session == nullptr || path == nullptr) return Fail(InvalidArgumentError("null argument"));
  if (!session->session->stopped()) {
    return Fail(FailedPreconditionError("stop the session before writing"));
  }
  Trace& trace = session->session->trace();
  trace.trace_name = path;
  session->windows->Finish(&trace);
  Status s = WriteChromeTraceFile(trace, path);
  return s.ok() ? 0 : Fail(s);
}

int nodescope_get_summary(const nodescope_session* session, nodescope_summary* out) {
  using namespace nodescope;
  if (session == nullptr || out == nullptr) return Fail(InvalidArgumentError("null argument"));
  TraceSummary s = Summarize(session->session->trace());
  *out = nodescope_summary{s.gpu_events,   s.kernels,   s.memcpys, s.memsets,
                           s.graph_events, s.api_calls, s.dropped};
  return 0;
}

void nodescope_destroy(nodescope_session* session) {
  if (session == nullptr) return;
  // The metrics thread reads the session: it ends before the session goes.
  if (session->metrics && !session->session->stopped()) session->metrics.reset();
  delete session;  // ~TracingSession stops a backend that was never stopped
}

const char* nodescope_last_error(void) { return t_last_error.c_str(); }

// The handler is the channel's sink as it is: same arguments, so nothing to keep beside it.
void nodescope_set_log_handler(nodescope_log_fn fn, void* user) {
  nodescope::SetDiagnosticSink(fn, user);
}

void nodescope_range_push(const char* name) {
  nodescope::RangeRecorder::Get().Push(name != nullptr ? name : "");
}
void nodescope_range_pop(void) { nodescope::RangeRecorder::Get().Pop(); }
uint64_t nodescope_range_start(const char* name) {
  return nodescope::RangeRecorder::Get().Start(name != nullptr ? name : "");
}
void nodescope_range_end(uint64_t id) { nodescope::RangeRecorder::Get().End(id); }

}  // extern "C"
