// The capture service thread: signal pipe, capture socket, periodic captures, streaming parts.
#include "api/capture_service.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

#include "api/capture_socket.h"
#include "base/clock.h"
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

void OnCaptureSignal(int) {
  const int saved = errno;
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

void Report(const char* what, const StatusOr<std::string>& written) {
  if (!written.ok()) {
    std::fprintf(stderr, "nodescope: %s failed: %s\n", what, written.status().ToString().c_str());
  }
}

void Serve(int listen_fd) {
  // Signals go to the application's threads, never here.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  const uint64_t every = g_triggers.every_ns;
  uint64_t next_periodic = every != 0 ? NowNs() + every : 0;
  for (;;) {
    int timeout = -1;
    if (g_triggers.stream_records != 0) timeout = kStreamPollMs;
    if (next_periodic != 0) {
      const uint64_t now = NowNs();
      const int until =
          now >= next_periodic ? 0 : static_cast<int>((next_periodic - now) / 1000000 + 1);
      timeout = timeout < 0 ? until : std::min(timeout, until);
    }
    pollfd fds[3] = {{g_pipe[0], POLLIN, 0}, {listen_fd, POLLIN, 0}, {g_wake[0], POLLIN, 0}};
    const int ready = poll(fds, 3, timeout);  // a negative fd is ignored
    if (ready > 0 && (fds[2].revents & POLLIN) != 0) {
      char buf[64];
      (void)!read(g_wake[0], buf, sizeof(buf));  // the part check below decides
    }
    if (ready < 0 && errno != EINTR) return;
    if (ready > 0 && (fds[0].revents & POLLIN) != 0) {
      char buf[16];
      (void)!read(g_pipe[0], buf, sizeof(buf));  // several signals: one capture
      Report("capture on SIGUSR2", g_triggers.capture());
    }
    if (ready > 0 && listen_fd >= 0 && (fds[1].revents & POLLIN) != 0) {
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        ServeCaptureConnection(fd, g_triggers.capture);
        close(fd);
      }
    }
    if (next_periodic != 0 && NowNs() >= next_periodic) {
      Report("periodic capture", g_triggers.capture());
      // The next one every_ns after this one was due; a slow capture skips those it overran.
      while (next_periodic <= NowNs()) next_periodic += every;
    }
    if (g_triggers.stream_records != 0 && g_triggers.held() >= g_triggers.stream_records) {
      Report("streaming part", g_triggers.part());
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
  StatusOr<int> listen_fd = ListenCaptureSocket(static_cast<long>(getpid()));
  if (!listen_fd.ok()) {
    std::fprintf(stderr, "nodescope: warning: `nodescope capture` is not available: %s\n",
                 listen_fd.status().ToString().c_str());
  }
  std::thread(&Serve, listen_fd.ok() ? *listen_fd : -1).detach();
}

}  // namespace nodescope
