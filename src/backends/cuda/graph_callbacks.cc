// CUPTI graph callbacks -> attribution lifecycle events.
#include "backends/cuda/graph_callbacks.h"

#include <charconv>
#include <cstddef>
#include <cstring>
#include <utility>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cupti_decoder.h"
#include "backends/cuda/cupti_status.h"
#include "backends/cuda/exec_dag.h"
#include "base/diagnostics.h"
#include "base/env.h"
#include "ranges/range_recorder.h"

namespace nodescope::cupti {
namespace {

// The graph API call in progress on this thread (outermost: a runtime call reaches the driver's
// own entry point, which must not be reported twice).
thread_local int t_api_depth = 0;
thread_local GraphApiKind t_api_kind = GraphApiKind::kNone;
thread_local uint64_t t_api_correlation = 0;
// When the outermost call began (cuptiGetTimestamp, the records' clock), for kChangesWork.
thread_local uint64_t t_api_start_ns = 0;
// The outermost call on this thread opened the sampling window (LaunchWindow::Begin).
thread_local bool t_window_open = false;
// An instantiation in progress on this thread (RecordDags): the template nodes cloned into the
// exec, with their clones' node ids, and the template graph (GRAPHEXEC_CREATED).
thread_local std::vector<std::pair<CUgraphNode, uint64_t>> t_clones;
thread_local CUgraph t_exec_template = nullptr;

uint64_t NodeId(CUgraphNode node) {
  uint64_t id = 0;
  return node != nullptr && cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}

bool DebugGraphCallbacks() {
  static const bool on = [] {
    bool flag = false;
    Status s = ReadEnvFlag("NODESCOPE_DEBUG_GRAPH_CALLBACKS", &flag);
    if (!s.ok()) LogWarning("env_value_ignored", "%s (ignored)", s.message().c_str());
    return flag;
  }();
  return on;
}

void Bump(std::atomic<uint64_t>& c) { c.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

GraphApiKind ClassifyGraphApi(std::string_view name) {
  name = StripApiVersionSuffix(name);
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  auto has = [&](std::string_view p) { return name.find(p) != std::string_view::npos; };
  if (starts("cuGraphInstantiate") || starts("cudaGraphInstantiate")) {
    return GraphApiKind::kCreatesExec;
  }
  if (starts("cuGraphNodeSetEnabled") || starts("cudaGraphNodeSetEnabled")) {
    return GraphApiKind::kChangesExec;
  }
  if (starts("cudaGraphUpload") || starts("cuGraphUpload")) return GraphApiKind::kUploadsExec;
  if (starts("cuGraphExec") || starts("cudaGraphExec")) {
    if (has("SetParams") || has("Update")) return GraphApiKind::kChangesWork;
    if (has("SetEvent")) return GraphApiKind::kChangesExec;
  }
  return GraphApiKind::kNone;
}

GraphApiKind ClassifyLaunchApi(std::string_view name) {
  name = StripApiVersionSuffix(name);
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  if (starts("cudaGraphLaunch") || starts("cuGraphLaunch")) return GraphApiKind::kGraphLaunch;
  // Host functions run no device work; everything else named cuLaunch*/cudaLaunch* does.
  if (starts("cudaLaunchHostFunc") || starts("cuLaunchHostFunc")) return GraphApiKind::kNone;
  if (starts("cudaLaunch") || starts("cuLaunch") || starts("cudaMemcpy") || starts("cuMemcpy") ||
      starts("cudaMemset") || starts("cuMemset")) {
    return GraphApiKind::kPlainLaunch;
  }
  return GraphApiKind::kNone;
}

// The flags' place, checked against CUDA 13.0's params structs: two pointers, then the flags or
// a pointer to a struct whose first member is the flags.
static_assert(offsetof(cudaGraphInstantiate_v12000_params, flags) == 2 * sizeof(void*));
static_assert(offsetof(cudaGraphInstantiateWithFlags_v11040_params, flags) == 2 * sizeof(void*));
static_assert(offsetof(cuGraphInstantiateWithFlags_params, flags) == 2 * sizeof(void*));
static_assert(offsetof(cudaGraphInstantiateWithParams_v12000_params, instantiateParams) ==
              2 * sizeof(void*));
static_assert(offsetof(cuGraphInstantiateWithParams_params, instantiateParams) ==
              2 * sizeof(void*));
static_assert(offsetof(cudaGraphInstantiateParams, flags) == 0);
static_assert(offsetof(CUDA_GRAPH_INSTANTIATE_PARAMS, flags) == 0);
static_assert(static_cast<int>(cudaGraphInstantiateFlagDeviceLaunch) ==
              static_cast<int>(CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
static_assert(static_cast<int>(cudaGraphInstantiateFlagUpload) ==
              static_cast<int>(CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));

InstantiateFlagsAt InstantiateFlagsPlace(std::string_view name) {
  const std::string_view bare = StripApiVersionSuffix(name);
  auto starts = [&](std::string_view p) { return bare.substr(0, p.size()) == p; };
  if (starts("cudaGraphInstantiateWithParams") || starts("cuGraphInstantiateWithParams")) {
    return InstantiateFlagsAt::kParamsStruct;
  }
  if (starts("cudaGraphInstantiateWithFlags") || starts("cuGraphInstantiateWithFlags")) {
    return InstantiateFlagsAt::kThirdParam;
  }
  // cudaGraphInstantiate took (exec, graph, error node, log, size) until CUDA 12's _v12000.
  if (bare == "cudaGraphInstantiate" || bare == "cudaGraphInstantiate_ptsz") {
    const size_t v = name.rfind("_v");
    uint32_t version = 0;
    if (v != std::string_view::npos) {
      std::from_chars(name.data() + v + 2, name.data() + name.size(), version);
    }
    return version >= 12000 ? InstantiateFlagsAt::kThirdParam : InstantiateFlagsAt::kNone;
  }
  return InstantiateFlagsAt::kNone;
}

uint64_t InstantiateFlags(InstantiateFlagsAt at, const void* params) {
  if (params == nullptr || at == InstantiateFlagsAt::kNone) return 0;
  const auto* third = static_cast<const unsigned char*>(params) + 2 * sizeof(void*);
  uint64_t flags = 0;
  if (at == InstantiateFlagsAt::kThirdParam) {
    std::memcpy(&flags, third, sizeof(flags));
    return flags;
  }
  const void* p = nullptr;
  std::memcpy(&p, third, sizeof(p));
  if (p != nullptr) std::memcpy(&flags, p, sizeof(flags));
  return flags;
}

void GraphCallbacks::NoteInstantiated(uint32_t exec_id, uint64_t flags) {
  if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) == 0) return;
  Bump(counts_.device_launch_execs);
  device_launch_execs_.Set(exec_id, true);
  if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) != 0) Bump(counts_.device_launch_uploads);
}

void GraphCallbacks::NoteUploaded(uint32_t exec_id) {
  if (device_launch_execs_.Has(exec_id)) Bump(counts_.device_launch_uploads);
}

Status GraphCallbacks::Enable(CUpti_SubscriberHandle subscriber) {
  RETURN_IF_ERROR(CheckCupti(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE),
                             "cuptiEnableDomain(RESOURCE)"));
  struct Domain {
    CUpti_CallbackDomain domain;
    uint32_t size;
    std::vector<GraphApiKind>* kinds;
  };
  for (const Domain& d :
       {Domain{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, &runtime_api_kind_},
        Domain{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, &driver_api_kind_}}) {
    d.kinds->assign(d.size, GraphApiKind::kNone);
    for (uint32_t cbid = 1; cbid < d.size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(d.domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
      GraphApiKind kind = ClassifyGraphApi(name);
      if (kind == GraphApiKind::kNone && sampler_ != nullptr) kind = ClassifyLaunchApi(name);
      if (kind == GraphApiKind::kNone) continue;
      const std::string_view bare = StripApiVersionSuffix(name);
      if (bare == "cudaGraphNodeSetEnabled" || bare == "cuGraphNodeSetEnabled") {
        set_enabled_calls_.emplace_back(d.domain, cbid);
      }
      RETURN_IF_ERROR(
          CheckCupti(cuptiEnableCallback(1, subscriber, d.domain, cbid), "cuptiEnableCallback"));
      ListenTo(d.domain, cbid, kind, InstantiateFlagsPlace(name));
    }
  }
  return OkStatus();
}

void GraphCallbacks::ListenTo(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, GraphApiKind kind,
                              InstantiateFlagsAt flags_at) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  std::vector<GraphApiKind>& kinds = runtime ? runtime_api_kind_ : driver_api_kind_;
  if (kinds.size() <= cbid) kinds.resize(cbid + 1, GraphApiKind::kNone);
  kinds[cbid] = kind;
  std::vector<InstantiateFlagsAt>& at = runtime ? runtime_flags_at_ : driver_flags_at_;
  if (at.size() <= cbid) at.resize(cbid + 1, InstantiateFlagsAt::kNone);
  at[cbid] = flags_at;
}

