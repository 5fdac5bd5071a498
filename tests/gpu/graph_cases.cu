// GPU reproduction programs for graph attribution: each case builds graphs explicitly so the
// topology and the kernel of every node are known, replays them, and prints what it expects.
//   graph_cases CASE   (chain | linear | fanout4 | fanout2 | update | setparams | reinstantiate |
//                       threads1 | threads2 | threads4 | threads8 | threads16 | copies |
//                       update_every_step | swap_every_10th | setparams2 | args_every_replay |
//                       enable_toggle | child | while)
// Output: lines "expect nodes=N replays=R": N keys of R occurrences each (every key of the trace
// is in one such line); and, for the cases of issue 11, one line
// "expect graphs=G keys=K new=M": G graph ids, K keys, M of them new node ids (ordinal >= 2^24).
// Every kernel is a distinct function (k<N>), so a key's kernel names are the ground truth.
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

// The while case: the counter is reset before the loop; the body's last kernel counts down.
__global__ void reset_counter(int* c) { *c = 5; }
__global__ void count_down(int* c, cudaGraphConditionalHandle h) {
  int left = --*c;
  cudaGraphSetConditional(h, left > 0 ? 1u : 0u);
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

// One step of a program that re-captures its work: k<fn[i]> launched in order on `s`.
cudaGraph_t Capture(cudaStream_t s, float* d, const std::vector<int>& fns) {
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int fn : fns) {
    void* args[1] = {&d};
    CHECK(cudaLaunchKernel(KernelFn(fn), dim3(1), dim3(kElems), args, 0, s));
  }
  CHECK(cudaStreamEndCapture(s, &g));
  return g;
}

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
    // Destroy + re-instantiate: a new exec, a new graph id.
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(e));
    Replay(Instantiate(b.graph), s, 150);
    // Issue 11: one graph id for the updated exec (8 keys: 4 kept, 4 new), one for the new exec.
    std::printf("expect nodes=12 replays=150\nexpect graphs=2 keys=12 new=4\n");
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
    // The three untouched nodes keep their keys; node 2 gets a second one.
    std::printf("expect nodes=3 replays=300\nexpect nodes=2 replays=150\n");
    std::printf("expect graphs=1 keys=5 new=1\n");
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
    cudaGraphExec_t e = Instantiate(b.graph);
    Replay(e, s, 100);
    mp.value = 1;  // set-params on the fill: another value, the same fill, the same key
    CHECK(cudaGraphExecMemsetNodeSetParams(e, fill, &mp));
    Replay(e, s, 100);
    std::printf("expect nodes=3 replays=200\nexpect graphs=1 keys=3 new=0\n");
  } else if (c == "update_every_step" || c == "swap_every_10th") {
    // Re-capture + cudaGraphExecUpdate before every launch (llama.cpp, MLX, TensorRT-LLM).
    const bool swap = c == "swap_every_10th";
    std::vector<int> fns = {0, 1, 2, 3, 4, 5, 6, 7};
    cudaGraph_t first = Capture(s, d, fns);
    cudaGraphExec_t e = Instantiate(first);
    CHECK(cudaGraphDestroy(first));
    for (int step = 0; step < 100; ++step) {
      fns[7] = swap && step % 10 == 9 ? 30 : 7;
      cudaGraph_t g = Capture(s, d, fns);
      cudaGraphExecUpdateResultInfo info;
      CHECK(cudaGraphExecUpdate(e, g, &info));
      CHECK(cudaGraphLaunch(e, s));
      CHECK(cudaGraphDestroy(g));
    }
    if (swap) {
      std::printf("expect nodes=7 replays=100\nexpect nodes=1 replays=90\n");
      std::printf("expect nodes=1 replays=10\nexpect graphs=1 keys=9 new=1\n");
    } else {
      std::printf("expect nodes=8 replays=100\nexpect graphs=1 keys=8 new=0\n");
    }
  } else if (c == "setparams2") {
    // A 2-node exec; set-params swaps node 0's kernel, then swaps it back.
    Builder b(d);
    cudaGraphNode_t n0 = b.Kernel(0, {});
    b.Kernel(1, {n0});
    cudaGraphExec_t e = Instantiate(b.graph);
    cudaKernelNodeParams p{};
    CHECK(cudaGraphKernelNodeGetParams(n0, &p));
    Replay(e, s, 100);
    p.func = KernelFn(31);
    CHECK(cudaGraphExecKernelNodeSetParams(e, n0, &p));
    Replay(e, s, 100);
    p.func = KernelFn(0);  // back to the first kernel: back to the first key
    CHECK(cudaGraphExecKernelNodeSetParams(e, n0, &p));
    Replay(e, s, 100);
    std::printf("expect nodes=1 replays=300\nexpect nodes=1 replays=200\n");
    std::printf("expect nodes=1 replays=100\nexpect graphs=1 keys=3 new=1\n");
  } else if (c == "args_every_replay") {
    // The XLA pattern: set-params before every replay re-pointing arguments and changing the
    // grid; the kernels never change, so neither do the keys.
    Builder b(d);
    cudaGraphNode_t nodes[4];
    for (int i = 0; i < 4; ++i)
      nodes[i] = b.Kernel(i, i ? std::vector{nodes[i - 1]} : std::vector<cudaGraphNode_t>{});
    cudaGraphExec_t e = Instantiate(b.graph);
    for (int r = 0; r < 200; ++r) {
      float* buffer = d + (r % 2) * kElems;
      void* args[1] = {&buffer};
      for (cudaGraphNode_t n : nodes) {
        cudaKernelNodeParams p{};
        CHECK(cudaGraphKernelNodeGetParams(n, &p));
        p.kernelParams = args;
        p.gridDim = dim3(1 + r % 2);
        CHECK(cudaGraphExecKernelNodeSetParams(e, n, &p));
      }
      CHECK(cudaGraphLaunch(e, s));
    }
    std::printf("expect nodes=4 replays=200\nexpect graphs=1 keys=4 new=0\n");
  } else if (c == "enable_toggle") {
    // cudaGraphNodeSetEnabled off for 50 replays, then on again: node 2 keeps its key.
    Builder b(d);
    cudaGraphNode_t nodes[4];
    for (int i = 0; i < 4; ++i)
      nodes[i] = b.Kernel(i, i ? std::vector{nodes[i - 1]} : std::vector<cudaGraphNode_t>{});
    cudaGraphExec_t e = Instantiate(b.graph);
    Replay(e, s, 50);
    CHECK(cudaGraphNodeSetEnabled(e, nodes[2], 0));
    Replay(e, s, 50);
    CHECK(cudaGraphNodeSetEnabled(e, nodes[2], 1));
    Replay(e, s, 50);
    std::printf("expect nodes=3 replays=150\nexpect nodes=1 replays=100\n");
    std::printf("expect graphs=1 keys=4 new=0\n");
  } else if (c == "child") {
    // kernel -> child graph {2 kernels} -> kernel.
    Builder child(d), b(d);
    cudaGraphNode_t c0 = child.Kernel(10, {});
    child.Kernel(11, {c0});
    cudaGraphNode_t first = b.Kernel(0, {});
    cudaGraphNode_t node;
    CHECK(cudaGraphAddChildGraphNode(&node, b.graph, &first, 1, child.graph));
    b.Kernel(1, {node});
    Replay(Instantiate(b.graph), s, 100);
    std::printf("expect nodes=4 replays=100\nexpect graphs=1 keys=4 new=0\n");
  } else if (c == "while") {
    // reset -> while (counter > 0) { k<12>, count_down }: 5 iterations per replay, 20 replays.
    Builder b(d);
    int* counter;
    CHECK(cudaMalloc(&counter, sizeof(int)));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, b.graph, 1, cudaGraphCondAssignDefault));
    void* reset_args[1] = {&counter};
    cudaKernelNodeParams rp{};
    rp.func = reinterpret_cast<void*>(&reset_counter);
    rp.gridDim = dim3(1);
    rp.blockDim = dim3(1);
    rp.kernelParams = reset_args;
    cudaGraphNode_t reset;
    CHECK(cudaGraphAddKernelNode(&reset, b.graph, nullptr, 0, &rp));
    cudaGraphNodeParams cp{};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = handle;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t loop;
    CHECK(cudaGraphAddNode(&loop, b.graph, &reset, nullptr, 1, &cp));
    Builder body(d);
    CHECK(cudaGraphDestroy(body.graph));
    body.graph = cp.conditional.phGraph_out[0];
    cudaGraphNode_t work = body.Kernel(12, {});
    void* down_args[2] = {&counter, &handle};
    cudaKernelNodeParams dp{};
    dp.func = reinterpret_cast<void*>(&count_down);
    dp.gridDim = dim3(1);
    dp.blockDim = dim3(1);
    dp.kernelParams = down_args;
    cudaGraphNode_t down;
    CHECK(cudaGraphAddKernelNode(&down, body.graph, &work, 1, &dp));
    Replay(Instantiate(b.graph), s, 20);
    std::printf("expect nodes=1 replays=20\nexpect nodes=2 replays=100\n");
    std::printf("expect graphs=1 keys=3 new=0\n");
  } else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
