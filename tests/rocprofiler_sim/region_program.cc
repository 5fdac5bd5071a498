// In-process sessions on the simulated ROCm runtime (nodescope_start_with_options("backend=rocm"),
// no `nodescope run`): what a Python profile() does over the AMD backend. check_region.py runs each
// case and checks the traces it writes. Every kernel is named for where it runs: in_* inside a
// session, out_* outside every session.
//
// `region_program early <dir>`: a session started before the runtime's first call (the backend
//   registers its tool with rocprofiler_force_configure): a chain in_g0..in_g3 replayed 3 times and
//   in_direct launched, a capture written mid-region (<dir>/capture.json), stopped and written
//   (<dir>/first.json); then out_after launched and the chain replayed twice outside; then a second
//   session (the dormant context started again): the chain replayed 2 more times, in_second
//   launched, written (<dir>/second.json). Prints "expect <file> graph_kernels=N" per file.
// `region_program late <dir>`: the runtime used first (out_before launched), then a session:
//   without ROCP_TOOL_LIBRARIES it must fail saying how to fix it (prints "refused: <error>");
//   with it (the SDK initialized the tool dormant at the first call) the session traces: the
//   chain in_g0..in_g3 instantiated before it and replayed 3 times inside (<dir>/late.json).
// `region_program exit_open <dir>`: as an interpreter that finishes its sessions in an exit hook
//   running after the SDK finalized: a session left open at exit (the chain replayed 3 times) is
//   stopped by the tool's finalize; the hook then stops and writes it (<dir>/exit.json). The
//   session captures every 20 ms (<dir>/exit.capture-<n>.json), so its thread still runs then.
// `region_program metrics <dir>`: a session serving /metrics (NODESCOPE_METRICS from the
//   environment; NODESCOPE_SAMPLE too when set): 2 threads replay their 4-node chain (one
//   captured under the range "serve/decode") once a ms each for REGION_METRICS_MS (default 5000);
//   stopped and written (<dir>/metrics.json, "written" printed); then it keeps serving the final
//   figures REGION_METRICS_LINGER_MS (default 3000) before nodescope_destroy(). With the port
//   taken, nodescope_start fails: prints "refused: <error>" and exits 3, nothing traced.
// `region_program stream <dir>`: a session with stream=20 and output=<dir>/stream.json: the chain
//   replayed 30 times, 5 at a time with pauses; parts <dir>/stream.part-<n>.json written by the
//   session's thread, the last part at <dir>/stream.json (120 graph kernels in all).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "nodescope/nodescope.h"
#include "sim_hip.h"
#include "sim_program_helpers.h"

