// GraphDagStore: held by graph id, bounded, counted.
#include "backends/graph_dag_store.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace nodescope {
namespace {

GraphDag Dag(uint64_t id, size_t nodes) {
  GraphDag d;
  d.graph_id = id;
  for (size_t i = 0; i < nodes; ++i) d.nodes.push_back({(id << 32) | i, DagNodeType::kKernel, 0});
  return d;
}

int64_t Counter(const std::vector<std::pair<std::string, int64_t>>& c, const std::string& name) {
  for (const auto& [n, v] : c) {
    if (n == name) return v;
  }
  return -1;
}

TEST(GraphDagStore, HoldsByGraphIdFromAnyThread) {
  GraphDagStore store;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t) {
    threads.emplace_back([&store, t] {
      for (uint64_t i = 0; i < 100; ++i) store.Add(Dag(1 + i * 4 + t, 3));
    });
  }
  for (auto& t : threads) t.join();
  auto held = store.Snapshot();
  ASSERT_EQ(held.size(), 400u);
  for (size_t i = 0; i < held.size(); ++i) EXPECT_EQ(held[i]->graph_id, i + 1);
  std::vector<std::pair<std::string, int64_t>> counters;
  store.CountUnreadable();
  store.AddCounters(&counters);
  EXPECT_EQ(Counter(counters, "graph_dags_recorded"), 400);
  EXPECT_EQ(Counter(counters, "graph_dags_dropped"), 0);
  EXPECT_EQ(Counter(counters, "graph_dags_unreadable"), 1);
}

TEST(GraphDagStore, PastItsNodeBoundLaterDagsAreCountedNotHeld) {
  GraphDagStore store;
  store.Add(Dag(1, GraphDagStore::kMaxNodes - 10));
  store.Add(Dag(2, 11));  // one node too many
  store.Add(Dag(3, 10));  // fits exactly
  auto held = store.Snapshot();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[1]->graph_id, 3u);
  std::vector<std::pair<std::string, int64_t>> counters;
  store.AddCounters(&counters);
  EXPECT_EQ(Counter(counters, "graph_dags_dropped"), 1);
}

}  // namespace
}  // namespace nodescope
