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

/* Starts tracing with the first available backend. Returns NULL on failure; then
 * nodescope_last_error() says why (no GPU, another profiler attached, already tracing...). */
nodescope_session* nodescope_start(void);
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
