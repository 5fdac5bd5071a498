// GPU programs whose graphs have known shapes and known node durations, for the DAG the trace
// records (docs/TRACE-DAG.md) and the critical path computed from it:
//   dag_cases forkjoin  A_US B_US REPLAYS   root -> {A: spin A_US, B: spin B_US} -> join
//   dag_cases capture2                      the same fork/join captured over two streams
//   dag_cases pdl                           8 kernels chained with programmatic launches
// Each prints "expect edges=E kernels=K" and, for fork/join, the spin times.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);                                           \
    if (err_ != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                            \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

// Spins for about `ns` nanoseconds of the GPU's global timer.
__device__ void Spin(long long ns) {
  long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start >= ns) break;
  }
}
__global__ void dag_root(long long ns) { Spin(ns); }
__global__ void dag_branch_a(long long ns) { Spin(ns); }
__global__ void dag_branch_b(long long ns) { Spin(ns); }
__global__ void dag_join(long long ns) { Spin(ns); }
__global__ void dag_pdl(long long ns) {
  Spin(ns / 4);
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  Spin(ns);
}

cudaGraphNode_t AddKernel(cudaGraph_t g, void* fn, long long* ns,
                          std::vector<cudaGraphNode_t> deps) {
  void* args[1] = {ns};
  cudaKernelNodeParams p{};
  p.func = fn;
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t node;
  CHECK(cudaGraphAddKernelNode(&node, g, deps.data(), deps.size(), &p));
  return node;
}

void Replay(cudaGraph_t g, cudaStream_t s, int n) {
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int i = 0; i < n; ++i) CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s forkjoin A_US B_US REPLAYS | capture2 | pdl\n", argv[0]);
    return 2;
  }
  const std::string c = argv[1];
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  long long short_ns = 2000;
  if (c == "forkjoin") {
    if (argc != 5) return 2;
    long long a = std::atoll(argv[2]) * 1000, b = std::atoll(argv[3]) * 1000;
    const int replays = std::atoi(argv[4]);
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t root = AddKernel(g, (void*)&dag_root, &short_ns, {});
    cudaGraphNode_t na = AddKernel(g, (void*)&dag_branch_a, &a, {root});
    cudaGraphNode_t nb = AddKernel(g, (void*)&dag_branch_b, &b, {root});
    AddKernel(g, (void*)&dag_join, &short_ns, {na, nb});
    Replay(g, s, replays);
    std::printf("expect edges=4 kernels=4\n");
  } else if (c == "capture2") {
    // root on s; A on s, B on t (forked by an event); joined back on s.
    cudaStream_t t;
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    long long a = 20000, b = 60000;
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    dag_root<<<1, 32, 0, s>>>(short_ns);
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(t, fork, 0));
    dag_branch_a<<<1, 32, 0, s>>>(a);
    dag_branch_b<<<1, 32, 0, t>>>(b);
    CHECK(cudaEventRecord(join, t));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    dag_join<<<1, 32, 0, s>>>(short_ns);
    CHECK(cudaStreamEndCapture(s, &g));
    Replay(g, s, 100);
    std::printf("expect edges=4 kernels=4\n");
  } else if (c == "pdl") {
    // Captured launches with programmatic stream serialization: programmatic edges.
    cudaGraph_t g;
    long long ns = 5000;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < 8; ++i) {
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(1);
      cfg.blockDim = dim3(32);
      cfg.stream = s;
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr.val.programmaticStreamSerializationAllowed = 1;
      cfg.attrs = &attr;
      cfg.numAttrs = i == 0 ? 0 : 1;
      CHECK(cudaLaunchKernelEx(&cfg, dag_pdl, ns));
    }
    CHECK(cudaStreamEndCapture(s, &g));
    Replay(g, s, 100);
    std::printf("expect edges=7 kernels=8\n");
  } else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
