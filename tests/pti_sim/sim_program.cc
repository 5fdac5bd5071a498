// A test program on the simulated SYCL runtime (sim_sycl.h), with the scenarios of issue 13. It
// pushes framework ranges as PTI external correlation ids itself, as PyTorch's profiler does
// (kind CUSTOM_1), and prints its ground truth: a `truth kernel` line per launch and a `truth
// submit` line per graph submission (device, SYCL queue id, enclosing ranges as kind:id, outermost
// first), `expect` lines, and the simulator's counters at the end. A tool is loaded as PTI's are,
// by preloading it (LD_PRELOAD) into this program.
//   sim_program <scenario> [replays]
//   scenarios: ranges (a range over two queues of device 0 and one of device 1, work outside it),
//              nested, kinds (several external kinds at once, two threads), copies, graph (a
//              6-node graph finalized while traced, submitted `replays` times, default 100),
//              graph_visit (finalized before the kernel view is on: commands made at the first
//              submission), graph_threads (two threads, two graphs), graph_handoff (a graph
//              finalized on one thread, submitted from another), all; second_tool (another PTI
//              user sets its callbacks mid-run); exit_midrun | sigint_midrun
//              (two threads replaying graphs without end; after 50 ms the main thread calls
//              exit(0) or raises SIGINT and waits for it to end the process);
//              graph_loop_<ms> (a service: two threads replaying their own graph on their own
//              device for <ms> milliseconds, waiting every 10 replays, then resting 5 ms)
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/xpu/sdk/pti_sdk.h"
#include "tests/pti_sim/sim_sycl.h"

namespace {

using simsycl::Queue;

// The ranges pushed on this thread (kind, id), innermost last: the ground truth each `truth`
// line prints.
thread_local std::vector<std::pair<int, uint64_t>> t_ranges;

void Push(pti_view_external_kind kind, uint64_t id) {
  if (ptiViewPushExternalCorrelationId(kind, id) != PTI_SUCCESS) std::abort();
  t_ranges.push_back({int(kind), id});
}
void Pop(pti_view_external_kind kind) {
  uint64_t id = 0;
  if (ptiViewPopExternalCorrelationId(kind, &id) != PTI_SUCCESS) std::abort();
  for (auto it = t_ranges.rbegin(); it != t_ranges.rend(); ++it) {
    if (it->first == int(kind)) {
      t_ranges.erase(std::next(it).base());
      break;
    }
  }
}
std::string RangesNow() {
  std::string text;
  for (const auto& [kind, id] : t_ranges) {
    text += (text.empty() ? "" : ",") + std::to_string(kind) + ":" + std::to_string(id);
  }
  return "[" + text + "]";
}

// One kernel launch with its ground truth: device, SYCL queue id and enclosing ranges.
void Kernel(Queue* q, const char* name, uint64_t duration_ns, uint32_t line) {
  simsycl::Launch(q, name, duration_ns, line);
  std::printf("truth kernel name=%s device=%d queue=%llu ranges=%s\n", name,
              simsycl::QueueDevice(q), static_cast<unsigned long long>(simsycl::QueueSyclId(q)),
              RangesNow().c_str());
}

void Ranges() {
  Queue* a = simsycl::CreateQueue(0);
  Queue* b = simsycl::CreateQueue(0);
  Queue* c = simsycl::CreateQueue(1);
  Kernel(a, "outside_before", 3000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 1);
  for (int i = 0; i < 3; ++i) {
    Kernel(a, "gemm", 5000, __LINE__);
    Kernel(b, "softmax", 4000, __LINE__);
    Kernel(c, "allreduce", 6000, __LINE__);
  }
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  Kernel(c, "outside_after", 3000, __LINE__);
  for (Queue* q : {a, b, c}) simsycl::Wait(q);
  std::printf("expect ranges: range 1 covers 3 kernels on each of 3 queues (2 devices)\n");
}

void Nested() {
  Queue* q = simsycl::CreateQueue(0);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 10);
  Kernel(q, "outer_first", 4000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 11);
  Kernel(q, "inner", 4000, __LINE__);
  Kernel(q, "inner", 4000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  Kernel(q, "outer_last", 4000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Wait(q);
}

void KindsOnThread(int device, uint64_t base) {
  Queue* q = simsycl::CreateQueue(device);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0, base + 1);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, base + 2);
  Kernel(q, "two_kinds", 3000, __LINE__);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3, base + 3);
  Kernel(q, "three_kinds", 3000, __LINE__);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  Kernel(q, "one_kind", 3000, __LINE__);
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
  auto truth = [](const char* what, Queue* q, uint64_t bytes) {
    std::printf("truth %s bytes=%llu device=%d queue=%llu ranges=%s\n", what,
                static_cast<unsigned long long>(bytes), simsycl::QueueDevice(q),
                static_cast<unsigned long long>(simsycl::QueueSyclId(q)), RangesNow().c_str());
  };
  simsycl::Memcpy(q0, simsycl::Copy::kHostToDevice, 1 << 20);
  truth("copy_h2d", q0, 1 << 20);
  Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, 50);
  simsycl::Fill(q0, 1 << 16, 0);
  truth("fill", q0, 1 << 16);
  Kernel(q0, "consume", 5000, __LINE__);
  simsycl::Memcpy(q0, simsycl::Copy::kDeviceToDevice, 1 << 18);
  truth("copy_d2d", q0, 1 << 18);
  simsycl::Memcpy(q0, simsycl::Copy::kDeviceToDevice, 1 << 18, 1);  // to device 1: P2P
  truth("copy_p2p_to_device_1", q0, 1 << 18);
  Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
  simsycl::Memcpy(q1, simsycl::Copy::kDeviceToHost, 1 << 20);
  truth("copy_d2h", q1, 1 << 20);
  simsycl::Fill(q1, 4096, 7);
  truth("fill", q1, 4096);
  simsycl::Wait(q0);
  simsycl::Wait(q1);
}

