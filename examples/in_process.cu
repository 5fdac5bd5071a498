// Example: trace a region of your own program with nodescope's C++ API.
//   in_process OUTPUT.json
#include <cuda_runtime.h>

#include <cstdio>

#include "nodescope/nodescope.hpp"

__global__ void scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.json\n", argv[0]);
    return 2;
  }
  const int n = 1 << 16;
  float* x = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess) return 1;
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  scale<<<n / 256, 256, 0, stream>>>(x, n, 2.0f);  // before tracing: not in the trace
  cudaStreamSynchronize(stream);

  nodescope::Session session = nodescope::Session::Start();
  if (!session.ok()) {
    std::fprintf(stderr, "nodescope: %s\n", session.error().c_str());
    return 1;
  }
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  for (int i = 0; i < 4; ++i) scale<<<n / 256, 256, 0, stream>>>(x, n, 0.5f);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  {
    NODESCOPE_RANGE("replays");  // a user range: shown on this thread and on the GPU stream
    for (int r = 0; r < 10; ++r) cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
  }
  if (!session.Stop() || !session.Write(argv[1])) {
    std::fprintf(stderr, "nodescope: %s\n", session.error().c_str());
    return 1;
  }
  nodescope_summary s = session.Summary();
  std::printf("in_process: %llu kernels traced, %llu from graphs, written to %s\n",
              static_cast<unsigned long long>(s.kernels),
              static_cast<unsigned long long>(s.graph_events), argv[1]);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(x);
  return 0;
}
