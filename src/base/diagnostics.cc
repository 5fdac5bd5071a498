// The diagnostics channel (diagnostics.h). libc only: pthread mutexes rather than std::mutex
// (whose errors throw from libstdc++), no RAII around the sink call and no noexcept (either
// would reference libstdc++'s personality or std::terminate), fixed tables rather than
// containers, no thread_local (__tls_get_addr would make the NVTX shim need ld.so by name).
#include "base/diagnostics.h"

#include <pthread.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nodescope {
namespace {

struct Entry {
  char id[kMaxDiagnosticIdSize + 1];
  DiagnosticLevel level;
  std::atomic<uint64_t> count;
  std::atomic<bool> reported;
};

constexpr char kOverflowId[] = "diagnostics_overflow";

// Ids in the order first raised; an entry is written before g_size publishes it and never
// changes or goes away after, so counters handed out stay valid for the process's life.
pthread_mutex_t g_entries_mu = PTHREAD_MUTEX_INITIALIZER;
Entry g_entries[kMaxDiagnosticIds];
std::atomic<size_t> g_size{0};

// The sink, and the lock each delivery holds (so that SetDiagnosticSink can promise the previous
// sink is done with when it returns).
pthread_mutex_t g_sink_mu = PTHREAD_MUTEX_INITIALIZER;
DiagnosticSink g_sink = &StderrDiagnosticSink;
void* g_sink_user = nullptr;
// The thread inside the sink (holding g_sink_mu), or none. Only that thread stores its own id
// here, so a thread finds its own id only while it is the one inside.
std::atomic<pthread_t> g_sink_thread{};

bool InSink() {
  return pthread_equal(g_sink_thread.load(std::memory_order_relaxed), pthread_self()) != 0;
}

std::atomic<DiagnosticRaise> g_forward{nullptr};

// fork() while another thread holds a lock leaves it held forever in the child (a PyTorch
// DataLoader forks workers from a traced process). Taking the locks around fork would make the
// parent wait for a sink in progress, which may itself wait for the forking thread (a Python
// handler for the GIL it holds), so the child makes its own fresh: a sink lock another thread
// held may have been cut short in a swap, so its sink goes back to stderr; the table lock guards
// nothing a child can see half done (an entry is published only once written).
void ChildAfterFork() {
  if (!InSink()) {  // the forking thread inside the sink unlocks it as it returns
    if (pthread_mutex_trylock(&g_sink_mu) == 0) {
      pthread_mutex_unlock(&g_sink_mu);
    } else {
      g_sink_mu = PTHREAD_MUTEX_INITIALIZER;
      g_sink = &StderrDiagnosticSink;
      g_sink_user = nullptr;
      g_sink_thread.store(pthread_t{}, std::memory_order_relaxed);
    }
  }
  if (pthread_mutex_trylock(&g_entries_mu) == 0) {
    pthread_mutex_unlock(&g_entries_mu);
  } else {
    g_entries_mu = PTHREAD_MUTEX_INITIALIZER;
  }
}
[[maybe_unused]] const int kForkHandlers = pthread_atfork(nullptr, nullptr, &ChildAfterFork);

Entry* NewEntry(size_t index, DiagnosticLevel level, const char* id) {
  Entry& e = g_entries[index];
  std::strncpy(e.id, id, kMaxDiagnosticIdSize);
  e.id[kMaxDiagnosticIdSize] = '\0';
  e.level = level;
  g_size.store(index + 1, std::memory_order_release);
  return &e;
}

// Under g_entries_mu.
Entry* FindLocked(const char* id) {
  const size_t size = g_size.load(std::memory_order_relaxed);
  for (size_t i = 0; i < size; ++i) {
    if (std::strncmp(g_entries[i].id, id, kMaxDiagnosticIdSize) == 0) return &g_entries[i];
  }
  return nullptr;
}

Entry* FindOrAdd(DiagnosticLevel level, const char* id) {
  pthread_mutex_lock(&g_entries_mu);
  Entry* e = FindLocked(id);
  if (e == nullptr) {
    const size_t size = g_size.load(std::memory_order_relaxed);
    if (size + 1 < kMaxDiagnosticIds) {
      e = NewEntry(size, level, id);
    } else {
      e = FindLocked(kOverflowId);
      if (e == nullptr) e = NewEntry(size, DiagnosticLevel::kWarning, kOverflowId);
    }
  }
  pthread_mutex_unlock(&g_entries_mu);
  return e;
}

void Deliver(DiagnosticLevel level, const char* id, const char* message) {
  if (InSink()) {  // the sink reports: stderr, never the sink again (nor its lock)
    StderrDiagnosticSink(static_cast<int>(level), id, message, nullptr);
    return;
  }
  pthread_mutex_lock(&g_sink_mu);
  g_sink_thread.store(pthread_self(), std::memory_order_relaxed);
  g_sink(static_cast<int>(level), id, message, g_sink_user);
  g_sink_thread.store(pthread_t{}, std::memory_order_relaxed);
  pthread_mutex_unlock(&g_sink_mu);
}

// Formats into a stack buffer, or a heap one for a message over it, then raises.
NODESCOPE_PRINTF_FORMAT(4, 0)
std::atomic<uint64_t>* RaiseFormatted(DiagnosticLevel level, const char* id, bool once,
                                      const char* format, va_list args) {
  char text[1024];
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(text, sizeof(text), format, args);
  char* long_text = nullptr;
  if (n >= static_cast<int>(sizeof(text))) {
    long_text = static_cast<char*>(std::malloc(static_cast<size_t>(n) + 1));
    if (long_text != nullptr) std::vsnprintf(long_text, static_cast<size_t>(n) + 1, format, again);
  }
  va_end(again);
  const char* message = long_text != nullptr ? long_text : n >= 0 ? text : format;
  std::atomic<uint64_t>* counter = RaiseDiagnostic(level, id, once, message);
  std::free(long_text);
  return counter;
}

}  // namespace

