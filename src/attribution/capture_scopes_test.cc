// Tests of capture-time scopes: instantiate, several execs of one graph, graph clones, exec
// update with work in flight, and nodes added outside any range.
#include "attribution/capture_scopes.h"

#include <gtest/gtest.h>

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
  t.OnTemplateNode(100, 7);   // graph A's node, captured under "layer.0"
  t.OnTemplateNode(300, 9);   // graph B's node, captured under "layer.1"
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

}  // namespace
}  // namespace nodescope
