// A profile of the launching thread, by shared object: preload this library (LD_PRELOAD) into
// examples/graph_replay and it samples the main thread's program counter every 50 us (a POSIX
// timer on CLOCK_MONOTONIC aimed at that thread: a CPU-time timer fires only at scheduler ticks;
// the launching thread is busy, not blocked, while it launches), from graph_replay's call of
// launch_profile_start() before its launch loop to launch_profile_pause() after it (so CUDA's
// initialisation and the final synchronize's spin are left out). At
// exit it prints the CPU time spent in each shared object, e.g.
//   launch_profile: 2570 samples (128.5 ms): libcuda.so.1 71.2 % (91.5 ms), graph_replay 20.1 % ...
// bench/overhead.py --profile runs it under each configuration (issue 14: where the launching
// thread's time goes when sampling). Not for production: the signal handler stores one word per
// sample into a fixed array; names are looked up at exit.
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr long kPeriodNs = 50000;
constexpr size_t kMaxSamples = 1u << 20;
uintptr_t g_pcs[kMaxSamples];
std::atomic<size_t> g_count{0};
std::atomic<bool> g_paused{false};
timer_t g_timer;
bool g_armed = false;

void OnSample(int, siginfo_t*, void* context) {
  if (g_paused.load(std::memory_order_relaxed)) return;
  const size_t i = g_count.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxSamples) {
    g_pcs[i] =
        static_cast<uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  }
}

std::string ObjectOf(uintptr_t pc) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) {
    return "(unknown)";
  }
  const char* slash = std::strrchr(info.dli_fname, '/');
  std::string name = slash != nullptr ? slash + 1 : info.dli_fname;
  return name.empty() ? "(main program)" : name;
}

void Report() {
  if (!g_armed) return;
  g_paused.store(true);
  const size_t n = std::min(g_count.load(), kMaxSamples);
  std::map<std::string, size_t> by_object;
  for (size_t i = 0; i < n; ++i) ++by_object[ObjectOf(g_pcs[i])];
  std::vector<std::pair<size_t, std::string>> rows;
  for (const auto& [name, count] : by_object) rows.emplace_back(count, name);
  std::sort(rows.rbegin(), rows.rend());
  std::fprintf(stderr, "launch_profile: %zu samples (%.1f ms):", n, n * kPeriodNs / 1e6);
  for (const auto& [count, name] : rows) {
    std::fprintf(stderr, " %s %.1f %% (%.1f ms),", name.c_str(), 100.0 * count / n,
                 count * kPeriodNs / 1e6);
  }
  std::fprintf(stderr, "\n");
}

__attribute__((constructor)) void Start() {
  // Only graph_replay (not `nodescope run`, which passes the preload on to it).
  if (std::strcmp(program_invocation_short_name, "graph_replay") != 0) return;
  struct sigaction sa = {};
  sa.sa_sigaction = &OnSample;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGPROF, &sa, nullptr) != 0) return;
  sigevent ev = {};
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_MONOTONIC, &ev, &g_timer) != 0) return;
  g_armed = true;
  std::atexit(&Report);
}

}  // namespace

// graph_replay calls these (weak references) around its launch loop.
extern "C" __attribute__((visibility("default"))) void launch_profile_start() {
  if (!g_armed) return;
  itimerspec spec = {};
  spec.it_value.tv_nsec = kPeriodNs;
  spec.it_interval.tv_nsec = kPeriodNs;
  timer_settime(g_timer, 0, &spec, nullptr);
}

extern "C" __attribute__((visibility("default"))) void launch_profile_pause() {
  g_paused.store(true, std::memory_order_relaxed);
}
