// CUPTI's graph callbacks -> the attribution stage's lifecycle events. Resource callbacks (node
// created, cloned, updated) give capture-time ranges; runtime/driver API callbacks on the calls
// that create or change an exec give the exec lifecycle, with the call's correlation id.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "attribution/stage.h"
#include "base/status.h"
#include "model/trace.h"

namespace nodescope::cupti {

enum class GraphApiKind : uint8_t { kNone = 0, kCreatesExec = 1, kChangesExec = 2 };
// By name, so new CUDA versions' variants (_v2, _ptsz, ...) are caught without a cbid list.
GraphApiKind ClassifyGraphApi(std::string_view name);

class GraphCallbacks {
 public:
  // `stage` must outlive this object; it receives every lifecycle event. Application threads
  // call OnResource()/OnApi() concurrently: counts are atomics, the stage's calls thread-safe.
  explicit GraphCallbacks(AttributionStage* stage) : stage_(stage) {}

  // Enables the RESOURCE domain and the graph API callbacks this class listens to.
  Status Enable(CUpti_SubscriberHandle subscriber);

  void OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& data);
  void OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data);

  // Writes how many graphs, execs and node changes were seen into trace->counters.
  void AddCounters(Trace* trace) const;

 private:
  void OnGraphNode(CUpti_CallbackId cbid, const CUpti_GraphData& graph);

  struct Counts {
    std::atomic<uint64_t> graphs_created{0};
    std::atomic<uint64_t> graphs_cloned{0};
    std::atomic<uint64_t> nodes_cloned{0};
    std::atomic<uint64_t> execs_created{0};
    std::atomic<uint64_t> execs_destroyed{0};
    std::atomic<uint64_t> nodes_updated{0};
    std::atomic<uint64_t> node_params_set{0};
  };

  AttributionStage* stage_;
  // Per cbid, filled by Enable() before any callback can arrive.
  std::vector<GraphApiKind> runtime_api_kind_;
  std::vector<GraphApiKind> driver_api_kind_;
  Counts counts_;
};

}  // namespace nodescope::cupti
