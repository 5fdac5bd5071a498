/* nodescope's C API: trace a region of your own program and write a kineto-schema trace. */
#ifndef NODESCOPE_NODESCOPE_H_
#define NODESCOPE_NODESCOPE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodescope_session nodescope_session;

typedef struct nodescope_summary {
  uint64_t gpu_events;   /* kernels + copies + fills */
  uint64_t kernels;
  uint64_t memcpys;
  uint64_t memsets;
  uint64_t graph_events; /* GPU events that carry "graph id" / "graph node id" */
  uint64_t api_calls;
  uint64_t dropped;      /* records lost anywhere; also written into the trace */
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

#ifdef __cplusplus
}
#endif

#endif /* NODESCOPE_NODESCOPE_H_ */
