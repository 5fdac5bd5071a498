// The scenarios of issue 12's "Done when" table, run on the simulated HIP runtime (sim_hip.h), as
// tests/gpu/graph_cases.cu runs them on CUDA: each builds its graphs explicitly, every node with a
// kernel of its own name, so what the trace should show is known; it prints one line
// "expect nodes=N replays=R" per exec (per exec and version, for update and re-instantiation).
//   sim_program CASE   chain32 | chain6 | fan4 | fan2 | update | setparams | flags | devices2 |
//                      capture | copies | threadsN (N threads, one exec each, root -> 4 -> join,
//                      100 replays) | graphcopies (kernels, copies and a memset as graph nodes,
//                      an update resizing a copy) | copythreadsN (as threadsN, each exec a chain
//                      kernel -> copy -> kernel -> memset -> kernel -> copy) | exit_midrun |
//                      sigint_midrun (2 threads replaying a 4-node chain without end; after 50 ms
//                      the main thread calls exit(0) or raises SIGINT: a trace must still be
//                      complete and valid) | loop_<ms> (prints its pid; 2 threads replay a 4-node
//                      chain once a ms each for <ms>, then prints the replays made: issue 14) |
//                      spin_<n> (2 threads replay a 4-node chain <n> times each, unpaused:
//                      issue 14's memory of long runs) | fork_signals (children forked without
//                      exec get SIGTERM, SIGUSR1, SIGUSR2 or call exit(): issue 24)
// The hazard cases also print "sim cross_thread_dispatches=K": dispatches written by a thread other
// than their launcher, which the simulator knows and no trace can show.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "sim_hip.h"
#include "sim_program_helpers.h"

namespace {

// Kernels named prefix0 .. prefix<n-1>, loaded on every device.
std::vector<simFunction_t> Kernels(const std::string& prefix, int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(prefix + std::to_string(i));
  std::vector<const char*> c_names;
  for (const auto& name : names) c_names.push_back(name.c_str());
  std::vector<simFunction_t> functions(static_cast<size_t>(n));
  CHECK(simhipModuleLoad(c_names.data(), n, functions.data()));
  return functions;
}

// root -> width kernels -> join: kernels[0] is the root, kernels[width + 1] the join.
simGraph_t Fan(const std::vector<simFunction_t>& kernels, int width) {
  simGraph_t g;
  CHECK(simhipGraphCreate(&g));
  simGraphNode_t root;
  CHECK(simhipGraphAddKernelNode(&root, g, nullptr, 0, kernels[0]));
  std::vector<simGraphNode_t> mid(static_cast<size_t>(width));
  for (int i = 0; i < width; ++i)
    CHECK(simhipGraphAddKernelNode(&mid[static_cast<size_t>(i)], g, &root, 1,
                                   kernels[static_cast<size_t>(1 + i)]));
  simGraphNode_t join;
  CHECK(simhipGraphAddKernelNode(&join, g, mid.data(), mid.size(),
                                 kernels[static_cast<size_t>(width + 1)]));
  return g;
}

// One thread per exec, all starting together, each replaying its exec `replays` times on its
// stream; then the simulator's count of dispatches judged across threads.
void ReplayOnThreads(const std::vector<simGraphExec_t>& execs,
                     const std::vector<simStream_t>& streams, int replays) {
  const int n = static_cast<int>(execs.size());
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();
      Replay(execs[static_cast<size_t>(t)], streams[static_cast<size_t>(t)], replays);
      CHECK(simhipStreamSynchronize(streams[static_cast<size_t>(t)]));
    });
  }
  for (auto& th : threads) th.join();
  std::printf("sim cross_thread_dispatches=%llu\n",
              static_cast<unsigned long long>(simhipCrossThreadDispatches()));
  std::printf("sim runtime_thread_dispatches=%llu\n",
              static_cast<unsigned long long>(simhipRuntimeThreadDispatches()));
}

