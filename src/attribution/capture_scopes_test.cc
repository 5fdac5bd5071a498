// Tests of capture-time scopes: instantiate, several execs of one graph, graph clones, exec
// update with work in flight, nodes added outside any range, and application threads recording
// while the decoding thread drains and looks up.
#include "attribution/capture_scopes.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

uint64_t Key(uint32_t graph, uint32_t ordinal) { return (uint64_t{graph} << 32) | ordinal; }

TEST(CaptureScopeTable, NothingRegisteredCostsNothing) {
  CaptureScopeTable t;
  t.OnTemplateNode(100, 0);  // added outside any range
  t.OnExecNode(Key(1, 0), 100, 1);
  t.Drain();
  EXPECT_EQ(t.Lookup(Key(1, 0), 5), 0u);
}

TEST(CaptureScopeTable, ScopesFollowNodesIntoEveryExec) {
  CaptureScopeTable t;
  t.OnTemplateNode(100, 7);  // node 100 captured under range 7
  t.OnTemplateNode(101, 8);
  t.OnTemplateNode(102, 0);
  for (uint32_t exec : {1u, 2u}) {  // two execs of one graph
    t.OnExecNode(Key(exec, 0), 100, 10 * exec);
    t.OnExecNode(Key(exec, 1), 101, 10 * exec);
    t.OnExecNode(Key(exec, 2), 102, 10 * exec);
  }
  t.Drain();
  for (uint32_t exec : {1u, 2u}) {
    EXPECT_EQ(t.Lookup(Key(exec, 0), 100), 7u);
    EXPECT_EQ(t.Lookup(Key(exec, 1), 100), 8u);
    EXPECT_EQ(t.Lookup(Key(exec, 2), 100), 0u);
  }
  EXPECT_EQ(t.Lookup(Key(3, 0), 100), 0u) << "an exec we never saw";
}

TEST(CaptureScopeTable, ClonedTemplatesKeepTheirScopes) {
  CaptureScopeTable t;
  t.OnTemplateNode(100, 7);
  t.OnTemplateCloned(200, 100);
  t.OnExecNode(Key(4, 0), 200, 1);
  t.Drain();
  EXPECT_EQ(t.Lookup(Key(4, 0), 2), 7u);
}

TEST(CaptureScopeTable, ExecUpdateNewGraphWinsForLaterWorkOnly) {
  CaptureScopeTable t;
  t.OnTemplateNode(100, 7);  // graph A's node, captured under "layer.0"
  t.OnTemplateNode(300, 9);  // graph B's node, captured under "layer.1"
  t.OnExecNode(Key(5, 0), 100, 10);
  t.OnExecNode(Key(5, 0), 300, 50);  // cudaGraphExecUpdate(exec, B) at correlation 50
  t.Drain();
  EXPECT_EQ(t.Lookup(Key(5, 0), 20), 7u) << "launched before the update";
  EXPECT_EQ(t.Lookup(Key(5, 0), 60), 9u);
}

TEST(CaptureScopeTable, UpdateToAnUnscopedGraphClearsTheScope) {
  CaptureScopeTable t;
  t.OnTemplateNode(100, 7);
  t.OnExecNode(Key(6, 0), 100, 10);
  t.OnExecNode(Key(6, 0), 400, 50);  // node 400 had no range
  t.Drain();
  EXPECT_EQ(t.Lookup(Key(6, 0), 20), 7u);
  EXPECT_EQ(t.Lookup(Key(6, 0), 60), 0u);
}

// Graph building on several application threads while the decoding thread drains and looks up
// (as CUPTI's buffer thread does): every scope arrives, none is mixed up with another thread's.
TEST(CaptureScopeTable, ApplicationThreadsWhileTheDecoderDrains) {
  constexpr uint32_t kThreads = 4;
  constexpr uint32_t kNodes = 300;
  CaptureScopeTable t;
  std::atomic<uint32_t> running{kThreads};
  std::vector<std::thread> threads;
  for (uint32_t th = 0; th < kThreads; ++th) {
    threads.emplace_back([&t, &running, th] {
      const uint32_t exec = th + 1;
      for (uint32_t i = 0; i < kNodes; ++i) {
        const uint64_t node = uint64_t{exec} * 1000 + i;
        t.OnTemplateNode(node, exec * 100000 + i + 1);
        t.OnExecNode(Key(exec, i), node, 1);
      }
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  while (running.load(std::memory_order_acquire) > 0) {  // the decoder, meanwhile
    t.Drain();
    for (uint32_t exec = 1; exec <= kThreads; ++exec) (void)t.Lookup(Key(exec, 0), 5);
  }
  for (auto& th : threads) th.join();
  t.Drain();
  for (uint32_t exec = 1; exec <= kThreads; ++exec) {
    for (uint32_t i = 0; i < kNodes; ++i) {
      ASSERT_EQ(t.Lookup(Key(exec, i), 5), exec * 100000 + i + 1) << exec << " " << i;
    }
  }
}

}  // namespace
}  // namespace nodescope
