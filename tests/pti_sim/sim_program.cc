// A test program on the simulated SYCL runtime (sim_sycl.h), with the scenarios of issue 13. It
// pushes framework ranges as PTI external correlation ids itself, as PyTorch's profiler does
// (kind CUSTOM_1), and prints its ground truth: one `range` line per pushed range, `expect` lines
// for graphs, and the simulator's `truth` counters at the end. A tool is loaded as PTI's are, by
// preloading it (LD_PRELOAD) into this program.
//   sim_program <scenario> [replays]
//   scenarios: ranges (a range over two queues of device 0 and one of device 1, work outside it),
//              nested, kinds (several external kinds at once, two threads), copies, graph (a
//              6-node graph finalized while traced, submitted `replays` times, default 100),
//              graph_visit (finalized before the kernel view is on: commands made at the first
//              submission), graph_threads (two threads, two graphs), all
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "backends/pti/sdk/pti_sdk.h"
#include "tests/pti_sim/sim_sycl.h"

namespace {

using simsycl::Queue;

void Push(pti_view_external_kind kind, uint64_t id) {
  if (ptiViewPushExternalCorrelationId(kind, id) != PTI_SUCCESS) std::abort();
  std::printf("range push kind=%d id=%llu\n", int(kind), static_cast<unsigned long long>(id));
}
void Pop(pti_view_external_kind kind) {
  uint64_t id = 0;
  if (ptiViewPopExternalCorrelationId(kind, &id) != PTI_SUCCESS) std::abort();
}

void Ranges() {
  Queue* a = simsycl::CreateQueue(0);
  Queue* b = simsycl::CreateQueue(0);
  Queue* c = simsycl::CreateQueue(1);
  simsycl::Launch(a, "outside_before", 3000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 1);
  for (int i = 0; i < 3; ++i) {
    simsycl::Launch(a, "gemm", 5000, __LINE__);
    simsycl::Launch(b, "softmax", 4000, __LINE__);
    simsycl::Launch(c, "allreduce", 6000, __LINE__);
  }
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Launch(c, "outside_after", 3000, __LINE__);
  for (Queue* q : {a, b, c}) simsycl::Wait(q);
  std::printf("expect ranges: range 1 covers 3 kernels on each of 3 queues (2 devices)\n");
}

void Nested() {
  Queue* q = simsycl::CreateQueue(0);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 10);
  simsycl::Launch(q, "outer_first", 4000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 11);
  simsycl::Launch(q, "inner", 4000, __LINE__);
  simsycl::Launch(q, "inner", 4000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Launch(q, "outer_last", 4000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Wait(q);
}

void KindsOnThread(int device, uint64_t base) {
  Queue* q = simsycl::CreateQueue(device);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0, base + 1);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, base + 2);
  simsycl::Launch(q, "two_kinds", 3000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3, base + 3);
  simsycl::Launch(q, "three_kinds", 3000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Launch(q, "one_kind", 3000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0);
  simsycl::Wait(q);
}

void Kinds() {
  std::thread other(KindsOnThread, 1, 200);
  KindsOnThread(0, 100);
  other.join();
}

void Copies() {
  Queue* q0 = simsycl::CreateQueue(0);
  Queue* q1 = simsycl::CreateQueue(1);
  simsycl::Memcpy(q0, simsycl::Copy::kHostToDevice, 1 << 20);
  simsycl::Fill(q0, 1 << 16, 0);
  simsycl::Launch(q0, "consume", 5000, __LINE__);
  simsycl::Memcpy(q0, simsycl::Copy::kDeviceToDevice, 1 << 18);
  simsycl::Memcpy(q0, simsycl::Copy::kDeviceToDevice, 1 << 18, 1);  // to device 1: P2P
  simsycl::Memcpy(q1, simsycl::Copy::kDeviceToHost, 1 << 20);
  simsycl::Fill(q1, 4096, 7);
  simsycl::Wait(q0);
  simsycl::Wait(q1);
}

// A 6-node graph: nodes 1-3 come from one line (one SYCL trace event), 0, 4 and 5 from others.
simsycl::Exec* SixNodeGraph(int device, const char* prefix) {
  simsycl::Graph* graph = simsycl::CreateGraph(device);
  std::string p = prefix;
  simsycl::AddKernel(graph, (p + "_root").c_str(), 2000, __LINE__);
  for (int i = 0; i < 3; ++i) simsycl::AddKernel(graph, (p + "_branch").c_str(), 3000, __LINE__);
  simsycl::AddKernel(graph, (p + "_join").c_str(), 2000, __LINE__);
  simsycl::AddKernel(graph, (p + "_tail").c_str(), 1000, __LINE__);
  return simsycl::Finalize(graph);
}

void Replay(Queue* q, simsycl::Exec* exec, int replays, uint64_t range_base) {
  for (int r = 0; r < replays; ++r) {
    // A framework range around each replay: reaches the submission's API record only.
    ptiViewPushExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, range_base + r);
    simsycl::Submit(q, exec);
    ptiViewPopExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, nullptr);
    if (r % 10 == 9) simsycl::Wait(q);
  }
  simsycl::Wait(q);
}

void Graph(int replays) {
  Queue* q = simsycl::CreateQueue(0);
  simsycl::Exec* exec = SixNodeGraph(0, "g");
  Replay(q, exec, replays, 1000);
  std::printf("expect graph nodes=6 replays=%d trace_events=4\n", replays);
}

void GraphVisit(int replays) {
  Queue* q = simsycl::CreateQueue(0);
  // As a framework that starts profiling after building its graphs (the tool enabled the view).
  ptiViewDisable(PTI_VIEW_DEVICE_GPU_KERNEL);
  simsycl::Exec* exec = SixNodeGraph(0, "late");
  ptiViewEnable(PTI_VIEW_DEVICE_GPU_KERNEL);
  Replay(q, exec, replays, 5000);
  std::printf("expect graph nodes=6 replays=%d visited\n", replays);
}

void GraphThreads(int replays) {
  auto run = [replays](int device, const char* prefix, uint64_t base) {
    Queue* q = simsycl::CreateQueue(device);
    simsycl::Exec* exec = SixNodeGraph(device, prefix);
    Replay(q, exec, replays, base);
    std::printf("expect graph nodes=6 replays=%d prefix=%s\n", replays, prefix);
  };
  std::thread other(run, 1, "t1", 20000);
  run(0, "t0", 10000);
  other.join();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <scenario> [replays]\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  const int replays = argc > 2 ? std::atoi(argv[2]) : 100;
  std::printf("sim_program %s: PTI %s, %d devices\n", scenario.c_str(), ptiVersionString(),
              simsycl::DeviceCount());
  const bool all = scenario == "all";
  bool known = false;
  if (all || scenario == "ranges") known = true, Ranges();
  if (all || scenario == "nested") known = true, Nested();
  if (all || scenario == "kinds") known = true, Kinds();
  if (all || scenario == "copies") known = true, Copies();
  if (all || scenario == "graph") known = true, Graph(replays);
  if (all || scenario == "graph_threads") known = true, GraphThreads(replays);
  if (all || scenario == "graph_visit") known = true, GraphVisit(replays);
  if (!known) {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  simsycl::Truth t = simsycl::GetTruth();
  std::printf("truth kernels=%llu copies=%llu fills=%llu\n",
              static_cast<unsigned long long>(t.kernels_issued),
              static_cast<unsigned long long>(t.copies_issued),
              static_cast<unsigned long long>(t.fills_issued));
  std::fflush(stdout);
  return 0;
}
