// The C API (include/nodescope/nodescope.h) over a Tracer.
#include <memory>
#include <string>

#include "api/finish_trace.h"
#include "api/process_session.h"
#include "backends/backend.h"
#include "export/chrome_trace_writer.h"
#include "nodescope/nodescope.h"
#include "ranges/range_recorder.h"

struct nodescope_session {
  std::unique_ptr<nodescope::Tracer> tracer;
  bool stopped = false;
  // Range counters when the session started: a session reports only what happened during it.
  nodescope::RangeRecorder::CounterValues range_baseline;
};

namespace {

thread_local std::string t_last_error;

int Fail(const nodescope::Status& s) {
  t_last_error = s.ToString();
  return static_cast<int>(s.code());
}

}  // namespace

extern "C" {

nodescope_session* nodescope_start(void) {
  using namespace nodescope;
  t_last_error.clear();
  if (ProcessSessionActive()) {
    Fail(AlreadyExistsError("this process is already traced as a whole by `nodescope run`; "
                            "its trace will include this region"));
    return nullptr;
  }
  StatusOr<TracerOptions> options = TracerOptionsFromEnv();
  if (!options.ok()) {
    Fail(options.status());
    return nullptr;
  }
  StatusOr<std::unique_ptr<Tracer>> tracer = CreateTracer("");
  if (!tracer.ok()) {
    Fail(tracer.status());
    return nullptr;
  }
  Status started = (*tracer)->Start(*options);
  if (!started.ok()) {
    Fail(started);
    return nullptr;
  }
  auto* session = new nodescope_session;
  session->tracer = std::move(tracer).value();
  session->range_baseline = RangeRecorder::Get().counter_values();
  RangeRecorder::Get().Arm();
  RangeRecorder::Get().SyncThisThread();
  return session;
}

int nodescope_stop(nodescope_session* session) {
  if (session == nullptr) return Fail(nodescope::InvalidArgumentError("null session"));
  if (session->stopped) return 0;
  session->stopped = true;
  nodescope::Status s = session->tracer->Stop();
  if (!nodescope::ProcessSessionActive()) nodescope::RangeRecorder::Get().Disarm();
  nodescope::Trace& trace = session->tracer->trace();
  nodescope::FinishTrace(trace, trace.start_ns, session->range_baseline);
  return s.ok() ? 0 : Fail(s);
}

int nodescope_write(nodescope_session* session, const char* path) {
  using namespace nodescope;
  if (session == nullptr || path == nullptr) return Fail(InvalidArgumentError("null argument"));
  if (!session->stopped) return Fail(FailedPreconditionError("stop the session before writing"));
  Trace& trace = session->tracer->trace();
  trace.trace_name = path;
  Status s = WriteChromeTraceFile(trace, path);
  return s.ok() ? 0 : Fail(s);
}

int nodescope_get_summary(const nodescope_session* session, nodescope_summary* out) {
  using namespace nodescope;
  if (session == nullptr || out == nullptr) return Fail(InvalidArgumentError("null argument"));
  TraceSummary s = Summarize(session->tracer->trace());
  *out = nodescope_summary{s.gpu_events, s.kernels,   s.memcpys, s.memsets,
                           s.graph_events, s.api_calls, s.dropped};
  return 0;
}

void nodescope_destroy(nodescope_session* session) {
  if (session == nullptr) return;
  if (!session->stopped) (void)session->tracer->Stop();
  delete session;
}

const char* nodescope_last_error(void) { return t_last_error.c_str(); }

void nodescope_range_push(const char* name) {
  nodescope::RangeRecorder::Get().Push(name != nullptr ? name : "");
}
void nodescope_range_pop(void) { nodescope::RangeRecorder::Get().Pop(); }
uint64_t nodescope_range_start(const char* name) {
  return nodescope::RangeRecorder::Get().Start(name != nullptr ? name : "");
}
void nodescope_range_end(uint64_t id) { nodescope::RangeRecorder::Get().End(id); }

}  // extern "C"
