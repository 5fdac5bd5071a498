#include "api/metrics_feed.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/diagnostics.h"
#include "base/freed_memory.h"
#include "base/terminal_text.h"
#include "metrics/figures_text.h"
#include "metrics/record_figures.h"

namespace nodescope::metrics_feed {
namespace {

int g_fd = -1;
Mode g_mode = Mode::kWhole;
uint64_t g_ring_age_ns = 0;
std::atomic<bool> g_active{false};
std::mutex g_write_mu;  // one frame at a time
// The figures, what they count up to, and whether the final frame was made.
std::mutex g_figures_mu;
metrics::RecordFigures* g_figures = nullptr;  // never destroyed: the feeder may run at exit
uint64_t g_fed_until_ns = 0;
bool g_finished = false;

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The figures so far as a frame (under g_figures_mu, so that frames leave in the order their
// figures were made).
void WriteFigures(const char* kind) {
  if (!g_active.load()) return;
  const std::string body = metrics::EncodeFigures(g_figures->Figures(getpid()));
  char header[192];
  const int n = std::snprintf(
      header, sizeof(header), "%s pid=%ld kind=%s from=0 to=%llu bytes=%zu\n", kFrameTag,
      static_cast<long>(getpid()), kind,
      static_cast<unsigned long long>(g_fed_until_ns == UINT64_MAX ? 0 : g_fed_until_ns),
      body.size());
  std::lock_guard<std::mutex> lock(g_write_mu);
  if (!WriteAll(g_fd, header, static_cast<size_t>(n)) ||
      !WriteAll(g_fd, body.data(), body.size())) {
    g_active.store(false);  // run went away: stop feeding
  }
}

void Feeder(unsigned interval_ms, Source source) {
  sigset_t all;  // signals go to the application's threads, never here
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  uint64_t wait_ms = interval_ms;
  const uint64_t margin =
      g_ring_age_ns != 0 ? std::min(kRingMarginNs, g_ring_age_ns / 4) : kRingMarginNs;
  while (g_active.load()) {
    for (uint64_t slept = 0; slept < wait_ms; slept += 50) usleep(50 * 1000);
    const uint64_t t0 = NowNs();
    // Records that ended in the last `margin` wait for the next turn: a later batch may still
    // decide their keys.
    if (!source(t0 - std::min(t0, margin))) return;
    if (!g_active.load()) return;
    ReturnFreedMemoryToSystem();
    // At most 1 % of one core: the interval stretches to 100 times what the last feed took.
    wait_ms = std::max<uint64_t>(interval_ms, (NowNs() - t0) / 1000000 * 100);
    if (g_mode == Mode::kRing && g_ring_age_ns != 0) {  // twice per age: nothing trimmed unfed
      wait_ms = std::min<uint64_t>(wait_ms, std::max<uint64_t>(50, g_ring_age_ns / 4000000));
    }
  }
}

}  // namespace

void Start(const char* root_pid, Mode mode, uint64_t ring_age_ns, Source source) {
  const char* fd_text = std::getenv(kFdVariable);
  if (fd_text == nullptr || *fd_text == '\0') return;
  if (root_pid == nullptr || std::strtol(root_pid, nullptr, 10) != static_cast<long>(getpid())) {
    return;  // a process the traced program started: not fed (run serves the one it started)
  }
  char* end = nullptr;
  const long fd = std::strtol(fd_text, &end, 10);
  struct stat st {};
  if (end == fd_text || *end != '\0' || fd < 3 || fd > 65535 ||
      fstat(static_cast<int>(fd), &st) != 0 || !S_ISFIFO(st.st_mode)) {
    LogWarning("metrics_fd_ignored", "%s=%s is not a pipe: no metrics fed", kFdVariable,
               TerminalText(fd_text).c_str());
    return;
  }
  fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  g_fd = static_cast<int>(fd);
  g_mode = mode;
  g_ring_age_ns = ring_age_ns;
  unsigned interval = kDefaultIntervalMs;
  if (const char* iv = std::getenv(kIntervalVariable); iv != nullptr && *iv) {
    const long v = std::strtol(iv, &end, 10);
    if (*end == '\0' && v >= 50 && v <= 3600 * 1000) interval = static_cast<unsigned>(v);
  }
  g_figures = new metrics::RecordFigures;
  g_active.store(true);
  std::thread(&Feeder, interval, source).detach();
}

bool Active() { return g_active.load(); }

bool NeedsRanges(const Trace& recent) {
  std::lock_guard<std::mutex> lock(g_figures_mu);
  return g_figures != nullptr && g_figures->NeedsRanges(recent);
}

void AddRecent(const Trace& recent, uint64_t ended_by_ns) {
  std::lock_guard<std::mutex> lock(g_figures_mu);
  if (g_figures == nullptr || g_finished) return;
  g_figures->Add(recent);
  g_fed_until_ns = std::max(g_fed_until_ns, ended_by_ns);
  g_figures->CloseReplays(g_fed_until_ns - std::min(g_fed_until_ns, metrics::kReplayCloseNs));
  WriteFigures("figures");
}

void FeedPart(const Trace& part) {
  if (!g_active.load()) return;
  std::lock_guard<std::mutex> lock(g_figures_mu);
  if (g_finished) return;
  g_figures->Add(part);
  WriteFigures("figures");
}

void Finish(const Trace& trace) {
  if (g_figures == nullptr) return;
  std::lock_guard<std::mutex> lock(g_figures_mu);
  if (g_finished) return;
  g_finished = true;
  g_figures->Add(trace);
  g_fed_until_ns = UINT64_MAX;
  g_figures->CloseReplays(UINT64_MAX);
  WriteFigures("final");
  g_active.store(false);
}

}  // namespace nodescope::metrics_feed
