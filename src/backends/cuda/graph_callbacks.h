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
  kChangesExec = 2,  // in place, what nodes run kept: enable/disable, an event node's event
  kGraphLaunch = 3,  // listened to only when sampling
  kPlainLaunch = 4,  // a kernel launch, copy or fill outside a graph; only when sampling
  kUploadsExec = 5,  // cudaGraphUpload / cuGraphUpload
  kChangesWork = 6,  // in place, what nodes run may change: exec update, set-params
};
// By name, so new CUDA versions' variants (_v2, _ptsz, ...) are caught without a cbid list.
GraphApiKind ClassifyGraphApi(std::string_view name);
// The calls that put work on the device: graph launches, kernel launches, copies and fills.
GraphApiKind ClassifyLaunchApi(std::string_view name);

// Where an instantiate call's flags are (cudaGraphInstantiateFlags / CUgraphInstantiate_flags):
// every such call's params start with the exec pointer and the graph; then the flags
// (cudaGraphInstantiate from _v12000, ...WithFlags), or a pointer to a struct that starts with
// them (...WithParams), or none (cudaGraphInstantiate_v10000, cuGraphInstantiate_v2).
enum class InstantiateFlagsAt : uint8_t { kNone = 0, kThirdParam = 1, kParamsStruct = 2 };
InstantiateFlagsAt InstantiateFlagsPlace(std::string_view name);  // by name, version included
// The flags of a call's params (CUpti_CallbackData::functionParams); 0 when there are none.
uint64_t InstantiateFlags(InstantiateFlagsAt at, const void* params);

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
  void ProveBodyOwners(ExecIdBits* proofs) { proofs_ = proofs; }

  // Enables the RESOURCE domain and the graph API callbacks this class listens to (and the
  // launch calls, when sampling).
  Status Enable(CUpti_SubscriberHandle subscriber);

  // Records what `cbid` of `domain` is (Enable() does this for every call it enables).
  void ListenTo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, GraphApiKind kind,
                InstantiateFlagsAt flags_at = InstantiateFlagsAt::kNone);

  // Device-launched graphs: CUPTI records none of their nodes on Hopper (CUDA 13.0), so what the
  // host side shows of them is counted. An exec instantiated with `flags` (and uploaded by the
  // instantiation with cudaGraphInstantiateFlagUpload), and an upload of exec `exec_id`.
  void NoteInstantiated(uint32_t exec_id, uint64_t flags);
  void NoteUploaded(uint32_t exec_id);

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
    std::atomic<uint64_t> device_launch_execs{0};    // instantiated for device launch
    std::atomic<uint64_t> device_launch_uploads{0};  // their uploads (call or instantiate flag)
  };

  void OnLaunchEnter(GraphApiKind kind, const CUpti_CallbackData& data);

  AttributionStage* stage_;
  LaunchSampler* sampler_ = nullptr;
  LaunchWindow* window_ = nullptr;
  CorrelationSet* kept_ = nullptr;
  GraphDagStore* dags_ = nullptr;
  ExecIdBits* proofs_ = nullptr;
  // cudaGraphNodeSetEnabled / cuGraphNodeSetEnabled: (domain, cbid), filled by Enable().
  std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>> set_enabled_calls_;
  // Per cbid, filled by Enable() before any callback can arrive.
  std::vector<GraphApiKind> runtime_api_kind_;
  std::vector<GraphApiKind> driver_api_kind_;
  std::vector<InstantiateFlagsAt> runtime_flags_at_;
  std::vector<InstantiateFlagsAt> driver_flags_at_;
  ExecIdBits device_launch_execs_;  // exec ids instantiated for device launch
  Counts counts_;
};

}  // namespace nodescope::cupti