// N threads launching at once, one exec and stream each (streams made here, in thread order, so
// the queue each gets is the same from run to run). Issue 29's variants, by environment:
//   SIM_MIX_PLAIN=1   each thread also makes a plain launch (kernel t<t>_p0) before every replay,
//                     on a stream of its own (made after the graph streams: queues are shared)
//   SIM_RANGES=1      each thread's launches run inside a roctx range "r<t>" pushed around them
void Threads(int n) {
  const bool plain =
      std::getenv("SIM_MIX_PLAIN") != nullptr && std::atoi(std::getenv("SIM_MIX_PLAIN"));
  const bool ranges = std::getenv("SIM_RANGES") != nullptr && std::atoi(std::getenv("SIM_RANGES"));
  if (!plain && !ranges) {
    std::vector<simStream_t> streams;
    std::vector<simGraphExec_t> execs;
    for (int t = 0; t < n; ++t) {
      streams.push_back(Stream());
      execs.push_back(Instantiate(Fan(Kernels("t" + std::to_string(t) + "_n", 6), 4)));
      std::printf("expect nodes=6 replays=100\n");
    }
    ReplayOnThreads(execs, streams, 100);
    return;
  }
  std::vector<simStream_t> streams, plain_streams;
  std::vector<simGraphExec_t> execs;
  std::vector<simFunction_t> plain_kernels;
  for (int t = 0; t < n; ++t) {
    streams.push_back(Stream());
    execs.push_back(Instantiate(Fan(Kernels("t" + std::to_string(t) + "_n", 6), 4)));
    std::printf("expect nodes=6 replays=100\n");
  }
  for (int t = 0; t < n && plain; ++t) {
    plain_streams.push_back(Stream());
    plain_kernels.push_back(Kernels("t" + std::to_string(t) + "_p", 1)[0]);
    std::printf("expect plain=100\n");
  }
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      const size_t u = static_cast<size_t>(t);
      const std::string range = "r" + std::to_string(t);
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();
      if (ranges) simroctxRangePushA(range.c_str());
      for (int i = 0; i < 100; ++i) {
        if (plain) CHECK(simhipLaunchKernel(plain_kernels[u], plain_streams[u]));
        CHECK(simhipGraphLaunch(execs[u], streams[u]));
      }
      CHECK(simhipStreamSynchronize(streams[u]));
      if (plain) CHECK(simhipStreamSynchronize(plain_streams[u]));
      if (ranges) simroctxRangePop();
    });
  }
  for (auto& th : threads) th.join();
  std::printf("sim cross_thread_dispatches=%llu\n",
              static_cast<unsigned long long>(simhipCrossThreadDispatches()));
  std::printf("sim runtime_thread_dispatches=%llu\n",
              static_cast<unsigned long long>(simhipRuntimeThreadDispatches()));
}

// kernel -> copy to the device -> kernel -> memset -> `tail`: node i's kernel is prefix<i>; each
// copy and memset has a size of its own (`sizes`: host to device, memset, tail copy), so every
// node's work is known apart. `tail` is a device-to-device copy or one back to the host.
struct CopyBuffers {
  std::vector<char> host = std::vector<char>(1 << 16), device = std::vector<char>(1 << 16),
                    device2 = std::vector<char>(1 << 16);
};
simGraph_t CopyChain(const std::vector<simFunction_t>& k, CopyBuffers& b, size_t h2d, size_t fill,
                     int tail, size_t tail_bytes) {
  simGraph_t g;
  CHECK(simhipGraphCreate(&g));
  simGraphNode_t n[6];
  CHECK(simhipGraphAddKernelNode(&n[0], g, nullptr, 0, k[0]));
  CHECK(simhipGraphAddMemcpyNode1D(&n[1], g, &n[0], 1, b.device.data(), b.host.data(), h2d,
                                   simMemcpyHostToDevice));
  CHECK(simhipGraphAddKernelNode(&n[2], g, &n[1], 1, k[2]));
  CHECK(simhipGraphAddMemsetNode(&n[3], g, &n[2], 1, b.device.data(), 0, fill));
  CHECK(simhipGraphAddKernelNode(&n[4], g, &n[3], 1, k[4]));
  void* dst = tail == simMemcpyDeviceToHost ? b.host.data() : b.device2.data();
  CHECK(simhipGraphAddMemcpyNode1D(&n[5], g, &n[4], 1, dst, b.device.data(), tail_bytes, tail));
  return g;
}

