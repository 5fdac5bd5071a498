// User ranges on the simulated ROCm runtime, through nodescope's C API: a range around direct
// kernel launches and one around graph replays. Under `nodescope run --backend rocm` the backend
// pushes each range as an external correlation id, the SDK stamps the API calls made inside it,
// and the trace's device spans follow (check_backend.py, case "ranges").
#include <cstdio>
#include <cstdlib>

#include "nodescope/nodescope.h"
#include "sim_hip.h"

#define CHECK(call)                                                          \
  do {                                                                       \
    if ((call) != simSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

int main() {
  const char* names[] = {"ranges_direct", "ranges_g0", "ranges_g1", "ranges_g2"};
  simFunction_t f[4];
  CHECK(simhipModuleLoad(names, 4, f));
  simStream_t s;
  CHECK(simhipStreamCreate(&s));
  simGraph_t g;
  CHECK(simhipGraphCreate(&g));
  simGraphNode_t prev = nullptr;
  for (int i = 1; i < 4; ++i) {
    simGraphNode_t node;
    CHECK(simhipGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, f[i]));
    prev = node;
  }
  simGraphExec_t e;
  CHECK(simhipGraphInstantiate(&e, g));
  nodescope_range_push("direct");
  for (int i = 0; i < 5; ++i) CHECK(simhipLaunchKernel(f[0], s));
  nodescope_range_pop();
  nodescope_range_push("replays");
  for (int i = 0; i < 10; ++i) CHECK(simhipGraphLaunch(e, s));
  nodescope_range_pop();
  CHECK(simhipStreamSynchronize(s));
  std::printf("expect nodes=3 replays=10\n");
  return 0;
}
