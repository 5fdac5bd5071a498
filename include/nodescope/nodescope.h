/* nodescope's C API: trace a region of your own program and write a kineto-schema trace. */
#ifndef NODESCOPE_NODESCOPE_H_
#define NODESCOPE_NODESCOPE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodescope_session nodescope_session;

typedef struct nodescope_summary {
  uint64_t gpu_events; /* kernels + copies + fills */
  uint64_t kernels;
  uint64_t memcpys;
  uint64_t memsets;
  uint64_t graph_events; /* GPU events that carry "graph id" / "graph node id" */
  uint64_t api_calls;
  uint64_t dropped; /* records lost anywhere; also written into the trace */
} nodescope_summary;

/* Starts tracing with the first available backend and the options of the environment
 * (NODESCOPE_SAMPLE, NODESCOPE_RING, ...: README, "Environment variables"). Returns NULL on
 * failure; then nodescope_last_error() says why (no GPU, another profiler attached, already
 * tracing, a bad NODESCOPE_* value...). Same as nodescope_start_with_options(NULL). */
nodescope_session* nodescope_start(void);
/* Starts tracing with the options in `options` (NULL or "": none), a string of key=value pairs
 * separated by ';' or newlines, blanks around keys and values ignored:
 *   "backend=rocm; sample=10; sample_burst=4; ring=64k"
 * Each key is the environment variable's name in lower case without NODESCOPE_, with the same
 * values; an option the string does not name is read from the environment, as by
 * nodescope_start().
 *   backend                    a backend by name ("cuda", "rocm", "pti"); default the first
 *   sample                     trace about 1 launch in N, 1..10^9 (backends that cannot sample
 *                              refuse it)
 *   sample_burst               kept launches of a graph in a row per pick, 1..15 (default 4)
 *   ring                       keep only the most recent window: records ("64k", "10M"), bytes
 *                              ("256MB") or a time ("60s"); see nodescope_capture()
 *   max_events                 records kept, 1..10^12 (default 50000000; with ring, unbounded)
 *   max_buffers                vendor buffers in flight, 2..65536 (default 64)
 *   buffer_size_mb             one vendor buffer, 1..1024 (default 8)
 *   disable_graph_attribution  1/true/yes: records keep the vendor's native graph ids
 *   output                     the trace's path, which the files of stream and capture_every
 *                              are named after ("t.json" -> "t.part-1.json", "t.capture-1.json";
 *                              nodescope_write() may still write the trace anywhere)
 *   stream                     write the trace in parts of N records ("100k"): each time the
 *                              session holds N, the next part is written and released; the trace
 *                              written at the end is the last part. Needs output
 *   capture_every              also write the window held every TIME ("60s"). Needs output
 * An unknown key, a key given twice, a pair without '=' or with an empty value, or a bad value
 * returns NULL, and nodescope_last_error() names the key and says why. */
nodescope_session* nodescope_start_with_options(const char* options);
/* While the session runs: writes the window it holds now (everything so far, or with ring= the
 * most recent window) to `path` as a trace file, and goes on tracing. Each call writes a
 * "capture" numbered from 1 ("window": {"capture": n}). 0 on success. */
int nodescope_capture(nodescope_session* session, const char* path);
/* Flushes all device activity and stops collecting. 0 on success. */
int nodescope_stop(nodescope_session* session);
/* Writes the Chrome-trace JSON (kineto schema) of a stopped session. 0 on success. */
int nodescope_write(nodescope_session* session, const char* path);
/* Fills *out with counts for a stopped session. 0 on success. */
int nodescope_get_summary(const nodescope_session* session, nodescope_summary* out);
/* Stops if needed and frees the session. NULL is allowed. */
void nodescope_destroy(nodescope_session* session);
/* The calling thread's last error message ("" if none). Valid until the next call. */
const char* nodescope_last_error(void);

/* Diagnostics. nodescope's messages (warnings, errors, notes; debug output when asked for) go to
 * one handler, stderr by default ("nodescope: warning: ..."), the backend libraries' included.
 * Each has a level and a short stable id ("pti_foreign_buffers"); a session's trace counts the
 * warnings and errors raised during it by id ("warnings_<id>" under "nodescope"). */
#define NODESCOPE_LOG_DEBUG 0
#define NODESCOPE_LOG_INFO 1
#define NODESCOPE_LOG_WARNING 2
#define NODESCOPE_LOG_ERROR 3
/* `level` is a NODESCOPE_LOG_* value; `id` and `message` (no trailing newline) are valid during
 * the call only. Called from any thread, one call at a time; it must not throw or longjmp. A
 * message the handler itself causes goes to stderr. */
typedef void (*nodescope_log_fn)(int level, const char* id, const char* message, void* user);
/* Sends every later message to fn(level, id, message, user) instead of stderr; NULL restores
 * stderr. Safe while other threads report: when it returns, no call to the previous handler is
 * running or will start, so its user data may be freed (it waits for a call in progress: do not
 * hold a lock the handler takes while calling it). The handler may call it too. Under `nodescope
 * run` the trace is reported from an exit hook: a handler that cannot run then (an interpreter's)
 * should be removed before the process exits. */
void nodescope_set_log_handler(nodescope_log_fn fn, void* user);

/* User ranges. Push/pop ranges nest per thread; each becomes a user_annotation on its thread
 * and a gpu_user_annotation on every stream that ran work launched inside it. A range open
 * while a CUDA graph is captured follows its nodes into every replay (the "scope" arg).
 * Recorded while a session (or `nodescope run`) is tracing; otherwise they cost a few ns.
 * The name is copied. */
void nodescope_range_push(const char* name);
void nodescope_range_pop(void);
/* Start/end ranges may overlap and end on another thread; they are shown on the CPU only. */
uint64_t nodescope_range_start(const char* name);
void nodescope_range_end(uint64_t id);

#ifdef __cplusplus
}
#endif

#endif /* NODESCOPE_NODESCOPE_H_ */
