// GPU reproduction program for user ranges through NVTX, run under `nodescope run`:
// NVTX ranges around plain launches and around graph replays, a graph captured under nested
// ranges and replayed 50 times, a second exec of the same graph, Start/End ranges ending on
// another thread, a domain with a registered string, a worker thread that ends inside its range,
// an unbalanced pop and a range left open.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

template <int N>
__global__ void k(float* x) {
  x[threadIdx.x] = x[threadIdx.x] * 0.5f + static_cast<float>(N);
}

int main() {
  float* d;
  CHECK(cudaMalloc(&d, 1024 * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  nvtxRangePushA("setup");
  for (int i = 0; i < 3; ++i) k<100><<<1, 256, 0, s>>>(d);
  nvtxRangePop();
  CHECK(cudaStreamSynchronize(s));

  // Capture: model { layer.0 { k0 k1 } layer.1 { k2 } }
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  nvtxRangePushA("model");
  nvtxRangePushA("layer.0");
  k<0><<<1, 256, 0, s>>>(d);
  k<1><<<1, 256, 0, s>>>(d);
  nvtxRangePop();
  nvtxRangePushA("layer.1");
  k<2><<<1, 256, 0, s>>>(d);
  nvtxRangePop();
  nvtxRangePop();
  CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec, exec2;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphInstantiate(&exec2, graph, 0));

  nvtxRangePushA("replay");
  for (int r = 0; r < 50; ++r) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  nvtxRangePop();

  nvtxRangePushA("replay2");
  for (int r = 0; r < 10; ++r) CHECK(cudaGraphLaunch(exec2, s));
  CHECK(cudaStreamSynchronize(s));
  nvtxRangePop();

  // Exec update: graph A captured under "old", graph B under "new"; the new graph's ranges win
  // for replays after the update.
  cudaGraph_t ga, gb;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  nvtxRangePushA("old");
  k<10><<<1, 256, 0, s>>>(d);
  nvtxRangePop();
  CHECK(cudaStreamEndCapture(s, &ga));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  nvtxRangePushA("new");
  k<11><<<1, 256, 0, s>>>(d);
  nvtxRangePop();
  CHECK(cudaStreamEndCapture(s, &gb));
  cudaGraphExec_t eu;
  CHECK(cudaGraphInstantiate(&eu, ga, 0));
  for (int r = 0; r < 7; ++r) CHECK(cudaGraphLaunch(eu, s));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(eu, gb, &info));
  for (int r = 0; r < 9; ++r) CHECK(cudaGraphLaunch(eu, s));
  CHECK(cudaStreamSynchronize(s));

  // A Start/End range ended by another thread, and a domain range with a registered string.
  nvtxRangeId_t io = nvtxRangeStartA("io");
  std::thread([io] { nvtxRangeEnd(io); }).join();
  nvtxDomainHandle_t domain = nvtxDomainCreateA("mydomain");
  nvtxStringHandle_t name = nvtxDomainRegisterStringA(domain, "registered");
  nvtxEventAttributes_t attr = {};
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = name;
  nvtxDomainRangePushEx(domain, &attr);
  k<101><<<1, 256, 0, s>>>(d);
  nvtxDomainRangePop(domain);

  // A worker that ends inside its range (never popped: closed at its exit).
  std::thread([&] {
    nvtxRangePushA("worker exits inside");
    k<102><<<1, 256, 0, s>>>(d);
    CHECK(cudaStreamSynchronize(s));
  }).join();

  nvtxRangePop();               // unbalanced: nothing open
  nvtxRangePushA("left open");  // never popped
  CHECK(cudaStreamSynchronize(s));
  std::printf("ranges_cases: done\n");
  return 0;
}