void GraphCallbacks::OnGraphNode(CUpti_CallbackId cbid, const CUpti_GraphData& g) {
  if (DebugGraphCallbacks()) {
    uint32_t exec_id = 0;
    if (g.graphExec != nullptr) cuptiGetGraphExecId(g.graphExec, &exec_id);
    LogDebug("graph_callback",
             "cbid=%u node=%llx original=%llx exec=%u api_kind=%u api_corr=%llu range=%llu",
             static_cast<unsigned>(cbid), static_cast<unsigned long long>(NodeId(g.node)),
             static_cast<unsigned long long>(NodeId(g.originalNode)), exec_id,
             static_cast<unsigned>(t_api_kind), static_cast<unsigned long long>(t_api_correlation),
             static_cast<unsigned long long>(RangeRecorder::Get().CurrentRange()));
  }
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
      // Stream capture or explicit creation: the innermost open range is the node's scope.
      stage_->TemplateNodeCreated(NodeId(g.node), RangeRecorder::Get().CurrentRange());
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      if (t_api_kind == GraphApiKind::kCreatesExec) {
        stage_->ExecNodeBound(NodeId(g.node), NodeId(g.originalNode), t_api_correlation);
        if (dags_ != nullptr && g.originalNode != nullptr) {
          t_clones.emplace_back(g.originalNode, NodeId(g.node));
        }
      } else {
        stage_->TemplateNodeCloned(NodeId(g.node), NodeId(g.originalNode));  // cudaGraphClone
      }
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
      // cudaGraphExecUpdate: the exec node now runs the new graph's node. Observed on the H200
      // (CUDA 13.0): `node` is the new graph's node and `originalNode` the exec's node.
      if (g.originalNode != nullptr) {
        stage_->ExecNodeBound(NodeId(g.originalNode), NodeId(g.node), t_api_correlation);
      }
      break;
    default:
      break;
  }
}