// N threads, one exec of CopyChain each (sizes of their own per thread), 100 replays each.
void CopyThreads(int n) {
  std::vector<simStream_t> streams;
  std::vector<simGraphExec_t> execs;
  std::vector<CopyBuffers> buffers(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    streams.push_back(Stream());
    const size_t u = static_cast<size_t>(t);
    execs.push_back(
        Instantiate(CopyChain(Kernels("c" + std::to_string(t) + "_n", 6), buffers[u], 4096 + 64 * u,
                              1024 * (u + 1), simMemcpyDeviceToHost, 2048 + 64 * u)));
    std::printf("expect nodes=6 replays=100\n");
  }
  ReplayOnThreads(execs, streams, 100);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CASE\n", argv[0]);
    return 2;
  }
  const std::string c = argv[1];
  if (c.rfind("threads", 0) == 0) {
    Threads(std::atoi(c.c_str() + 7));
  } else if (c.rfind("copythreads", 0) == 0) {
    CopyThreads(std::atoi(c.c_str() + 11));
  } else if (c == "graphcopies") {
    // 100 replays; an update changing only the first copy's size (4096 -> 8192 bytes); 100 more:
    // 1 graph id, 6 keys + 1 new node id for the changed copy.
    simStream_t s = Stream();
    CopyBuffers b;
    std::vector<simFunction_t> k = Kernels("gc_k", 6);
    simGraphExec_t e = Instantiate(CopyChain(k, b, 4096, 2048, simMemcpyDeviceToDevice, 1024));
    Replay(e, s, 100);
    CHECK(simhipGraphExecUpdate(e, CopyChain(k, b, 8192, 2048, simMemcpyDeviceToDevice, 1024)));
    Replay(e, s, 100);
    CHECK(simhipStreamSynchronize(s));
    std::printf(
        "expect nodes=5 replays=200\nexpect nodes=1 replays=100\n"
        "expect nodes=1 replays=100\n");
  } else if (c == "chain32" || c == "chain6") {
    const int n = c == "chain32" ? 32 : 6;
    simStream_t s = Stream();
    Replay(Instantiate(Chain(Kernels(c + "_k", n), nullptr)), s, 200);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=%d replays=200\n", n);
  } else if (c == "fan4" || c == "fan2") {
    const int width = c == "fan4" ? 4 : 2;
    const int replays = width == 4 ? 200 : 300;
    simStream_t s = Stream();
    Replay(Instantiate(Fan(Kernels(c + "_k", width + 2), width)), s, replays);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=%d replays=%d\n", width + 2, replays);
  } else if (c == "update") {
    // Two versions of one exec, then a new exec at the same address: 2 graph ids, 12 keys.
    simStream_t s = Stream();
    simGraphExec_t e = Instantiate(Chain(Kernels("update_a", 4), nullptr));
    Replay(e, s, 150);  // no synchronize: some of this may still be pending at the update
    CHECK(simhipGraphExecUpdate(e, Chain(Kernels("update_b", 4), nullptr)));
    Replay(e, s, 150);
    CHECK(simhipStreamSynchronize(s));
    CHECK(simhipGraphExecDestroy(e));
    simGraphExec_t again = Instantiate(Chain(Kernels("update_c", 4), nullptr));
    if (again != e) {
      std::fprintf(stderr, "the simulator did not reuse the destroyed exec's address\n");
      return 1;
    }
    Replay(again, s, 150);
    CHECK(simhipStreamSynchronize(s));
    std::printf(
        "expect nodes=4 replays=150\nexpect nodes=4 replays=150\n"
        "expect nodes=4 replays=150\n");
  } else if (c == "updateonly") {
    // The kineto ROCm PR's exec-update row: a 4-node chain x 150, updated to 4 other kernels, 150
    // more. One exec throughout.
    simStream_t s = Stream();
    simGraphExec_t e = Instantiate(Chain(Kernels("uo_a", 4), nullptr));
    Replay(e, s, 150);
    CHECK(simhipGraphExecUpdate(e, Chain(Kernels("uo_b", 4), nullptr)));
    Replay(e, s, 150);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=4 replays=150\nexpect nodes=4 replays=150\n");
  } else if (c == "destroyreuse") {
    // The PR's destroy row: two execs replayed, the second destroyed, a third graph instantiated
    // at its address (the simulator reuses it at once), replayed. 4-node chains, 100 replays each.
    simStream_t s = Stream();
    simGraphExec_t a = Instantiate(Chain(Kernels("dr_a", 4), nullptr));
    simGraphExec_t b = Instantiate(Chain(Kernels("dr_b", 4), nullptr));
    Replay(a, s, 100);
    Replay(b, s, 100);
    CHECK(simhipStreamSynchronize(s));
    CHECK(simhipGraphExecDestroy(b));
    simGraphExec_t c3 = Instantiate(Chain(Kernels("dr_c", 4), nullptr));
    if (c3 != b) {
      std::fprintf(stderr, "the simulator did not reuse the destroyed exec's address\n");
      return 1;
    }
    Replay(c3, s, 100);
    CHECK(simhipStreamSynchronize(s));
    std::printf(
        "expect nodes=4 replays=100\nexpect nodes=4 replays=100\nexpect nodes=4 replays=100\n");
  } else if (c == "setparams") {
    simStream_t s = Stream();
    std::vector<simGraphNode_t> nodes;
    simGraphExec_t e = Instantiate(Chain(Kernels("setparams_k", 4), &nodes));
    Replay(e, s, 150);
    CHECK(simhipGraphExecKernelNodeSetParams(e, nodes[2], Kernels("setparams_new", 1)[0]));
    Replay(e, s, 150);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=4 replays=150\nexpect nodes=4 replays=150\n");
  } else if (c == "flags") {
    simStream_t s = Stream();
    simGraphExec_t e;
    CHECK(simhipGraphInstantiateWithFlags(&e, Chain(Kernels("flags_k", 4), nullptr), 0));
    Replay(e, s, 100);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=4 replays=100\n");
  } else if (c.rfind("loop_", 0) == 0) {
    // loop_<ms>: a long-running service for ring, capture and streaming (issue 14): prints its
    // pid, then 2 threads replay a 4-node chain (one replay per ms each) until <ms> have passed.
    std::printf("pid %d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    std::atomic<bool> stop{false};
    std::atomic<long> replays{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      simStream_t s = Stream();
      simGraphExec_t e = Instantiate(Chain(Kernels("loop" + std::to_string(t) + "_k", 4), nullptr));
      threads.emplace_back([e, s, &stop, &replays] {
        while (!stop.load()) {
          CHECK(simhipGraphLaunch(e, s));
          replays.fetch_add(1);
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        CHECK(simhipStreamSynchronize(s));
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(c.c_str() + 5)));
    stop.store(true);
    for (auto& th : threads) th.join();
    std::printf("loop: %ld replays of 4 kernels\n", replays.load());
  } else if (c.rfind("spin_", 0) == 0) {
    // spin_<n>: 2 threads replay a 4-node chain <n> times each without pausing, synchronizing
    // every 1000 replays (issue 14: memory of a long run, millions of launches).
    const long n = std::atol(c.c_str() + 5);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      simStream_t s = Stream();
      simGraphExec_t e = Instantiate(Chain(Kernels("spin" + std::to_string(t) + "_k", 4), nullptr));
      threads.emplace_back([e, s, n] {
        for (long r = 1; r <= n; ++r) {
          CHECK(simhipGraphLaunch(e, s));
          if (r % 1000 == 0) CHECK(simhipStreamSynchronize(s));
        }
        CHECK(simhipStreamSynchronize(s));
      });
      std::printf("expect nodes=4 replays=%ld\n", n);
    }
    for (auto& th : threads) th.join();
  } else if (c == "exit_midrun" || c == "sigint_midrun") {
    static std::atomic<long> launched{0};
    for (int t = 0; t < 2; ++t) {
      simStream_t s = Stream();
      simGraphExec_t e = Instantiate(Chain(Kernels(c + std::to_string(t) + "_k", 4), nullptr));
      std::thread([e, s] {
        for (;;) {
          CHECK(simhipGraphLaunch(e, s));
          launched.fetch_add(1, std::memory_order_relaxed);
        }
      }).detach();
      std::printf("expect nodes=4 replays=unknown\n");
    }
    std::fflush(stdout);
    // Mid-run: 50 ms and some replays done (a loaded machine may not have run the threads yet;
    // a trace without GPU work is no trace), at most 10 s.
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(50) ||
           (launched.load(std::memory_order_relaxed) < 64 &&
            std::chrono::steady_clock::now() - start < std::chrono::seconds(10))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (c == "sigint_midrun") std::raise(SIGINT);
    std::exit(0);
  } else if (c == "fork_signals") {
    // fork_signals: children forked without exec get SIGTERM, SIGUSR1 and SIGUSR2, and one calls
    // exit(): each must end as it would untraced, and the parent must go on (issue 24).
    simStream_t s = Stream();
    simGraphExec_t e = Instantiate(Chain(Kernels("fork_k", 4), nullptr));
    Replay(e, s, 20);
    CHECK(simhipStreamSynchronize(s));
    for (int sig : {SIGTERM, SIGUSR1, SIGUSR2, 0}) {
      const pid_t child = fork();
      if (child == 0) {
        if (sig == 0) std::exit(7);
        for (;;) pause();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (sig != 0) kill(child, sig);
      int status = 0;
      waitpid(child, &status, 0);
      if (WIFSIGNALED(status)) {
        std::printf("child ended by signal %d\n", WTERMSIG(status));
      } else {
        std::printf("child exited %d\n", WEXITSTATUS(status));
      }
    }
    Replay(e, s, 20);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=4 replays=40\n");
  } else if (c == "devices2") {
    int devices = 0;
    CHECK(simhipGetDeviceCount(&devices));
    if (devices < 2) {
      std::fprintf(stderr, "devices2 needs SIM_DEVICE_COUNT >= 2\n");
      return 1;
    }
    std::vector<std::thread> threads;
    for (int d = 0; d < 2; ++d) {
      threads.emplace_back([d] {
        CHECK(simhipSetDevice(d));
        simStream_t s = Stream();
        Replay(Instantiate(Chain(Kernels("dev" + std::to_string(d) + "_k", 6), nullptr)), s, 150);
        CHECK(simhipStreamSynchronize(s));
      });
      std::printf("expect nodes=6 replays=150\n");
    }
    for (auto& th : threads) th.join();
  } else if (c == "capture") {
    simStream_t s = Stream();
    std::vector<simFunction_t> k = Kernels("capture_k", 3);
    CHECK(simhipStreamBeginCapture(s));
    for (simFunction_t f : k) CHECK(simhipLaunchKernel(f, s));
    simGraph_t g;
    CHECK(simhipStreamEndCapture(s, &g));
    Replay(Instantiate(g), s, 50);
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect nodes=3 replays=50\n");
  } else if (c == "copies") {
    simStream_t s = Stream();
    std::vector<char> host(4096), device(4096);
    simFunction_t k = Kernels("copies_k", 1)[0];
    for (int i = 0; i < 10; ++i) {
      CHECK(simhipMemcpyAsync(device.data(), host.data(), host.size(), simMemcpyHostToDevice, s));
      CHECK(simhipLaunchKernel(k, s));
      CHECK(simhipMemcpyAsync(host.data(), device.data(), host.size(), simMemcpyDeviceToHost, s));
    }
    CHECK(simhipStreamSynchronize(s));
    std::printf("expect copies=20 kernels=10\n");
  } else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  CHECK(simhipDeviceSynchronize());
  return 0;
}
