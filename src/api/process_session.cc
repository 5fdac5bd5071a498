// Whole-process tracing: start, and finish on every way a process can end.
#include "api/process_session.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "api/capture_service.h"
#include "api/job_info.h"
#include "api/metrics_feed.h"
#include "api/tracing_session.h"
#include "base/atomic_file.h"
#include "base/clock.h"
#include "base/diagnostics.h"
#include "base/freed_memory.h"
#include "base/terminal_text.h"
#include "export/chrome_trace_writer.h"
#include "model/run_report.h"
#include "model/trace.h"

namespace nodescope {
namespace {

enum State : int { kIdle = 0, kRunning = 1, kFinalizing = 2, kDone = 3 };

std::mutex g_start_mu;
std::atomic<int> g_state{kIdle};
TracingSession* g_session =
    nullptr;  // lives until the process ends; never destroyed under a signal
std::string* g_path = nullptr;
FileIdentity* g_path_before = nullptr;  // the trace path when tracing began (AtomicFile)
JobInfo* g_job = nullptr;
int64_t g_path_rank = -1;  // the rank the path is named by, or -1
int g_report_fd = -1;
int g_signal_pipe[2] = {-1, -1};  // handler -> watcher: the signal number
// The traced process. A child it forks (no exec) inherits the handlers, the pipes and the atexit
// hook, but not the watcher thread: there a signal takes its default action, as if nodescope
// were not there, and exit() writes nothing (the parent's trace is the parent's to write).
pid_t g_owner_pid = 0;
int g_done_pipe[2] = {-1, -1};  // closed when the trace is written: wakes crash handlers

// Every signal whose default action ends the process, so that each leaves a trace: those sent
// (kill, a terminal, a timer, a resource limit) here, those a fault raises in kCrashSignals.
// SIGUSR2 is the capture signal (capture_service.h); SIGRTMIN..SIGRTMAX are added at run time.
constexpr int kTerminationSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGUSR1,
                                       SIGALRM, SIGPIPE, SIGPROF, SIGVTALRM, SIGXCPU,
                                       SIGXFSZ, SIGPOLL, SIGPWR,  SIGSTKFLT};
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};

bool IsCrashSignal(int sig) {
  for (int s : kCrashSignals) {
    if (s == sig) return true;
  }
  return false;
}

void Report(const report::Line& line) { report::WriteLine(g_report_fd, line); }
void OnSignal(int sig);

// Captures and streaming parts (capture_service.h), one at a time, never while the final trace
// is written: Finalize takes this lock too (bounded, should a capture hang).
std::timed_mutex g_capture_mu;
uint64_t g_captures = 0;  // under g_capture_mu
uint64_t g_parts = 0;
uint64_t g_parts_failed = 0;             // streaming parts that could not be written
uint64_t g_records_in_failed_parts = 0;  // and the GPU records they held (lost)

StatusOr<std::string> WriteWindowOnce(bool part) {
  std::lock_guard<std::timed_mutex> lock(g_capture_mu);
  if (g_state.load() != kRunning) {
    return FailedPreconditionError("the trace is being written: the process is exiting");
  }
  StatusOr<OutputKind> kind = ClassifyOutput(*g_path);
  if (!kind.ok() || *kind == OutputKind::kDirect) {  // nothing to name a file after
    return FailedPreconditionError("captures are files named after the trace, and " + *g_path +
                                   " is not a file path");
  }
  Trace window;
  RETURN_IF_ERROR(g_session->CaptureWindow(&window, /*release=*/part));
  if (part && metrics_feed::Active()) {  // its records leave memory: fed from it first
    window.trace_name = *g_path;
    window.job = *g_job;
    metrics_feed::FeedPart(window);
  }
  const uint64_t n = part ? ++g_parts : ++g_captures;
  (part ? window.window.part : window.window.capture) = n;
  if (window.window.policy.empty()) window.window.policy = "all";
  const std::string path = WindowFilePath(*g_path, part ? "part" : "capture", n);
  window.trace_name = path;
  window.job = *g_job;
  window.window.parts_failed = g_parts_failed;
  window.window.records_in_failed_parts = g_records_in_failed_parts;
  StatusOr<std::string> written = WriteChromeTraceFileAs(window, path, nullptr);
  if (!written.ok()) {
    if (part) {  // its records left the process's memory with it: lost, and said from now on
      ++g_parts_failed;
      g_records_in_failed_parts += window.gpu.held();
    }
    return written.status();
  }
  const TraceSummary s = Summarize(window);
  LogInfo("capture_written", "wrote %s (%llu GPU events, %llu from graphs, %llu dropped)",
          TerminalText(*written).c_str(), static_cast<unsigned long long>(s.gpu_events),
          static_cast<unsigned long long>(s.graph_events),
          static_cast<unsigned long long>(s.dropped));
  return *written;
}
// The window's copy is freed by now: give its pages back, or the process keeps one window more
// resident from the second capture on (base/freed_memory.h).
StatusOr<std::string> WriteWindow(bool part) {
  StatusOr<std::string> path = WriteWindowOnce(part);
  ReturnFreedMemoryToSystem();
  return path;
}
StatusOr<std::string> WriteCapture() { return WriteWindow(false); }
StatusOr<std::string> WritePart() { return WriteWindow(true); }
uint64_t HeldRecords() {
  std::lock_guard<std::timed_mutex> lock(g_capture_mu);  // never while the trace is finished
  return g_state.load() == kRunning ? g_session->FlushAndCountHeld() : 0;
}

