// User ranges on the simulated ROCm runtime, through nodescope's C API: a range around direct
// kernel launches and one around graph replays. Under `nodescope run --backend rocm` the backend
// pushes each range as an external correlation id, the SDK stamps the API calls made inside it,
// and the trace's device spans follow (check_backend.py, case "ranges").
//
// `ranges_program scopes`: capture-time ranges (case "scopes"). Kernels s_a..s_d are captured on
// one stream with s_a, s_d under "outer" and s_b, s_c under "outer/inner"; the graph is
// instantiated twice and each exec replayed 5 times outside any range, then exec 2 is updated to
// an uncaptured graph of kernels u_a..u_d and replayed 5 times (no scope), and a graph of kernels
// c_a, c_b captured with no range open is replayed 3 times (no scope), and a graph of e_a, e_b
// captured under "edited", then given a third node e_c by hipGraphAddKernelNode (not followed),
// is replayed 3 times: no scope at all (the captured nodes' handles are unknown, so where the new
// one runs is too). Built node by node with hipGraphAddKernelNode: a chain k_a ("built"), k_b
// ("built/step"), k_c (none) replayed 4 times keeps its scopes; a fan f_a -> {f_b, f_c} built
// under "fanned" (order not known) is replayed 2 times with no scope.
//
// `ranges_program roctx`: the same launches as the default case inside ROCTx ranges (the sim's
// roctx library, sim_hip.h): push "roctx_outer" { push "roctx_direct" { 5 direct launches },
// push "roctx_replays" { 10 replays } }, then a start/stop range "roctx_started" around 2 more
// direct launches, and a mark (not recorded).
//
// `ranges_program service <n>`: a service pushing a range per request (issue 14, ring mode): n
// ranges "request" (a graph replay every 1000th), printing "rss_kb <i> <VmRSS>" at each quarter.
// `ranges_program service <n> <per_ms>`: the same, paced: a 1 ms sleep after every per_ms ranges.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "nodescope/nodescope.h"
#include "sim_hip.h"
#include "sim_program_helpers.h"

int Scopes() {
  const char* names[] = {"s_a", "s_b", "s_c", "s_d", "u_a", "u_b", "u_c", "u_d", "c_a", "c_b",
                         "e_a", "e_b", "e_c", "k_a", "k_b", "k_c", "f_a", "f_b", "f_c"};
  simFunction_t f[19];
  CHECK(simhipModuleLoad(names, 19, f));
  simStream_t s = Stream();
  simGraph_t g;
  nodescope_range_push("outer");
  CHECK(simhipStreamBeginCapture(s));
  CHECK(simhipLaunchKernel(f[0], s));
  nodescope_range_push("inner");
  CHECK(simhipLaunchKernel(f[1], s));
  CHECK(simhipLaunchKernel(f[2], s));
  nodescope_range_pop();
  CHECK(simhipLaunchKernel(f[3], s));
  CHECK(simhipStreamEndCapture(s, &g));
  nodescope_range_pop();
  simGraphExec_t e1 = Instantiate(g), e2;
  CHECK(simhipGraphInstantiateWithFlags(&e2, g, 0));
  Replay(e1, s, 5);
  Replay(e2, s, 5);
  // The same topology (a chain of 4), built node by node: not a followed capture.
  CHECK(simhipGraphExecUpdate(e2, Chain({f[4], f[5], f[6], f[7]})));
  Replay(e2, s, 5);
  simGraph_t c;
  CHECK(simhipStreamBeginCapture(s));
  CHECK(simhipLaunchKernel(f[8], s));
  CHECK(simhipLaunchKernel(f[9], s));
  CHECK(simhipStreamEndCapture(s, &c));
  Replay(Instantiate(c), s, 3);
  simGraph_t d;
  nodescope_range_push("edited");
  CHECK(simhipStreamBeginCapture(s));
  CHECK(simhipLaunchKernel(f[10], s));
  CHECK(simhipLaunchKernel(f[11], s));
  CHECK(simhipStreamEndCapture(s, &d));
  nodescope_range_pop();
  simGraphNode_t extra;
  CHECK(simhipGraphAddKernelNode(&extra, d, nullptr, 0, f[12]));
  Replay(Instantiate(d), s, 3);
  simGraph_t k;
  CHECK(simhipGraphCreate(&k));
  simGraphNode_t ka, kb, kc;
  nodescope_range_push("built");
  CHECK(simhipGraphAddKernelNode(&ka, k, nullptr, 0, f[13]));
  nodescope_range_push("step");
  CHECK(simhipGraphAddKernelNode(&kb, k, &ka, 1, f[14]));
  nodescope_range_pop();
  nodescope_range_pop();
  CHECK(simhipGraphAddKernelNode(&kc, k, &kb, 1, f[15]));
  Replay(Instantiate(k), s, 4);
  simGraph_t fan;
  CHECK(simhipGraphCreate(&fan));
  simGraphNode_t fa, fb, fc;
  nodescope_range_push("fanned");
  CHECK(simhipGraphAddKernelNode(&fa, fan, nullptr, 0, f[16]));
  CHECK(simhipGraphAddKernelNode(&fb, fan, &fa, 1, f[17]));
  CHECK(simhipGraphAddKernelNode(&fc, fan, &fa, 1, f[18]));
  nodescope_range_pop();
  Replay(Instantiate(fan), s, 2);
  CHECK(simhipStreamSynchronize(s));
  return 0;
}

