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
#include "export/chrome_trace_writer.h"
#include "export/json_output.h"

namespace nodescope::metrics_feed {
namespace {

int g_fd = -1;
Mode g_mode = Mode::kWhole;
uint64_t g_ring_age_ns = 0;
std::atomic<bool> g_active{false};
uint64_t g_fed_until_ns = 0;       // kRing: the end of the last interval (the feeder's thread)
std::mutex g_write_mu;             // one frame at a time
std::atomic<uint64_t> g_parts{0};  // parts fed (written under g_write_mu)

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

void Write(const Trace& window, const char* kind, uint64_t from_ns, uint64_t to_ns,
           const uint64_t* generation) {
  if (!g_active.load()) return;
  StringJsonOutput json;
  if (!WriteChromeTrace(window, json).ok()) return;
  const std::string& body = json.str();
  char header[192];
  const int n = std::snprintf(
      header, sizeof(header), "%s pid=%ld kind=%s from=%llu to=%llu bytes=%zu\n", kFrameTag,
      static_cast<long>(getpid()), kind, static_cast<unsigned long long>(from_ns),
      static_cast<unsigned long long>(to_ns), body.size());
  std::lock_guard<std::mutex> lock(g_write_mu);
  // A window copied before a part that was written meanwhile would count that part twice.
  if (generation != nullptr && *generation != g_parts.load()) return;
  if (!WriteAll(g_fd, header, static_cast<size_t>(n)) ||
      !WriteAll(g_fd, body.data(), body.size())) {
    g_active.store(false);  // run went away: stop feeding
  }
}

// The records an interval frame needs: those that ended after `from_ns` - kNamingSlackNs (a
// second before the interval: the replay straddling its start is there whole, so each graph's
// nodes are all present for its stable name). API calls are not needed for the figures.
void KeepRecent(Trace* window, uint64_t from_ns) {
  window->api.clear();
  if (from_ns <= kNamingSlackNs) return;
  const uint64_t keep_after = from_ns - kNamingSlackNs;
  ChunkedVector<GpuActivity> kept;
  for (size_t i = window->gpu.first_index(); i < window->gpu.size(); ++i) {
    if (window->gpu[i].end_ns > keep_after) kept.push_back(window->gpu[i]);
  }
  window->gpu = std::move(kept);
}

void Feeder(unsigned interval_ms, WindowFn window_fn) {
  sigset_t all;  // signals go to the application's threads, never here
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  uint64_t wait_ms = interval_ms;
  while (g_active.load()) {
    for (uint64_t slept = 0; slept < wait_ms; slept += 50) usleep(50 * 1000);
    const uint64_t t0 = NowNs();
    Trace window;
    uint64_t copied_ns = 0, generation = 0;
    if (!window_fn(&window, &copied_ns, &generation)) return;
    if (copied_ns != 0) {
      if (g_mode == Mode::kStream) {
        Write(window, "window", 0, 0, &generation);
      } else {
        const uint64_t margin =
            g_ring_age_ns != 0 ? std::min(kRingMarginNs, g_ring_age_ns / 4) : kRingMarginNs;
        const uint64_t from = g_fed_until_ns;
        g_fed_until_ns = std::max(copied_ns - std::min(copied_ns, margin), from + 1);
        KeepRecent(&window, from);
        Write(window, "interval", from, g_fed_until_ns, nullptr);
      }
    }
    if (!g_active.load()) return;
    ReturnFreedMemoryToSystem();
    // A feed copies and writes the whole window: at most 1 % of one core, however large the
    // window grows (the interval stretches to 100 times what the last feed took).
    wait_ms = std::max<uint64_t>(interval_ms, (NowNs() - t0) / 1000000 * 100);
    if (g_mode == Mode::kRing && g_ring_age_ns != 0) {  // twice per age: nothing trimmed unfed
      wait_ms = std::min<uint64_t>(wait_ms, std::max<uint64_t>(50, g_ring_age_ns / 4000000));
    }
  }
}

}  // namespace

void Start(const char* root_pid, Mode mode, uint64_t ring_age_ns, WindowFn window) {
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
  g_active.store(true);
  std::thread(&Feeder, interval, window).detach();
}

bool Active() { return g_active.load(); }

uint64_t Generation() { return g_parts.load(); }

void FeedPart(const Trace& part) {
  if (!g_active.load()) return;
  Write(part, "part", 0, 0, nullptr);
  std::lock_guard<std::mutex> lock(g_write_mu);
  g_parts.fetch_add(1);
}

}  // namespace nodescope::metrics_feed