// `nodescope run --metrics` (api/metrics_feed.h): the records not counted yet that ended by
// `ended_by_ns`, copied and counted under g_capture_mu, as a capture: never while the trace is
// finished, never between a part's cut and its feed, so none is lost between a copy and the end.
bool MetricsRecent(uint64_t ended_by_ns) {
  std::unique_lock<std::timed_mutex> lock(g_capture_mu, std::chrono::seconds(1));
  if (!lock.owns_lock()) return true;  // a capture is being written: next time
  if (g_state.load() != kRunning || getpid() != g_owner_pid) return false;
  Trace recent;
  if (!g_session->CaptureRecent(&recent, ended_by_ns).ok()) return true;
  recent.job = *g_job;
  if (metrics_feed::NeedsRanges(recent)) g_session->CollectRanges(&recent);
  metrics_feed::AddRecent(recent, ended_by_ns);
  return true;
}

void Finalize(int signal_number) {
  int expected = kRunning;
  if (!g_state.compare_exchange_strong(expected, kFinalizing)) {
    // Another thread is writing the trace: wait for it (bounded), so exit() does not cut it off.
    for (int i = 0; i < 6000 && g_state.load() != kDone; ++i) usleep(10000);
    return;
  }
  // Waits for a capture being written (bounded: a hung one must not lose the trace).
  std::unique_lock<std::timed_mutex> capture_lock(g_capture_mu, std::chrono::seconds(30));
  uint64_t t0 = NowNs();
  Status stopped = g_session->Stop();
  uint64_t t1 = t0 + g_session->backend_stop_ns();  // the flush; then ranges, spans and the file
  Trace& trace = g_session->trace();
  trace.trace_name = *g_path;
  trace.job = *g_job;
  metrics_feed::Finish(trace);  // `run --metrics`: the final figures, before the file is written
  if (signal_number != 0) trace.counters.emplace_back("ended_by_signal", signal_number);
  if (g_parts != 0) trace.window.part = g_parts + 1;  // streaming: the last part is the trace
  trace.window.parts_failed = g_parts_failed;
  trace.window.records_in_failed_parts = g_records_in_failed_parts;
  if (g_parts_failed != 0) {
    LogWarning("streaming_parts_lost",
               "%llu streaming part%s could not be written; their %llu GPU records are lost "
               "(counted in the trace under \"window\")",
               static_cast<unsigned long long>(g_parts_failed), g_parts_failed == 1 ? "" : "s",
               static_cast<unsigned long long>(g_records_in_failed_parts));
  }
  report::Line line;
  line.pid = static_cast<uint64_t>(getpid());
  line.rank = g_path_rank;
  // A process that ran nothing on the GPU (a launcher such as torchrun's) writes no file.
  const bool empty =
      trace.gpu.held() == 0 && trace.drops.Total() == 0 && trace.window.streamed == 0;
  // The trace's own write must not end the process: a file-size limit makes it an error instead.
  struct sigaction xfsz {};
  if (sigaction(SIGXFSZ, nullptr, &xfsz) == 0 && xfsz.sa_handler == &OnSignal) {
    signal(SIGXFSZ, SIG_IGN);
  }
  StatusOr<std::string> written_path = empty
                                           ? StatusOr<std::string>(*g_path)
                                           : WriteChromeTraceFileAs(trace, *g_path, g_path_before);
  Status written = written_path.status();
  uint64_t t2 = NowNs();
  if (empty) {
    line.kind = report::Line::Kind::kEmpty;
    line.summary.api_calls = trace.api.held();
    Report(line);
    if (g_report_fd < 0) {
      LogInfo("no_gpu_work", "no trace for pid %d: no GPU work recorded",
              static_cast<int>(getpid()));
    }
  } else if (written.ok()) {
    line.summary = Summarize(trace);
    line.flush_ms = (t1 - t0) / 1000000;
    line.write_ms = (t2 - t1) / 1000000;
    line.path = *written_path;
    Report(line);
    if (*written_path != *g_path && g_report_fd < 0) {
      LogWarning("trace_renamed",
                 "another process wrote %s while this one traced; this trace is named by pid "
                 "instead",
                 TerminalText(*g_path).c_str());
    }
    if (g_report_fd < 0) {
      const TraceSummary& s = line.summary;
      LogInfo("trace_written", "wrote %s (%llu GPU events, %llu from graphs, %llu dropped)",
              TerminalText(*written_path).c_str(), static_cast<unsigned long long>(s.gpu_events),
              static_cast<unsigned long long>(s.graph_events),
              static_cast<unsigned long long>(s.dropped));
    }
  } else {
    line.kind = report::Line::Kind::kError;
    line.message = written.ToString();
    Report(line);
    if (g_report_fd < 0) {  // else `nodescope run` says it
      LogError("trace_not_written", "could not write the trace: %s",
               TerminalText(written.ToString()).c_str());
    }
  }
  if (!stopped.ok()) {
    LogWarning("backend_stop_failed", "%s", stopped.ToString().c_str());
  }
  g_state.store(kDone);
  if (g_done_pipe[1] >= 0) close(g_done_pipe[1]);
}