// `ranges_program forked`: capture-time ranges of captures forked to another stream. Under
// "outer", fk_a is captured on stream A, then forked by an event to stream B, where fk_b, fk_c are
// captured under "outer/branch", then fk_d on A, B joined back by a second event, fk_e on A: the
// exec runs them a, b, d, c, e (breadth first), not in capture order; 5 replays. Then am_a is
// captured on A under "x" and on B (forked) under "y": which node is which cannot be known, so
// neither gets a scope (2 launches counted as forked_capture_launches_unscoped); 3 replays.
int Forked() {
  const char* names[] = {"fk_a", "fk_b", "fk_c", "fk_d", "fk_e", "am_a"};
  simFunction_t f[6];
  CHECK(simhipModuleLoad(names, 6, f));
  simStream_t a = Stream(), b = Stream();
  simEvent_t fork, join;
  CHECK(simhipEventCreate(&fork));
  CHECK(simhipEventCreate(&join));
  simGraph_t g;
  nodescope_range_push("outer");
  CHECK(simhipStreamBeginCapture(a));
  CHECK(simhipLaunchKernel(f[0], a));
  CHECK(simhipEventRecord(fork, a));
  CHECK(simhipStreamWaitEvent(b, fork, 0));
  nodescope_range_push("branch");
  CHECK(simhipLaunchKernel(f[1], b));
  CHECK(simhipLaunchKernel(f[2], b));
  nodescope_range_pop();
  CHECK(simhipLaunchKernel(f[3], a));
  CHECK(simhipEventRecord(join, b));
  CHECK(simhipStreamWaitEvent(a, join, 0));
  CHECK(simhipLaunchKernel(f[4], a));
  CHECK(simhipStreamEndCapture(a, &g));
  nodescope_range_pop();
  Replay(Instantiate(g), a, 5);
  simGraph_t amb;
  CHECK(simhipStreamBeginCapture(a));
  nodescope_range_push("x");
  CHECK(simhipLaunchKernel(f[5], a));
  nodescope_range_pop();
  CHECK(simhipEventRecord(fork, a));
  CHECK(simhipStreamWaitEvent(b, fork, 0));
  nodescope_range_push("y");
  CHECK(simhipLaunchKernel(f[5], b));
  nodescope_range_pop();
  CHECK(simhipEventRecord(join, b));
  CHECK(simhipStreamWaitEvent(a, join, 0));
  CHECK(simhipStreamEndCapture(a, &amb));
  Replay(Instantiate(amb), a, 3);
  CHECK(simhipStreamSynchronize(a));
  return 0;
}

long RssKb() {
  FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  }
  if (f != nullptr) std::fclose(f);
  return kb;
}

int Service(long n, long per_ms) {
  if (n < 4) return 1;
  const char* names[] = {"service_k"};
  simFunction_t f[1];
  CHECK(simhipModuleLoad(names, 1, f));
  simStream_t s = Stream();
  simGraphExec_t e = Instantiate(Chain({f[0]}));
  for (long i = 1; i <= n; ++i) {
    nodescope_range_push("request");
    if (i % 1000 == 0) CHECK(simhipGraphLaunch(e, s));
    nodescope_range_pop();
    if (i % (n / 4) == 0) std::printf("rss_kb %ld %ld\n", i, RssKb());
    if (per_ms > 0 && i % per_ms == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(simhipStreamSynchronize(s));
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "service") {
    return Service(std::atol(argv[2]), argc > 3 ? std::atol(argv[3]) : 0);
  }
  if (argc > 1 && std::string(argv[1]) == "scopes") return Scopes();
  if (argc > 1 && std::string(argv[1]) == "forked") return Forked();
  const bool roctx = argc > 1 && std::string(argv[1]) == "roctx";
  auto push = [&](const char* name) {
    if (roctx) {
      simroctxRangePushA(name);
    } else {
      nodescope_range_push(name);
    }
  };
  auto pop = [&] {
    if (roctx) {
      simroctxRangePop();
    } else {
      nodescope_range_pop();
    }
  };
  const char* names[] = {"ranges_direct", "ranges_g0", "ranges_g1", "ranges_g2"};
  simFunction_t f[4];
  CHECK(simhipModuleLoad(names, 4, f));
  simStream_t s = Stream();
  simGraphExec_t e = Instantiate(Chain({f[1], f[2], f[3]}));
  if (roctx) push("roctx_outer");
  push(roctx ? "roctx_direct" : "direct");
  for (int i = 0; i < 5; ++i) CHECK(simhipLaunchKernel(f[0], s));
  pop();
  push(roctx ? "roctx_replays" : "replays");
  Replay(e, s, 10);
  pop();
  if (roctx) {
    pop();
    const uint64_t id = simroctxRangeStartA("roctx_started");
    for (int i = 0; i < 2; ++i) CHECK(simhipLaunchKernel(f[0], s));
    simroctxRangeStop(id);
    simroctxMarkA("roctx_mark");
  }
  CHECK(simhipStreamSynchronize(s));
  std::printf("expect nodes=3 replays=10\n");
  return 0;
}