// A 6-node graph: nodes 1-3 run one kernel from one line (one SYCL trace event), 0, 4 and 5
// others. Ground truth of a node: its kernel name and its duration (the branches take 3000, 3500
// and 4000 ns), unique per node of a graph; the prefix names the graph.
simsycl::Exec* SixNodeGraph(int device, const char* prefix) {
  simsycl::Graph* graph = simsycl::CreateGraph(device);
  std::string p = prefix;
  simsycl::AddKernel(graph, (p + "_root").c_str(), 2000, __LINE__);
  for (int i = 0; i < 3; ++i) {
    simsycl::AddKernel(graph, (p + "_branch").c_str(), 3000 + 500 * uint64_t(i), __LINE__);
  }
  simsycl::AddKernel(graph, (p + "_join").c_str(), 2000, __LINE__);
  simsycl::AddKernel(graph, (p + "_tail").c_str(), 1000, __LINE__);
  return simsycl::Finalize(graph);
}

void Replay(Queue* q, simsycl::Exec* exec, int replays, uint64_t range_base) {
  for (int r = 0; r < replays; ++r) {
    // A framework range around each replay: reaches the submission's API record only.
    Push(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, range_base + uint64_t(r));
    simsycl::Submit(q, exec);
    std::printf("truth submit device=%d queue=%llu replay=%d ranges=%s\n", simsycl::QueueDevice(q),
                static_cast<unsigned long long>(simsycl::QueueSyclId(q)), r, RangesNow().c_str());
    Pop(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1);
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
  std::atomic<int> ready{0};
  auto run = [replays, &ready](int device, const char* prefix, uint64_t base) {
    Queue* q = simsycl::CreateQueue(device);
    simsycl::Exec* exec = SixNodeGraph(device, prefix);
    // Both threads replay at once (else one may be done before the other starts).
    ready.fetch_add(1);
    while (ready.load() < 2) std::this_thread::yield();
    Replay(q, exec, replays, base);
    std::printf("expect graph nodes=6 replays=%d prefix=%s\n", replays, prefix);
  };
  std::thread other(run, 1, "t1", 20000);
  run(0, "t0", 10000);
  other.join();
}

// Recorded (finalized) on this thread, submitted from another: nothing in PTI's records says
// which call submitted it (the recording thread made none).
void GraphHandoff(int replays) {
  simsycl::Exec* exec = SixNodeGraph(0, "handoff");
  std::thread([exec, replays] {
    Queue* q = simsycl::CreateQueue(0);
    Replay(q, exec, replays, 30000);
  }).join();
  std::printf("expect graph nodes=6 replays=%d handoff\n", replays);
}

// A second PTI user (PyTorch's profiler, say) starting mid-run: it sets its own buffer callbacks
// (PTI keeps one set per process), so buffers handed out before come back to it. Unlike
// PyTorch's (which looks each buffer up in its own map unchecked), this one counts such buffers
// and leaves them alone.
std::mutex g_second_mu;
std::set<unsigned char*> g_second_buffers;
int g_second_foreign = 0;
void SecondRequested(unsigned char** buffer, size_t* size) {
  *size = 1 << 16;
  *buffer = static_cast<unsigned char*>(std::malloc(*size));
  std::lock_guard<std::mutex> lock(g_second_mu);
  g_second_buffers.insert(*buffer);
}
void SecondCompleted(unsigned char* buffer, size_t, size_t) {
  std::lock_guard<std::mutex> lock(g_second_mu);
  if (g_second_buffers.erase(buffer) != 0) {
    std::free(buffer);
  } else if (buffer != nullptr) {
    ++g_second_foreign;
  }
}
void SecondTool() {
  Queue* q = simsycl::CreateQueue(0);
  // Enough work to fill a few buffers of a megabyte before the other tool starts.
  for (int i = 0; i < 10000; ++i) {
    simsycl::Launch(q, "before_takeover", 1000, __LINE__);
    if (i % 100 == 99) simsycl::Wait(q);
  }
  simsycl::Wait(q);
  if (ptiViewSetCallbacks(SecondRequested, SecondCompleted) != PTI_SUCCESS) std::abort();
  for (int i = 0; i < 100; ++i) simsycl::Launch(q, "after_takeover", 1000, __LINE__);
  simsycl::Wait(q);
  ptiFlushAllViews();
  std::lock_guard<std::mutex> lock(g_second_mu);
  std::printf("second tool: received %d buffers it never gave out\n", g_second_foreign);
}

// Two threads replaying graphs without end; the process ends mid-run.
[[noreturn]] void MidRun(bool sigint) {
  for (int t = 0; t < 2; ++t) {
    std::thread([t] {
      Queue* q = simsycl::CreateQueue(t);
      simsycl::Exec* exec = SixNodeGraph(t, t == 0 ? "mid0" : "mid1");
      for (int r = 0;; ++r) {
        simsycl::Submit(q, exec);
        if (r % 10 == 9) simsycl::Wait(q);
      }
    }).detach();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (sigint) {
    std::raise(SIGINT);  // its default action (after the tracer's handler) ends the process
    std::this_thread::sleep_for(std::chrono::seconds(30));
    std::fprintf(stderr, "still running 30 s after SIGINT\n");
    std::_Exit(3);
  }
  std::exit(0);
}

// A service for captures while tracing (issue 14): two threads replaying their own graph for
// `ms` milliseconds, about 2 replays per millisecond each.
void GraphLoop(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  auto run = [until](int device, const char* prefix) {
    Queue* q = simsycl::CreateQueue(device);
    simsycl::Exec* exec = SixNodeGraph(device, prefix);
    int replays = 0;
    while (std::chrono::steady_clock::now() < until) {
      simsycl::Submit(q, exec);
      if (++replays % 10 == 0) {
        simsycl::Wait(q);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    simsycl::Wait(q);
    return replays;
  };
  int other_replays = 0;
  std::thread other([&] { other_replays = run(1, "lp1"); });
  const int replays = run(0, "lp0");
  other.join();
  std::printf("graph_loop: %d + %d replays\n", replays, other_replays);
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
  if (scenario == "graph_handoff") known = true, GraphHandoff(replays);
  if (scenario == "second_tool") known = true, SecondTool();
  if (scenario.rfind("graph_loop_", 0) == 0) known = true, GraphLoop(std::atoi(argv[1] + 11));
  if (scenario == "exit_midrun" || scenario == "sigint_midrun") MidRun(scenario[0] == 's');
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