void GraphCallbacks::OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  switch (cbid) {
    // Context/stream/module callbacks carry other descriptors: only these carry CUpti_GraphData.
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
      if (data.resourceDescriptor != nullptr) {
        OnGraphNode(cbid, *static_cast<const CUpti_GraphData*>(data.resourceDescriptor));
      }
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
      if (dags_ != nullptr && data.resourceDescriptor != nullptr &&
          t_api_kind == GraphApiKind::kCreatesExec) {
        t_exec_template = static_cast<const CUpti_GraphData*>(data.resourceDescriptor)->graph;
      }
      break;
    default:
      break;
  }
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
      Bump(counts_.graphs_created);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
      Bump(counts_.graphs_cloned);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      Bump(counts_.nodes_cloned);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
      Bump(counts_.execs_created);
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING:
      Bump(counts_.execs_destroyed);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
      Bump(counts_.nodes_updated);
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
      Bump(counts_.node_params_set);
      break;
    default:
      break;
  }
}

void GraphCallbacks::OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                           const CUpti_CallbackData& data) {
  const std::vector<GraphApiKind>& kinds =
      domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_api_kind_ : driver_api_kind_;
  const GraphApiKind kind = cbid < kinds.size() ? kinds[cbid] : GraphApiKind::kNone;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (t_api_depth++ == 0) {
      t_api_kind = kind;
      t_api_correlation = data.correlationId;
      // 0 when CUPTI cannot tell: every later body record of the exec is then withheld.
      if (kind == GraphApiKind::kChangesWork &&
          cuptiGetTimestamp(&t_api_start_ns) != CUPTI_SUCCESS) {
        t_api_start_ns = 0;
      }
      if (kind == GraphApiKind::kGraphLaunch || kind == GraphApiKind::kPlainLaunch) {
        OnLaunchEnter(kind, data);
      }
    }
    return;
  }
  if (t_api_depth > 0 && --t_api_depth > 0) return;
  t_api_kind = GraphApiKind::kNone;
  // What an instantiation left for its DAG, used below or dropped (a failed call).
  std::vector<std::pair<CUgraphNode, uint64_t>> clones;
  clones.swap(t_clones);
  CUgraph exec_template = std::exchange(t_exec_template, nullptr);
  if (t_window_open) {
    t_window_open = false;
    window_->End();
  }
  if (kind != GraphApiKind::kCreatesExec && kind != GraphApiKind::kChangesExec &&
      kind != GraphApiKind::kChangesWork && kind != GraphApiKind::kUploadsExec) {
    return;
  }
  // cudaError_t and CUresult are both int-sized enums where 0 means success.
  if (data.functionReturnValue == nullptr ||
      *static_cast<const int*>(data.functionReturnValue) != 0 || data.functionParams == nullptr) {
    return;
  }
  // Every one of these calls takes the exec first: by pointer when it creates it.
  void* first = *static_cast<void* const*>(data.functionParams);
  CUgraphExec exec = kind == GraphApiKind::kCreatesExec
                         ? (first != nullptr ? *static_cast<CUgraphExec*>(first) : nullptr)
                         : static_cast<CUgraphExec>(first);
  uint32_t exec_id = 0;
  if (exec == nullptr || cuptiGetGraphExecId(exec, &exec_id) != CUPTI_SUCCESS) return;
  if (kind == GraphApiKind::kUploadsExec) {
    NoteUploaded(exec_id);
  } else if (kind == GraphApiKind::kCreatesExec) {
    const std::vector<InstantiateFlagsAt>& at =
        domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_flags_at_ : driver_flags_at_;
    NoteInstantiated(exec_id,
                     InstantiateFlags(cbid < at.size() ? at[cbid] : InstantiateFlagsAt::kNone,
                                      data.functionParams));
    stage_->ExecCreated(exec_id, data.correlationId);
    if (dags_ != nullptr && exec_template != nullptr) RecordDag(exec_id, exec_template, clones);
  } else {
    stage_->ExecChanged(exec_id, data.correlationId);
    if (kind == GraphApiKind::kChangesWork) stage_->ExecWorkChanged(exec_id, t_api_start_ns);
    // A disabled kernel, copy or fill may have been a conditional node's recorded lead.
    if (proofs_ != nullptr) {
      for (const auto& [d, c] : set_enabled_calls_) {
        if (d == domain && c == cbid) proofs_->Set(exec_id, false);
      }
    }
  }
}

