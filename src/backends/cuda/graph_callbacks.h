// CUPTI's graph callbacks -> the attribution stage's lifecycle events. Resource callbacks (node
// created, cloned, updated) give capture-time ranges; runtime/driver API callbacks on the calls
// that create or change an exec give the exec lifecycle, with the call's correlation id.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "attribution/stage.h"
#include "backends/correlation_set.h"
#include "backends/cuda/conditional_bodies.h"
#include "backends/graph_dag_store.h"
#include "backends/launch_sampler.h"
#include "base/status.h"
#include "model/trace.h"

namespace nodescope::cupti {

enum class GraphApiKind : uint8_t {
  kNone = 0,
  kCreatesExec = 1,
  kChangesExec = 2,
  kGraphLaunch = 3,  // listened to only when sampling
  kPlainLaunch = 4,  // a kernel launch, copy or fill outside a graph; only when sampling
};
// By name, so new CUDA versions' variants (_v2, _ptsz, ...) are caught without a cbid list.
GraphApiKind ClassifyGraphApi(std::string_view name);
// The calls that put work on the device: graph launches, kernel launches, copies and fills.
GraphApiKind ClassifyLaunchApi(std::string_view name);

// What a sampled launch opens and closes around its API call (SampledActivity in the tracer).
class LaunchWindow {
 public:
  virtual ~LaunchWindow() = default;
  virtual void Begin() = 0;
  virtual void End() = 0;
  // Whether another launch holds the window open now (a lock-free read).
  virtual bool IsOpen() const = 0;
};

class GraphCallbacks {
 public:
  // `stage` must outlive this object; it receives every lifecycle event. Application threads
  // call OnResource()/OnApi() concurrently: counts are atomics, the stage's calls thread-safe.
  explicit GraphCallbacks(AttributionStage* stage) : stage_(stage) {}
  // Sampling: launch calls are listened to as well, and `window` is opened around each one
  // `sampler` picks. Both must outlive this object. Call before Enable().
  // The correlation ids of picked launches go into `kept` (the decoder keeps only their records).
  GraphCallbacks(AttributionStage* stage, LaunchSampler* sampler, LaunchWindow* window,
                 CorrelationSet* kept)
      : stage_(stage), sampler_(sampler), window_(window), kept_(kept) {}

  // Records each exec's DAG (exec_dag.h) into `store` when it is instantiated. Call before
  // Enable(); `store` must outlive this object.
  void RecordDags(GraphDagStore* store) { dags_ = store; }
  // Sampling with DAGs: whether each exec's DAG proves its conditional bodies' launch
  // (conditional_bodies.h) goes into `proofs`, cleared when a node of the exec is enabled or
  // disabled. Call before Enable(); `proofs` must outlive this object.
  void ProveBodyOwners(LeadProofs* proofs) { proofs_ = proofs; }

  // Enables the RESOURCE domain and the graph API callbacks this class listens to (and the
  // launch calls, when sampling).
  Status Enable(CUpti_SubscriberHandle subscriber);

  // Records what `cbid` of `domain` is (Enable() does this for every call it enables).
  void ListenTo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, GraphApiKind kind);

  void OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  void OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);

  // Writes how many graphs, execs and node changes were seen into trace->counters.
  void AddCounters(Trace* trace) const;

 private:
  void OnGraphNode(CUpti_CallbackId cbid, const CUpti_GraphData& graph);
  // At a successful instantiate's exit, on its thread: the DAG of `exec_id` into dags_.
  void RecordDag(uint32_t exec_id, CUgraph exec_template,
                 std::vector<std::pair<CUgraphNode, uint64_t>>& clones);

  struct Counts {
    std::atomic<uint64_t> graphs_created{0};
    std::atomic<uint64_t> graphs_cloned{0};
    std::atomic<uint64_t> nodes_cloned{0};
    std::atomic<uint64_t> execs_created{0};
    std::atomic<uint64_t> execs_destroyed{0};
    std::atomic<uint64_t> nodes_updated{0};
    std::atomic<uint64_t> node_params_set{0};
  };

  void OnLaunchEnter(GraphApiKind kind, const CUpti_CallbackData& data);

  AttributionStage* stage_;
  LaunchSampler* sampler_ = nullptr;
  LaunchWindow* window_ = nullptr;
  CorrelationSet* kept_ = nullptr;
  GraphDagStore* dags_ = nullptr;
  LeadProofs* proofs_ = nullptr;
  // cudaGraphNodeSetEnabled / cuGraphNodeSetEnabled: (domain, cbid), filled by Enable().
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> set_enabled_calls_;
  // Per cbid, filled by Enable() before any callback can arrive.
  std::vector<GraphApiKind> runtime_api_kind_;
  std::vector<GraphApiKind> driver_api_kind_;
  Counts counts_;
};

}  // namespace nodescope::cupti
