// The run's exec DAGs (graph_dag_store.h).
#include "backends/graph_dag_store.h"

#include <algorithm>

namespace nodescope {

void GraphDagStore::Add(GraphDag dag) {
  auto held = std::make_shared<const GraphDag>(std::move(dag));
  std::lock_guard<std::mutex> lock(mu_);
  if (dags_.size() >= kMaxDags || nodes_ + held->nodes.size() > kMaxNodes) {
    ++dropped_;
    return;
  }
  nodes_ += held->nodes.size();
  const uint64_t id = held->graph_id;
  auto at = std::upper_bound(dags_.begin(), dags_.end(), id,
                             [](uint64_t v, const auto& d) { return v < d->graph_id; });
  dags_.insert(at, std::move(held));
}

std::vector<std::shared_ptr<const GraphDag>> GraphDagStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dags_;
}

void GraphDagStore::AddCounters(std::vector<std::pair<std::string, int64_t>>* counters) const {
  std::lock_guard<std::mutex> lock(mu_);
  counters->emplace_back("graph_dags_recorded", static_cast<int64_t>(dags_.size()));
  counters->emplace_back("graph_dags_dropped", static_cast<int64_t>(dropped_));
  counters->emplace_back("graph_dags_unreadable",
                         static_cast<int64_t>(unreadable_.load(std::memory_order_relaxed)));
}

}  // namespace nodescope
