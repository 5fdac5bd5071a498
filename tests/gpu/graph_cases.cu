// GPU reproduction programs for graph attribution: each case builds graphs explicitly so the
// topology and the kernel of every node are known, replays them, and prints what it expects.
//   graph_cases CASE   (chain | linear | fanout4 | fanout2 | update | setparams | reinstantiate |
//                       threads1 | threads2 | threads4 | threads8 | threads16 | copies)
// Output: one line "expect nodes=N replays=R" per exec the trace should show.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
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

constexpr int kElems = 256;

template <int N>
__global__ void k(float* x) {
  x[threadIdx.x] = x[threadIdx.x] * 0.5f + static_cast<float>(N);
}

// Kernel N as a function pointer for cudaKernelNodeParams (0..39).
template <int... Ns>
void* KernelTable(int n, std::integer_sequence<int, Ns...>) {
  static void* table[] = {reinterpret_cast<void*>(&k<Ns>)...};
  return table[n];
}
void* KernelFn(int n) { return KernelTable(n, std::make_integer_sequence<int, 40>{}); }

struct Builder {
  cudaGraph_t graph = nullptr;
  float* data;
  void* args[1];
  explicit Builder(float* d) : data(d) {
    args[0] = &data;
    CHECK(cudaGraphCreate(&graph, 0));
  }
  cudaGraphNode_t Kernel(int fn, std::vector<cudaGraphNode_t> deps) {
    cudaKernelNodeParams p{};
    p.func = KernelFn(fn);
    p.gridDim = dim3(1);
    p.blockDim = dim3(kElems);
    p.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddKernelNode(&node, graph, deps.data(), deps.size(), &p));
    return node;
  }
};

cudaGraphExec_t Instantiate(cudaGraph_t g) {
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  return e;
}

void Replay(cudaGraphExec_t e, cudaStream_t s, int n) {
  for (int i = 0; i < n; ++i) CHECK(cudaGraphLaunch(e, s));
}

float* Alloc() {
  float* d;
  CHECK(cudaMalloc(&d, kElems * sizeof(float) * 2));
  CHECK(cudaMemset(d, 0, kElems * sizeof(float) * 2));
  return d;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
  }
  std::string c = argv[1];
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* d = Alloc();

  if (c == "chain" || c == "linear") {
    int n = c == "chain" ? 32 : 8;
    Builder b(d);
    cudaGraphNode_t prev = nullptr;
    for (int i = 0; i < n; ++i)
      prev = b.Kernel(i, prev ? std::vector{prev} : std::vector<cudaGraphNode_t>{});
    Replay(Instantiate(b.graph), s, 200);
    std::printf("expect nodes=%d replays=200\n", n);
  } else if (c == "fanout4" || c == "fanout2") {
    int width = c == "fanout4" ? 4 : 2;
    Builder b(d);
    cudaGraphNode_t root = b.Kernel(0, {});
    std::vector<cudaGraphNode_t> mid;
    for (int i = 0; i < width; ++i) mid.push_back(b.Kernel(1 + i, {root}));
    b.Kernel(10, mid);
    Replay(Instantiate(b.graph), s, 200);
    std::printf("expect nodes=%d replays=200\n", width + 2);
  } else if (c == "update") {
    Builder a(d), b(d);
    cudaGraphNode_t pa = nullptr, pb = nullptr;
    for (int i = 0; i < 4; ++i) {
      pa = a.Kernel(i, pa ? std::vector{pa} : std::vector<cudaGraphNode_t>{});
      pb = b.Kernel(20 + i, pb ? std::vector{pb} : std::vector<cudaGraphNode_t>{});
    }
    cudaGraphExec_t e = Instantiate(a.graph);
    Replay(e, s, 150);  // no synchronize: some of this is still in flight at the update
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(e, b.graph, &info));
    Replay(e, s, 150);
    std::printf("expect nodes=4 replays=150\nexpect nodes=4 replays=150\n");
  } else if (c == "setparams") {
    Builder b(d);
    cudaGraphNode_t nodes[4];
    for (int i = 0; i < 4; ++i)
      nodes[i] = b.Kernel(i, i ? std::vector{nodes[i - 1]} : std::vector<cudaGraphNode_t>{});
    cudaGraphExec_t e = Instantiate(b.graph);
    Replay(e, s, 150);
    cudaKernelNodeParams p{};
    CHECK(cudaGraphKernelNodeGetParams(nodes[2], &p));
    p.func = KernelFn(30);
    CHECK(cudaGraphExecKernelNodeSetParams(e, nodes[2], &p));
    Replay(e, s, 150);
    std::printf("expect nodes=4 replays=150\nexpect nodes=4 replays=150\n");
  } else if (c == "reinstantiate") {
    Builder b(d);
    cudaGraphNode_t prev = nullptr;
    for (int i = 0; i < 4; ++i)
      prev = b.Kernel(i, prev ? std::vector{prev} : std::vector<cudaGraphNode_t>{});
    for (int round = 0; round < 3; ++round) {
      cudaGraphExec_t e = Instantiate(b.graph);
      Replay(e, s, 100);
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaGraphExecDestroy(e));
      std::printf("expect nodes=4 replays=100\n");
    }
  } else if (c.rfind("threads", 0) == 0) {
    int n = std::atoi(c.c_str() + 7);
    std::vector<std::thread> threads;
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([t] {
        cudaStream_t ts;
        CHECK(cudaStreamCreateWithFlags(&ts, cudaStreamNonBlocking));
        Builder b(Alloc());
        cudaGraphNode_t prev = nullptr;
        for (int i = 0; i < 4; ++i)
          prev =
              b.Kernel((t * 4 + i) % 40, prev ? std::vector{prev} : std::vector<cudaGraphNode_t>{});
        Replay(Instantiate(b.graph), ts, 200);
        CHECK(cudaStreamSynchronize(ts));
      });
      std::printf("expect nodes=4 replays=200\n");
    }
    for (auto& th : threads) th.join();
  } else if (c == "copies") {
    Builder b(d);
    cudaGraphNode_t fill, copy;
    cudaMemsetParams mp{};
    mp.dst = d;
    mp.value = 0;
    mp.elementSize = 4;
    mp.width = kElems;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&fill, b.graph, nullptr, 0, &mp));
    CHECK(cudaGraphAddMemcpyNode1D(&copy, b.graph, &fill, 1, d + kElems, d, kElems * sizeof(float),
                                   cudaMemcpyDeviceToDevice));
    b.Kernel(0, {copy});
    Replay(Instantiate(b.graph), s, 200);
    std::printf("expect nodes=3 replays=200\n");
  } else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
