// User ranges on the simulated SYCL runtime, through nodescope's C API: a range around work on two
// queues of device 0 and one of device 1 with a nested range inside, a range inside a framework's
// own external ids of two other kinds (several kinds at once), work outside any range, copies and
// a fill. Under `nodescope run --backend xpu` the backend pushes each range as a CUSTOM_1 external
// correlation id, PTI links the API calls made inside it, and the trace's device spans follow
// (check_backend.py). Prints a `truth` line per operation: its unique name, device, SYCL queue id
// and the nodescope ranges around it (outermost first). `ranges_program exit` leaves without
// waiting on its last queue (std::exit with work pending): the trace must still be complete.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "backends/xpu/sdk/pti_sdk.h"
#include "nodescope/nodescope.h"
#include "tests/pti_sim/sim_sycl.h"

namespace {

using simsycl::Queue;
std::vector<std::string> g_open;  // nodescope ranges open on this thread, outermost first
int g_op = 0;

void RangePush(const char* name) {
  nodescope_range_push(name);
  g_open.push_back(name);
}
void RangePop() {
  nodescope_range_pop();
  g_open.pop_back();
}

std::string Truth(const char* what, Queue* q) {
  std::string name = std::string(what) + "_" + std::to_string(++g_op);
  std::string ranges;
  for (const std::string& r : g_open) ranges += (ranges.empty() ? "" : ",") + r;
  std::printf("truth op=%s device=%d queue=%llu ranges=%s\n", name.c_str(), simsycl::QueueDevice(q),
              static_cast<unsigned long long>(simsycl::QueueSyclId(q)), ranges.c_str());
  return name;
}

std::vector<std::string> g_names;  // kernel names must outlive their records
void Kernel(Queue* q, const char* what) {
  g_names.push_back(Truth(what, q));
  simsycl::Launch(q, g_names.back().c_str(), 3000, 1);
}

}  // namespace

// Issue 29: a range open while a graph is finalized ("built"); the graph replayed 5 times from
// another thread (its submissions cannot be tied to a call: withheld), then 5 times on this
// thread inside "replays" (proven). PTI gives every replay's kernels the append call's
// correlation id, made inside "built": no device span of "built" may cover the withheld replays.
int GraphRange() {
  RangePush("built");
  simsycl::Graph* g = simsycl::CreateGraph(0);
  simsycl::AddKernel(g, "gr_a", 3000, 1);
  simsycl::AddKernel(g, "gr_b", 3500, 2);
  simsycl::AddKernel(g, "gr_c", 4000, 3);
  simsycl::Exec* exec = simsycl::Finalize(g);
  RangePop();
  std::thread([exec] {
    Queue* q = simsycl::CreateQueue(0);
    for (int i = 0; i < 5; ++i) simsycl::Submit(q, exec);
    simsycl::Wait(q);
  }).join();
  Queue* q = simsycl::CreateQueue(0);
  RangePush("replays");
  for (int i = 0; i < 5; ++i) simsycl::Submit(q, exec);
  simsycl::Wait(q);
  RangePop();
  std::printf("expect graph nodes=3 replays=10 of which on the finalizing thread=5\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "graph_range") return GraphRange();
  const bool exit_mid_run = argc > 1 && std::string(argv[1]) == "exit";
  g_names.reserve(64);
  Queue* a = simsycl::CreateQueue(0);
  Queue* b = simsycl::CreateQueue(0);
  Queue* c = simsycl::CreateQueue(1);
  Kernel(a, "outside");
  RangePush("step");
  for (int i = 0; i < 2; ++i) {
    Kernel(a, "gemm");
    Kernel(b, "softmax");
    Kernel(c, "allreduce");
  }
  RangePush("inner");
  Kernel(a, "inner");
  (void)Truth("fill", a);
  simsycl::Fill(a, 4096, 0);
  RangePop();
  (void)Truth("copy", a);
  simsycl::Memcpy(a, simsycl::Copy::kHostToDevice, 1 << 16);
  Kernel(a, "gemm_last");
  RangePop();
  // A framework's own ids of two kinds around a nodescope range.
  if (ptiViewPushExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0, 7000) != PTI_SUCCESS ||
      ptiViewPushExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3, 7001) != PTI_SUCCESS) {
    return 2;
  }
  RangePush("framed");
  Kernel(c, "framed");
  RangePop();
  uint64_t id = 0;
  (void)ptiViewPopExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_3, &id);
  (void)ptiViewPopExternalCorrelationId(PTI_VIEW_EXTERNAL_KIND_CUSTOM_0, &id);
  Kernel(c, "outside");
  simsycl::Wait(a);
  simsycl::Wait(b);
  if (exit_mid_run) {
    Kernel(b, "pending");  // never waited on: never reported
    std::printf("exit mid-run\n");
    std::fflush(stdout);
    std::exit(0);
  }
  simsycl::Wait(c);
  return 0;
}