namespace {

std::string g_dir;

nodescope_session* StartOrDie(const char* options) {
  nodescope_session* s = nodescope_start_with_options(options);
  if (s == nullptr) {
    std::fprintf(stderr, "nodescope_start_with_options(\"%s\") failed: %s\n", options,
                 nodescope_last_error());
    std::exit(1);
  }
  return s;
}

void StopAndWrite(nodescope_session* s, const char* file, int graph_kernels) {
  const std::string path = g_dir + "/" + file;
  if (nodescope_stop(s) != 0 || nodescope_write(s, path.c_str()) != 0) {
    std::fprintf(stderr, "writing %s failed: %s\n", path.c_str(), nodescope_last_error());
    std::exit(1);
  }
  nodescope_destroy(s);
  std::printf("expect %s graph_kernels=%d\n", file, graph_kernels);
}

struct Kernels {
  simFunction_t chain[4];
  simFunction_t direct, after, second, before;
};

Kernels Load() {
  const char* names[] = {"in_g0",     "in_g1",     "in_g2",     "in_g3",
                         "in_direct", "out_after", "in_second", "out_before"};
  simFunction_t f[8];
  CHECK(simhipModuleLoad(names, 8, f));
  return Kernels{{f[0], f[1], f[2], f[3]}, f[4], f[5], f[6], f[7]};
}

int Early() {
  nodescope_session* s = StartOrDie("backend=rocm");  // before any runtime call
  Kernels k = Load();
  simStream_t stream = Stream();
  simGraphExec_t exec = Instantiate(Chain({k.chain[0], k.chain[1], k.chain[2], k.chain[3]}));
  Replay(exec, stream, 3);
  CHECK(simhipLaunchKernel(k.direct, stream));
  CHECK(simhipDeviceSynchronize());
  const std::string capture = g_dir + "/capture.json";
  if (nodescope_capture(s, capture.c_str()) != 0) {
    std::fprintf(stderr, "capture failed: %s\n", nodescope_last_error());
    return 1;
  }
  StopAndWrite(s, "first.json", 12);
  CHECK(simhipLaunchKernel(k.after, stream));
  Replay(exec, stream, 2);
  CHECK(simhipDeviceSynchronize());
  s = StartOrDie("backend=rocm");
  Replay(exec, stream, 2);
  CHECK(simhipLaunchKernel(k.second, stream));
  CHECK(simhipDeviceSynchronize());
  StopAndWrite(s, "second.json", 8);
  return 0;
}

int Late() {
  Kernels k = Load();
  simStream_t stream = Stream();
  CHECK(simhipLaunchKernel(k.before, stream));
  simGraphExec_t exec = Instantiate(Chain({k.chain[0], k.chain[1], k.chain[2], k.chain[3]}));
  CHECK(simhipDeviceSynchronize());
  nodescope_session* s = nodescope_start_with_options("backend=rocm");
  if (s == nullptr) {
    std::printf("refused: %s\n", nodescope_last_error());
    return 0;
  }
  Replay(exec, stream, 3);
  CHECK(simhipDeviceSynchronize());
  StopAndWrite(s, "late.json", 12);
  return 0;
}

// Streaming from an in-process session: parts of 20 records written by the session's thread.
int Streaming() {
  const std::string options = "backend=rocm;stream=20;output=" + g_dir + "/stream.json";
  nodescope_session* s = StartOrDie(options.c_str());
  Kernels k = Load();
  simStream_t stream = ::Stream();
  simGraphExec_t exec = Instantiate(Chain({k.chain[0], k.chain[1], k.chain[2], k.chain[3]}));
  for (int i = 0; i < 6; ++i) {
    Replay(exec, stream, 5);
    CHECK(simhipDeviceSynchronize());
    usleep(300'000);  // the session's thread looks every 500 ms
  }
  StopAndWrite(s, "stream.json", 120);
  return 0;
}

nodescope_session* g_open = nullptr;

// An interpreter's exit hook, registered before the runtime's first call: it runs after the
// SDK's own (atexit runs hooks last registered first).
void FinishOpenSession() {
  if (g_open != nullptr) StopAndWrite(g_open, "exit.json", 12);
  std::fflush(stdout);
}

int ExitOpen() {
  std::atexit(&FinishOpenSession);
  // Periodic captures too: the session's thread still runs when the SDK finalizes.
  const std::string options = "backend=rocm;capture_every=20ms;output=" + g_dir + "/exit.json";
  g_open = StartOrDie(options.c_str());
  Kernels k = Load();
  simStream_t stream = Stream();
  Replay(Instantiate(Chain({k.chain[0], k.chain[1], k.chain[2], k.chain[3]})), stream, 3);
  CHECK(simhipDeviceSynchronize());
  usleep(100'000);  // a few captures
  std::exit(0);     // the session still open
}

int EnvMs(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

int Metrics() {
  nodescope_session* s = nodescope_start_with_options("backend=rocm");
  if (s == nullptr) {
    std::printf("refused: %s\n", nodescope_last_error());
    return 3;
  }
  const char* names[] = {"m0_k0", "m0_k1", "m0_k2", "m0_k3", "m1_k0", "m1_k1", "m1_k2", "m1_k3"};
  simFunction_t f[8];
  CHECK(simhipModuleLoad(names, 8, f));
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    simStream_t stream = Stream();
    if (t == 0) nodescope_range_push("serve"), nodescope_range_push("decode");
    simGraphExec_t e = Instantiate(Chain({f[4 * t], f[4 * t + 1], f[4 * t + 2], f[4 * t + 3]}));
    if (t == 0) nodescope_range_pop(), nodescope_range_pop();
    threads.emplace_back([e, stream, &stop] {
      while (!stop.load()) {
        CHECK(simhipGraphLaunch(e, stream));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      CHECK(simhipStreamSynchronize(stream));
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(EnvMs("REGION_METRICS_MS", 5000)));
  stop.store(true);
  for (auto& th : threads) th.join();
  const std::string path = g_dir + "/metrics.json";
  if (nodescope_stop(s) != 0 || nodescope_write(s, path.c_str()) != 0) {
    std::fprintf(stderr, "writing %s failed: %s\n", path.c_str(), nodescope_last_error());
    return 1;
  }
  std::printf("written\n");
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(EnvMs("REGION_METRICS_LINGER_MS", 3000)));
  nodescope_destroy(s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: region_program early|late|exit_open|stream|metrics DIR\n");
    return 2;
  }
  g_dir = argv[2];
  const std::string c = argv[1];
  if (c == "early") return Early();
  if (c == "late") return Late();
  if (c == "exit_open") return ExitOpen();
  if (c == "stream") return Streaming();
  if (c == "metrics") return Metrics();
  std::fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
