// The diagnostics channel: every message nodescope has for a person (warnings, errors, notes,
// debug output) goes through here, under a short stable id ("pti_foreign_buffers"), counted per
// id, to one sink: stderr unless a program installs its own (nodescope_set_log_handler()).
//
// Built on libc alone (no libstdc++, no allocation but for a message over 1 KiB): the NVTX shim,
// which must depend on libc only, compiles it in (backends/nvtx/CMakeLists.txt says why).
//
// Each copy of this code (libnodescope.so, the CLI, every backend library, the NVTX shim) holds
// its own state. A backend library forwards its whole channel to libnodescope.so's once attached
// (ForwardDiagnostics, backends/plugin_client.cc), so one sink sees every message and the
// session counts every warning (api/tracing_session.cc writes them into the trace).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#define NODESCOPE_PRINTF_FORMAT(format_index, first_arg) \
  __attribute__((format(printf, format_index, first_arg)))

namespace nodescope {

// The C API's NODESCOPE_LOG_* are the same numbers.
enum class DiagnosticLevel : int {
  kDebug = 0,    // opt-in output for nodescope's developers (NODESCOPE_DEBUG_*)
  kInfo = 1,     // what happened: "wrote t.capture-1.json (...)"
  kWarning = 2,  // something the trace lacks or a setting ignored; tracing goes on
  kError = 3,    // something that failed: not tracing, no trace written
};

// "debug", "info", "warning", "error".
const char* DiagnosticLevelName(DiagnosticLevel level);

// Ids are cut to this many bytes.
inline constexpr size_t kMaxDiagnosticIdSize = 63;
// Distinct ids a process counts; the ids past the last but one share "diagnostics_overflow".
inline constexpr size_t kMaxDiagnosticIds = 256;

// Receives every message reported. `level` is a DiagnosticLevel; `id` and `message` (no
// trailing newline) are valid during the call only. Called from any thread, one call at a time; it
// must not throw. A message it reports itself goes to stderr (never back into it).
using DiagnosticSink = void (*)(int level, const char* id, const char* message, void* user);

// The default sink, one line per message: "nodescope: warning: <message>" for warnings,
// "nodescope-debug: <message>" for debug output, "nodescope: <message>" otherwise (an error's
// message says what failed: "not tracing pid 42: ...").
void StderrDiagnosticSink(int level, const char* id, const char* message, void* user);

// Sends every later message to sink(level, id, message, user); null restores stderr. Safe while
// other threads report: when it returns, no call to the previous sink is running or will start
// (a sink may call it too). In a forwarding library, the host's sink is the one that counts.
// A child forked while another thread was inside the sink starts with fresh locks and stderr.
void SetDiagnosticSink(DiagnosticSink sink, void* user);

// Reports a printf-formatted message under `id`: counted, then passed to the sink. Takes a lock;
// for a condition that can repeat per record, use NODESCOPE_WARN_ONCE.
void LogDebug(const char* id, const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);
void LogInfo(const char* id, const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);
void LogWarning(const char* id, const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);
void LogError(const char* id, const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);

// A once-only warning: the first raise of `id` in the process reports it, every raise counts.
// Each call takes the channel's lock (cold paths); a hot path uses NODESCOPE_WARN_ONCE.
void WarnOnce(const char* id, const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);

// What every report above comes down to: counts `id` (its level is that of its first raise) and
// passes `message` to the sink, unless `once` and the id was reported before. Returns the id's
// counter, which lives as long as the process. Forwarded when ForwardDiagnostics() says so.
std::atomic<uint64_t>* RaiseDiagnostic(DiagnosticLevel level, const char* id, bool once,
                                       const char* message);
using DiagnosticRaise = std::atomic<uint64_t>* (*)(DiagnosticLevel level, const char* id, bool once,
                                                   const char* message);
// From now on every raise in this copy of the channel goes to `raise` (another library's
// RaiseDiagnostic: libnodescope.so's, PluginHostV1::raise_diagnostic), which counts and delivers
// it; null: this copy's own state again. A NODESCOPE_WARN_ONCE site that raised before keeps the
// counter it was given.
void ForwardDiagnostics(DiagnosticRaise raise);

// How many times `id` was raised in this copy of the channel (0 if never).
uint64_t DiagnosticCount(const char* id);

struct DiagnosticTally {
  const char* id;  // lives as long as the process
  DiagnosticLevel level;
  uint64_t count;
};
// Every id raised so far, in the order of their first raise (so a later copy extends an earlier
// one, index for index); at most `capacity` of them. Returns how many were written.
size_t CopyDiagnosticTallies(DiagnosticTally* out, size_t capacity);
inline std::vector<DiagnosticTally> DiagnosticTallies() {
  std::vector<DiagnosticTally> tallies(kMaxDiagnosticIds);
  tallies.resize(CopyDiagnosticTallies(tallies.data(), tallies.size()));
  return tallies;
}

// One call site's once-only warning (NODESCOPE_WARN_ONCE declares one). It is constant-
// initialised (constexpr constructor, trivial destructor), so the function-local static costs no
// guard. Its first raise goes through RaiseDiagnostic (lock, formatting) and keeps the id's
// counter; every later one is CountAgain(): one acquire load and one relaxed atomic add, no lock,
// no allocation, no formatting (the arguments are not even evaluated).
class OnceWarningSite {
 public:
  constexpr explicit OnceWarningSite(const char* id) : id_(id) {}
  OnceWarningSite(const OnceWarningSite&) = delete;
  OnceWarningSite& operator=(const OnceWarningSite&) = delete;

  // True when this site has raised before; then this call is counted and nothing else is done.
  bool CountAgain() {
    std::atomic<uint64_t>* counter = counter_.load(std::memory_order_acquire);
    if (counter == nullptr) [[unlikely]] {
      return false;
    }
    counter->fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // The site's first raise (two threads may both get here: both count, one reports).
  void Raise(const char* format, ...) NODESCOPE_PRINTF_FORMAT(2, 3);

 private:
  const char* id_;
  std::atomic<std::atomic<uint64_t>*> counter_{nullptr};
};

// NODESCOPE_WARN_ONCE("exec_id_reused", "graph exec id %u ...", id): a once-only warning for a
// hot path (per record). `id` must be a string literal.
#define NODESCOPE_WARN_ONCE(id, ...)                                                 \
  do {                                                                               \
    static constinit ::nodescope::OnceWarningSite nodescope_once_site_{id};          \
    if (!nodescope_once_site_.CountAgain()) nodescope_once_site_.Raise(__VA_ARGS__); \
  } while (0)

}  // namespace nodescope
