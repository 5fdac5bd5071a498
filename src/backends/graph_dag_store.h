// The DAGs of the execs a backend has seen instantiated (model/graph_dag.h), held for the whole
// run so every trace, ring capture and streaming part can carry those of the execs its launches
// ran (the writer keeps the ones its records name). Bounded: past kMaxDags DAGs or kMaxNodes
// nodes in all, later DAGs are counted and not held.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "model/graph_dag.h"

namespace nodescope {

class GraphDagStore {
 public:
  static constexpr size_t kMaxDags = 65536;
  static constexpr size_t kMaxNodes = size_t{1} << 22;

  // Thread-safe; called by the thread that instantiated the exec (rare).
  void Add(GraphDag dag);
  // A DAG that could not be read (the driver refused a call, or too large).
  void CountUnreadable() { unreadable_.fetch_add(1, std::memory_order_relaxed); }

  // Every DAG held, by graph id ascending (shared: copies of a window share them).
  std::vector<std::shared_ptr<const GraphDag>> Snapshot() const;
  // "graph_dags_recorded", "graph_dags_dropped", "graph_dags_unreadable".
  void AddCounters(std::vector<std::pair<std::string, int64_t>>* counters) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<const GraphDag>> dags_;  // by graph id (execs arrive in id order)
  size_t nodes_ = 0;
  uint64_t dropped_ = 0;
  std::atomic<uint64_t> unreadable_{0};
};

}  // namespace nodescope
