// Example workload: a CUDA graph of 32 distinct kernels replayed 200 times, a graph of a memset
// and a memcpy node, and plain launches, copies and fills outside any graph.
//
//   graph_replay [--replays N] [--seconds S] [--ranges] [--exit] [--hang] [--crash]
//     --seconds replay graph 1 for S seconds instead (a service: prints its pid first, then
//              synchronizes every 1000 replays; for ring mode and captures, issue 14)
//     --ranges an NVTX range around each replay (for measuring the cost of range capture)
//     --exit   call exit(0) right after queueing the replays (no synchronize)
//     --hang   after the work, wait until a signal arrives (for interruption tests)
//     --crash  after the work, dereference a null pointer (for crash tests)
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

constexpr int kNodes = 32;
constexpr int kElems = 1 << 12;

// One distinct kernel per node: node_kernel<0> ... node_kernel<31>.
template <int N>
__global__ void node_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * 0.5f + static_cast<float>(N);
}

__global__ void plain_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

template <int... Ns>
void LaunchAll(std::integer_sequence<int, Ns...>, float* data, cudaStream_t s) {
  ((node_kernel<Ns><<<kElems / 128, 128, 0, s>>>(data, kElems)), ...);
}

// bench/launch_profile.cc, when preloaded: profile the launching thread during the launch loop.
extern "C" void launch_profile_start() __attribute__((weak));
extern "C" void launch_profile_pause() __attribute__((weak));

int main(int argc, char** argv) {
  int replays = 200;
  int seconds = 0;
  bool exit_early = false, hang = false, crash = false, ranges = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--replays") && i + 1 < argc) {
      replays = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--seconds") && i + 1 < argc) {
      seconds = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--ranges")) {
      ranges = true;
    } else if (!std::strcmp(argv[i], "--exit")) {
      exit_early = true;
    } else if (!std::strcmp(argv[i], "--hang")) {
      hang = true;
    } else if (!std::strcmp(argv[i], "--crash")) {
      crash = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--replays N] [--seconds S] [--ranges] [--exit] [--hang] [--crash]\n",
                   argv[0]);
      return 2;
    }
  }

  float *data = nullptr, *copy = nullptr, *host = nullptr;
  CHECK(cudaMalloc(&data, kElems * sizeof(float)));
  CHECK(cudaMalloc(&copy, kElems * sizeof(float)));
  CHECK(cudaMallocHost(&host, kElems * sizeof(float)));
  for (int i = 0; i < kElems; ++i) host[i] = 1.0f;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Outside any graph: a copy, a fill, three plain launches.
  CHECK(cudaMemcpyAsync(data, host, kElems * sizeof(float), cudaMemcpyHostToDevice, stream));
  CHECK(cudaMemsetAsync(copy, 0, kElems * sizeof(float), stream));
  for (int i = 0; i < 3; ++i) plain_kernel<<<kElems / 128, 128, 0, stream>>>(data, kElems);
  CHECK(cudaGetLastError());

  // Graph 1: 32 distinct kernels in a chain, captured from a stream.
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  LaunchAll(std::make_integer_sequence<int, kNodes>{}, data, stream);
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  // Graph 2: a memset node and a memcpy node, replayed a few times.
  cudaGraph_t copy_graph;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(copy, 0, kElems * sizeof(float), stream));
  CHECK(cudaMemcpyAsync(copy, data, kElems * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  CHECK(cudaStreamEndCapture(stream, &copy_graph));
  cudaGraphExec_t copy_exec;
  CHECK(cudaGraphInstantiate(&copy_exec, copy_graph, 0));
  CHECK(cudaStreamSynchronize(stream));

  auto t0 = std::chrono::steady_clock::now();
  if (launch_profile_start != nullptr) launch_profile_start();
  if (seconds > 0) {
    std::printf("graph_replay: pid %d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    replays = 0;
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(seconds)) {
      for (int r = 0; r < 1000; ++r) CHECK(cudaGraphLaunch(exec, stream));
      CHECK(cudaStreamSynchronize(stream));
      replays += 1000;
    }
  }
  for (int r = 0; r < (seconds > 0 ? 0 : replays); ++r) {
    if (ranges) nvtxRangePushA("replay");
    CHECK(cudaGraphLaunch(exec, stream));
    if (ranges) nvtxRangePop();
  }
  for (int r = 0; r < 5; ++r) CHECK(cudaGraphLaunch(copy_exec, stream));
  // When the launching thread is done: the rest of the time is the GPU catching up.
  auto t_launched = std::chrono::steady_clock::now();
  if (launch_profile_pause != nullptr) launch_profile_pause();
  if (exit_early) std::exit(0);  // the tracer must still see every queued replay
  CHECK(cudaStreamSynchronize(stream));
  auto t1 = std::chrono::steady_clock::now();

  CHECK(cudaMemcpy(host, data, kElems * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("graph_replay: %d replays of %d nodes in %.3f ms (checksum %.1f; launches %.3f ms)\n",
              replays, kNodes, std::chrono::duration<double, std::milli>(t1 - t0).count(), host[0],
              std::chrono::duration<double, std::milli>(t_launched - t0).count());
  std::fflush(stdout);
  if (hang) {
    while (true) pause();
  }
  if (crash) {
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;
  }
  CHECK(cudaGraphExecDestroy(copy_exec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(copy_graph));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(copy));
  CHECK(cudaFree(data));
  return 0;
}