const char* DiagnosticLevelName(DiagnosticLevel level) {
  switch (level) {
    case DiagnosticLevel::kDebug:
      return "debug";
    case DiagnosticLevel::kInfo:
      return "info";
    case DiagnosticLevel::kWarning:
      return "warning";
    case DiagnosticLevel::kError:
      return "error";
  }
  return "unknown";
}

void StderrDiagnosticSink(int level, const char* /*id*/, const char* message, void* /*user*/) {
  const char* prefix = "nodescope: ";
  if (level == static_cast<int>(DiagnosticLevel::kWarning)) prefix = "nodescope: warning: ";
  if (level == static_cast<int>(DiagnosticLevel::kDebug)) prefix = "nodescope-debug: ";
  // The one place nodescope writes a diagnostic to stderr: one call, so one line.
  std::fprintf(stderr, "%s%s\n", prefix, message);
}

void SetDiagnosticSink(DiagnosticSink sink, void* user) {
  if (sink == nullptr) {
    sink = &StderrDiagnosticSink;
    user = nullptr;
  }
  const bool held = InSink();  // called from the sink: this thread holds the lock already
  if (!held) pthread_mutex_lock(&g_sink_mu);
  g_sink = sink;
  g_sink_user = user;
  if (!held) pthread_mutex_unlock(&g_sink_mu);
}

std::atomic<uint64_t>* RaiseDiagnostic(DiagnosticLevel level, const char* id, bool once,
                                       const char* message) {
  if (DiagnosticRaise forward = g_forward.load(std::memory_order_acquire)) {
    return forward(level, id, once, message);
  }
  if (id == nullptr || *id == '\0') id = "unnamed";
  Entry* e = FindOrAdd(level, id);
  e->count.fetch_add(1, std::memory_order_relaxed);
  const bool first = !e->reported.exchange(true, std::memory_order_acq_rel);
  if (!once || first) Deliver(level, e->id, message != nullptr ? message : "");
  return &e->count;
}

void ForwardDiagnostics(DiagnosticRaise raise) {
  g_forward.store(raise, std::memory_order_release);
}

#define NODESCOPE_RAISE_FORMATTED(level, id, once, format) \
  do {                                                     \
    va_list args;                                          \
    va_start(args, format);                                \
    (void)RaiseFormatted(level, id, once, format, args);   \
    va_end(args);                                          \
  } while (0)

void LogDebug(const char* id, const char* format, ...) {
  NODESCOPE_RAISE_FORMATTED(DiagnosticLevel::kDebug, id, false, format);
}
void LogInfo(const char* id, const char* format, ...) {
  NODESCOPE_RAISE_FORMATTED(DiagnosticLevel::kInfo, id, false, format);
}
void LogWarning(const char* id, const char* format, ...) {
  NODESCOPE_RAISE_FORMATTED(DiagnosticLevel::kWarning, id, false, format);
}
void LogError(const char* id, const char* format, ...) {
  NODESCOPE_RAISE_FORMATTED(DiagnosticLevel::kError, id, false, format);
}
void WarnOnce(const char* id, const char* format, ...) {
  NODESCOPE_RAISE_FORMATTED(DiagnosticLevel::kWarning, id, true, format);
}

void OnceWarningSite::Raise(const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::atomic<uint64_t>* counter =
      RaiseFormatted(DiagnosticLevel::kWarning, id_, true, format, args);
  va_end(args);
  counter_.store(counter, std::memory_order_release);
}

uint64_t DiagnosticCount(const char* id) {
  if (id == nullptr) return 0;
  pthread_mutex_lock(&g_entries_mu);
  const Entry* e = FindLocked(id);
  const uint64_t count = e != nullptr ? e->count.load(std::memory_order_relaxed) : 0;
  pthread_mutex_unlock(&g_entries_mu);
  return count;
}

size_t CopyDiagnosticTallies(DiagnosticTally* out, size_t capacity) {
  const size_t size = g_size.load(std::memory_order_acquire);
  size_t n = 0;
  for (; n < size && n < capacity; ++n) {
    const Entry& e = g_entries[n];
    out[n] = DiagnosticTally{e.id, e.level, e.count.load(std::memory_order_relaxed)};
  }
  return n;
}

}  // namespace nodescope