void AtExit() {
  if (getpid() == g_owner_pid) Finalize(0);
}

void OnSignal(int sig) {
  int saved_errno = errno;
  if (getpid() != g_owner_pid) {  // a forked child: the signal's default action, not our trace
    signal(sig, SIG_DFL);
    raise(sig);  // delivered when the handler returns
    errno = saved_errno;
    return;
  }
  unsigned char byte = static_cast<unsigned char>(sig);
  if (g_signal_pipe[1] >= 0) (void)!write(g_signal_pipe[1], &byte, 1);
  if (IsCrashSignal(sig)) {
    // The faulting thread cannot go on: wait (bounded) for the watcher to write the trace.
    pollfd p{g_done_pipe[0], POLLIN, 0};
    while (poll(&p, 1, 20000) < 0 && errno == EINTR) {
    }
    signal(sig, SIG_DFL);
    raise(sig);  // delivered when the handler returns
  }
  errno = saved_errno;
}

void Watcher() {
  // Signals go to the application's threads, never here: this thread must stay free to finish.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  unsigned char byte = 0;
  while (true) {
    ssize_t n = read(g_signal_pipe[0], &byte, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
  int sig = byte;
  Finalize(sig);
  if (!IsCrashSignal(sig)) {
    // End the process the way the signal would have, so the exit status stays the program's.
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
  }
}

void InstallSignalHooks() {
  if (pipe2(g_signal_pipe, O_CLOEXEC) != 0 || pipe2(g_done_pipe, O_CLOEXEC) != 0) return;
  auto install = [](int sig) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return;  // app's own
    struct sigaction sa {};
    sa.sa_handler = &OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  };
  for (int s : kTerminationSignals) install(s);
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) install(s);
  for (int s : kCrashSignals) install(s);
  std::thread(&Watcher).detach();
}

}  // namespace

bool ProcessSessionActive() {
  int s = g_state.load();
  return s == kRunning || s == kFinalizing;
}

Status StartProcessSession(std::string_view backend) {
  std::lock_guard<std::mutex> lock(g_start_mu);
  if (g_state.load() != kIdle) return OkStatus();
  // A region (nodescope_start/stop) ending while this session runs leaves range recording armed.
  TracingSession::KeepRangesArmedWhile(&ProcessSessionActive);
  g_report_fd = report::ReportFdFromEnv();
  g_job = new JobInfo(ReadJobInfo([](const char* var) { return std::getenv(var); }));
  // Named by rank unless another process of this host holds that name (job_info.h).
  const char* output = std::getenv(report::kOutputVariable);
  const char* root_pid = std::getenv(report::kRootPidVariable);
  g_path_rank = g_job->rank;
  std::string path = report::TracePathFor(output, root_pid, getpid(), g_path_rank);
  if (g_job->rank >= 0 && !ClaimTracePath(path)) {
    // Another process of this host holds the rank's name (a worker the rank started, or a second
    // run of the same rank): this one is named by pid as well, never by the bare -o path.
    path = PidNamedPath(path, static_cast<long>(getpid()));
  }
  g_path = new std::string(path);
  g_path_before = new FileIdentity(IdentifyFile(path));
  auto fail = [&](const Status& s) {
    report::Line line;
    line.kind = report::Line::Kind::kError;
    line.pid = static_cast<uint64_t>(getpid());
    line.message = s.ToString();
    Report(line);
    LogError("not_tracing", "not tracing pid %d: %s", static_cast<int>(getpid()),
             s.ToString().c_str());
    return s;
  };
  StatusOr<std::unique_ptr<TracingSession>> session =
      TracingSession::Start(backend, TracingSession::Scope::kProcess);
  if (!session.ok()) return fail(session.status());
  g_session = session->release();
  g_owner_pid = getpid();
  g_state.store(kRunning);
  std::atexit(&AtExit);
  InstallSignalHooks();
  CaptureTriggers triggers;
  triggers.capture = &WriteCapture;
  triggers.part = &WritePart;
  triggers.held = &HeldRecords;
  triggers.every_ns = g_session->options().capture_every_ns;
  triggers.stream_records = g_session->options().stream_records;
  StartCaptureService(triggers);
  const TracerOptions& o = g_session->options();
  metrics_feed::Start(root_pid,
                      o.stream_records != 0 ? metrics_feed::Mode::kStream
                      : o.ring.enabled()    ? metrics_feed::Mode::kRing
                                            : metrics_feed::Mode::kWhole,
                      o.ring.max_age_ns, &MetricsRecent);
  return OkStatus();
}

}  // namespace nodescope
