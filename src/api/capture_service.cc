// The capture service thread: signal pipe, capture socket, periodic captures, streaming parts.
#include "api/capture_service.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "api/capture_socket.h"
#include "base/clock.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope {
namespace {

CaptureTriggers g_triggers;
int g_pipe[2] = {-1, -1};  // SIGUSR2 handler -> service thread
int g_wake[2] = {-1, -1};  // a thread's range ring half full of unwritten ranges -> a part now
constexpr int kCaptureSignal = SIGUSR2;
// How often streaming flushes the backend and looks at the records held: a part holds at most
// what the program makes in this time more than asked.
constexpr int kStreamPollMs = 500;

pid_t g_service_pid = 0;  // a child forked without exec has no service thread to capture for

void OnCaptureSignal(int sig) {
  const int saved = errno;
  if (getpid() != g_service_pid) {  // SIGUSR2's default action there, as without nodescope
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
    return;
  }
  const char byte = 1;
  if (g_pipe[1] >= 0) (void)!write(g_pipe[1], &byte, 1);
  errno = saved;
}

void OnRangesAwaitAPart() {
  const int saved = errno;
  const char byte = 1;
  if (g_wake[1] >= 0) (void)!write(g_wake[1], &byte, 1);
  errno = saved;
}

void Report(const char* what, bool part, const StatusOr<std::string>& written) {
  if (!written.ok()) {
    LogError(part ? "streaming_part_failed" : "capture_failed", "%s failed: %s", what,
             written.status().ToString().c_str());
  }
}

CaptureServer* g_server = nullptr;  // the service thread's; lives as long as the process

void Serve() {
  // Signals go to the application's threads, never here.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const uint64_t every = g_triggers.every_ns;
  uint64_t next_periodic = every != 0 ? NowNs() + every : 0;
  // Streaming looks at the records held on its own clock (or when ranges ask), never because
  // some other descriptor woke the thread: a flood of connections must not flush the vendor.
  const uint64_t stream_poll_ns = static_cast<uint64_t>(kStreamPollMs) * 1000000;
  uint64_t next_stream = g_triggers.stream_records != 0 ? NowNs() + stream_poll_ns : 0;
  for (;;) {
    const uint64_t now = NowNs();
    int timeout = g_server->TimeoutMs(now);
    auto until = [now](uint64_t at) {
      return at <= now ? 0 : static_cast<int>((at - now) / 1000000 + 1);
    };
    if (next_stream != 0)
      timeout = timeout < 0 ? until(next_stream) : std::min(timeout, until(next_stream));
    if (next_periodic != 0) {
      timeout = timeout < 0 ? until(next_periodic) : std::min(timeout, until(next_periodic));
    }
    pollfd fds[2 + 1 + CaptureServer::kMaxClients];
    fds[0] = {g_pipe[0], POLLIN, 0};
    fds[1] = {g_wake[0], POLLIN, 0};  // a negative fd is ignored
    const int n = 2 + g_server->PollFds(fds + 2, now);
    const int ready = poll(fds, static_cast<nfds_t>(n), timeout);
    if (ready < 0 && errno != EINTR) return;
    bool part_now = false;
    if (ready > 0 && (fds[1].revents & POLLIN) != 0) {
      char buf[64];
      (void)!read(g_wake[0], buf, sizeof(buf));
      part_now = true;
    }
    if (ready > 0 && (fds[0].revents & POLLIN) != 0) {
      char buf[16];
      (void)!read(g_pipe[0], buf, sizeof(buf));  // several signals: one capture
      Report("capture on SIGUSR2", false, g_triggers.capture());
    }
    if (ready > 0 || g_server->TimeoutMs(NowNs()) == 0) {
      g_server->Handle(fds + 2, n - 2, NowNs(), g_triggers.capture);
    }
    if (next_periodic != 0 && NowNs() >= next_periodic) {
      Report("periodic capture", false, g_triggers.capture());
      // The next one every_ns after this one was due; a slow capture skips those it overran.
      while (next_periodic <= NowNs()) next_periodic += every;
    }
    if (next_stream != 0 && (part_now || NowNs() >= next_stream)) {
      next_stream = NowNs() + stream_poll_ns;
      if (g_triggers.held() >= g_triggers.stream_records) {
        Report("streaming part", true, g_triggers.part());
      }
    }
  }
}

}  // namespace

std::string WindowFilePath(const std::string& trace_path, const char* kind, uint64_t n) {
  std::string base = trace_path;
  const size_t slash = base.rfind('/');
  const size_t dot = base.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    base.resize(dot);
  }
  return base + "." + kind + "-" + std::to_string(n) + ".json";
}

void StartCaptureService(const CaptureTriggers& triggers) {
  if (g_pipe[0] >= 0) return;
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  g_service_pid = getpid();
  g_triggers = triggers;
  if (triggers.stream_records != 0 && pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) == 0) {
    RangeRecorder::Get().SetStreamWake(&OnRangesAwaitAPart);
  }
  struct sigaction old {};
  if (sigaction(kCaptureSignal, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
    struct sigaction sa {};
    sa.sa_handler = &OnCaptureSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(kCaptureSignal, &sa, nullptr);
  }
  g_server = new CaptureServer();
  const Status listening = g_server->Listen(static_cast<long>(getpid()));
  if (!listening.ok()) {
    LogWarning("capture_unavailable", "`nodescope capture` is not available: %s",
               listening.ToString().c_str());
  } else if (g_server->name() != CaptureSocketName(static_cast<long>(getpid()))) {
    LogWarning("capture_socket_taken",
               "another process holds @%s; `nodescope capture` reaches this one as @%s",
               CaptureSocketName(static_cast<long>(getpid())).c_str(), g_server->name().c_str());
  }
  std::thread(&Serve).detach();
}

}  // namespace nodescope
