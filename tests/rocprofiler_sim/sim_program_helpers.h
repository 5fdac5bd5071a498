// What the programs on the simulated HIP runtime (sim_program.cc, ranges_program.cc) build their
// scenarios from: CHECK (a failed call ends the program, saying which), a stream, a chain of
// kernel nodes, an exec and its replays; each a plain HIP call on the calling thread.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim_hip.h"

#define CHECK(call)                                                                    \
  do {                                                                                 \
    int err_ = (call);                                                                 \
    if (err_ != simSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, err_); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

inline simStream_t Stream() {
  simStream_t s;
  CHECK(simhipStreamCreate(&s));
  return s;
}

// kernels[0] -> kernels[1] -> ..., built node by node; its nodes appended to *nodes when given.
inline simGraph_t Chain(const std::vector<simFunction_t>& kernels,
                        std::vector<simGraphNode_t>* nodes = nullptr) {
  simGraph_t g;
  CHECK(simhipGraphCreate(&g));
  simGraphNode_t prev = nullptr;
  for (simFunction_t k : kernels) {
    simGraphNode_t node;
    CHECK(simhipGraphAddKernelNode(&node, g, prev ? &prev : nullptr, prev ? 1 : 0, k));
    if (nodes) nodes->push_back(node);
    prev = node;
  }
  return g;
}

inline simGraphExec_t Instantiate(simGraph_t g) {
  simGraphExec_t e;
  CHECK(simhipGraphInstantiate(&e, g));
  return e;
}

inline void Replay(simGraphExec_t e, simStream_t s, int n) {
  for (int i = 0; i < n; ++i) CHECK(simhipGraphLaunch(e, s));
}