void GraphCallbacks::RecordDag(uint32_t exec_id, CUgraph exec_template,
                               std::vector<std::pair<CUgraphNode, uint64_t>>& clones) {
  TemplateGraph graph;
  Status read = ReadTemplateGraph(Driver(), exec_template, &graph);
  if (!read.ok()) {
    dags_->CountUnreadable();
    if (proofs_ != nullptr) proofs_->Set(exec_id, false);
    NODESCOPE_WARN_ONCE("graph_dag_unreadable", "an exec's DAG could not be read: %s",
                        read.message().c_str());
    return;
  }
  // Decided on the template's own shape: a conditional node CUPTI did not report cloned would
  // be spliced out of the exec's DAG.
  if (proofs_ != nullptr) proofs_->Set(exec_id, ProvesBodyOwner(TemplateShape(graph)));
  dags_->Add(BuildExecDag(exec_id, graph, std::move(clones)));
}

void GraphCallbacks::OnLaunchEnter(GraphApiKind kind, const CUpti_CallbackData& data) {
  if (sampler_ == nullptr || window_ == nullptr) return;
  // Another thread's launch may hold the kinds on: this one is then instrumented whatever is
  // decided, and holds the window open until it returns too (launch_sampler.h, "Overlaps").
  const bool open = window_->IsOpen();
  LaunchSampler::Decision d;
  if (kind == GraphApiKind::kGraphLaunch) {
    // cudaGraphLaunch and cuGraphLaunch (and their per-thread-stream forms) take the exec first.
    uint32_t exec_id = UINT32_MAX;  // unknown: sampled at random only, never guarded
    CUgraphExec exec = data.functionParams != nullptr
                           ? *static_cast<const CUgraphExec*>(data.functionParams)
                           : nullptr;
    if (exec == nullptr || cuptiGetGraphExecId(exec, &exec_id) != CUPTI_SUCCESS) {
      exec_id = UINT32_MAX;
    }
    d = sampler_->SampleGraphLaunch(exec_id, open);
  } else {
    d = sampler_->SamplePlainLaunch(open);
  }
  if (d == LaunchSampler::Decision::kSkip) return;
  // Guards and overlaps are instrumented but not added: the decoder discards their records.
  if (d == LaunchSampler::Decision::kKeep && kept_ != nullptr) kept_->Add(data.correlationId);
  window_->Begin();
  t_window_open = true;
}

void GraphCallbacks::AddCounters(Trace* trace) const {
  auto add = [trace](const char* name, const std::atomic<uint64_t>& c) {
    trace->counters.emplace_back(name, static_cast<int64_t>(c.load(std::memory_order_relaxed)));
  };
  add("graphs_created", counts_.graphs_created);
  add("graph_execs_created", counts_.execs_created);
  add("graph_execs_destroyed", counts_.execs_destroyed);
  add("graph_nodes_cloned", counts_.nodes_cloned);
  add("graph_nodes_updated", counts_.nodes_updated);
  add("graph_node_params_set", counts_.node_params_set);
  add("device_launch_execs_created", counts_.device_launch_execs);
  add("device_launch_exec_uploads", counts_.device_launch_uploads);
}

}  // namespace nodescope::cupti
