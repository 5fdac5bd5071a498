// The cuda backend's tracer: CUPTI's part of the skeleton.
#include "backends/cuda/cupti_tracer.h"

#include <string>

#include "backends/cuda/cuda_driver.h"
#include "backends/cuda/cupti_status.h"
#include "backends/cuda/environment.h"
#include "base/clock.h"
#include "ranges/range_recorder.h"

namespace nodescope::cupti {
namespace {

ActiveTracer<CuptiTracer> g_active;
// CUPTI's buffer callbacks carry no user pointer; the active tracer is process-global.
std::atomic<BufferPool*> g_pool{nullptr};

const char* ApiNameFromCupti(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) return nullptr;
  return name;
}

uint64_t CUPTIAPI TraceClock() { return NowNs(); }

// User ranges become CUPTI external correlation ids (CUSTOM1, as kineto uses for annotations):
// every API call made inside a range is then linked to it by an EXTERNAL_CORRELATION record.
void RangePushed(uint64_t range_id) {
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, range_id);
}
void RangePopped(uint64_t) {
  uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &last);
}
const RangeRecorder::Listener kRangeListener{&RangePushed, &RangePopped};

// What a launch puts on the device and the API records that link it to its call: enabled for
// the whole session, or, when sampling, around sampled launches only (SampledActivity).
std::vector<CUpti_ActivityKind> DeviceActivityKinds(const TracerOptions& options) {
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                           CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                           CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME};
  if (options.trace_driver_api) kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  return kinds;
}

// The header's account of a sampled trace (model/trace.h), from the sampler's counts.
SamplingInfo SamplingOf(const LaunchSampler& sampler) {
  const LaunchSampler::Counts c = sampler.counts();
  SamplingInfo s;
  s.every = sampler.every();
  s.burst = sampler.burst();
  s.graph_launches = c.graph_launches;
  s.graph_launches_traced = c.graph_launches_kept;
  s.plain_launches = c.plain_launches;
  s.plain_launches_traced = c.plain_launches_kept;
  s.graph_launches_discarded = c.graph_guards + c.graph_overlaps;
  s.plain_launches_discarded = c.plain_overlaps;
  return s;
}

}  // namespace

CuptiTracer::CuptiTracer() : BackendTracer(NODESCOPE_BACKEND_NAME, &kRangeListener) {}

CuptiTracer::~CuptiTracer() {
  if (running()) (void)Stop();
}

// Takes no tracer lock: CUPTI may call this while holding its own, and a completion holding the
// decode lock calls into CUPTI. The pool counts refusals itself.
void CUPTIAPI CuptiTracer::BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;
  BufferPool* pool = g_pool.load(std::memory_order_acquire);
  BufferPool::Buffer b = pool != nullptr ? pool->Request() : BufferPool::Buffer{};
  *buffer = b.data;
  *size = b.size;
}

void CUPTIAPI CuptiTracer::BufferCompleted(CUcontext ctx, uint32_t stream_id, uint8_t* buffer,
                                           size_t /*size*/, size_t valid_size) {
  CuptiTracer* t = g_active.get();
  if (t != nullptr && buffer != nullptr) {
    t->DecodeBatch([&] { t->decoder_->DecodeBuffer(buffer, valid_size); });  // CUPTI's keys
    size_t dropped = 0;  // asked with no lock held
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) {
      t->AddVendorDropped(dropped);
    }
  }
  if (buffer != nullptr) {
    if (BufferPool* pool = g_pool.load(std::memory_order_acquire)) pool->Complete(buffer);
  }
}

void CUPTIAPI CuptiTracer::OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                      CUpti_CallbackId cbid, const void* data) {
  auto* self = static_cast<CuptiTracer*>(userdata);
  if (data == nullptr || self->graph_callbacks_ == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    self->graph_callbacks_->OnResource(cbid, *static_cast<const CUpti_ResourceData*>(data));
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    self->graph_callbacks_->OnApi(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
  }
}

Status CuptiTracer::StartCollection(const TracerOptions& options) {
  RETURN_IF_ERROR(g_active.Claim(this, "CUPTI"));
  // Refusing a buffer is only safe from CUPTI API version 27; unknown counts as older.
  uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) != CUPTI_SUCCESS) cupti_version = 0;
  pool_ = std::make_unique<BufferPool>(options.buffer_bytes, options.max_buffers, cupti_version);
  g_pool.store(pool_.get(), std::memory_order_release);
  stage_ = MakeNativeIdStage(options.graph_attribution);
  if (options.sample_every > 1) {
    sampler_ = std::make_unique<LaunchSampler>(options.sample_every, LaunchSampler::kDefaultSeed,
                                               options.sample_burst);
    sampled_ = std::make_unique<SampledActivity>(DeviceActivityKinds(options));
    kept_ = std::make_unique<CorrelationSet>();
    graph_callbacks_ =
        std::make_unique<GraphCallbacks>(stage_.get(), sampler_.get(), sampled_.get(), kept_.get());
  } else {
    graph_callbacks_ = std::make_unique<GraphCallbacks>(stage_.get());
  }
  // Each exec's DAG (the critical path's input), unless graph attribution is off.
  const bool dags = options.graph_attribution && Driver().can_read_graphs();
  if (dags) graph_callbacks_->RecordDags(graph_dags());
  set_records_graph_dags(dags);
  // Conditional bodies in sampled mode: kept with their launch where its DAG proves which launch
  // ran them (conditional_bodies.h); without DAGs every body is withheld and counted.
  if (sampler_ != nullptr) {
    lead_proofs_ = std::make_unique<ExecIdBits>();
    if (dags) graph_callbacks_->ProveBodyOwners(lead_proofs_.get());
  }
  decoder_.emplace(&trace(), options.max_events, &ApiNameFromCupti);
  decoder_->KeepOnly(kept_.get(), lead_proofs_.get());
  set_stage(stage_.get());

  Status s = Subscribe(options);
  if (!s.ok()) {
    Unsubscribe();
    g_active.Release();
  }
  return s;
}

namespace {

// Why CUPTI could not subscribe, when the reason is no driver or no GPU: CUPTI itself says only
// CUPTI_ERROR_UNKNOWN then (an in-process session on a machine without a GPU).
Status NoDeviceReason(const Status& subscribe_failed) {
  if (subscribe_failed.code() == StatusCode::kAlreadyExists) return subscribe_failed;
  const CudaDriver& cu = Driver();
  std::string why;
  int n = 0;
  if (!cu.ok()) {
    why = "no CUDA driver found (";
    why += cu.load_error;
    why += ")";
  } else if (cu.cuInit(0) != CUDA_SUCCESS) {
    why = "the CUDA driver failed to initialise: is an NVIDIA GPU present?";
  } else if (cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) {
    why = "the CUDA driver reports no CUDA-capable device";
  } else {
    return subscribe_failed;
  }
  why += " (";
  why += subscribe_failed.message();
  why += ")";
  return UnavailableError(why);
}

}  // namespace

Status CuptiTracer::Subscribe(const TracerOptions& options) {
  Status s =
      CheckCupti(cuptiSubscribe(&subscriber_, &CuptiTracer::OnCallback, this), "cuptiSubscribe");
  if (!s.ok()) {
    subscriber_ = nullptr;
    return NoDeviceReason(s);
  }
  // Graph lifecycle for attribution, and instantiate boundaries for capture-time ranges.
  RETURN_IF_ERROR(graph_callbacks_->Enable(subscriber_));
  // One clock for CPU and GPU: CUPTI stamps records with ours. System thread ids, like gettid.
  RETURN_IF_ERROR(CheckCupti(cuptiActivityRegisterTimestampCallback(&TraceClock),
                             "cuptiActivityRegisterTimestampCallback"));
  RETURN_IF_ERROR(CheckCupti(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM),
                             "cuptiSetThreadIdType"));
  RETURN_IF_ERROR(CheckCupti(cuptiActivityRegisterCallbacks(&BufferRequested, &BufferCompleted),
                             "cuptiActivityRegisterCallbacks"));
  // Device-launched graphs' records (cupti_activity.h: before CUDA initialises; measured on the
  // H100 with CUDA 13.0: accepted before, in InitializeInjection and late alike, and no per-node
  // record of a device-launched graph came either way). Asked for anyway: a CUPTI or GPU that
  // delivers them marks them isDeviceLaunched, and the header counts them.
  device_graph_requested_ =
      options.device_graphs && cuptiActivityEnableDeviceGraph(1) == CUPTI_SUCCESS;
  // Sampling: the device and API kinds are switched on around sampled launches only.
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  if (sampled_ == nullptr) {
    for (CUpti_ActivityKind k : DeviceActivityKinds(options)) kinds.push_back(k);
  }
  for (CUpti_ActivityKind k : kinds) {
    s = CheckCupti(cuptiActivityEnable(k), "cuptiActivityEnable");
    if (!s.ok()) {
      return Status(s.code(), s.message() + " (kind " + std::to_string(static_cast<int>(k)) + ")");
    }
    enabled_.push_back(k);
  }
  return OkStatus();
}

void CuptiTracer::Unsubscribe() {
  if (sampled_ != nullptr) sampled_->Close();
  for (CUpti_ActivityKind k : enabled_) cuptiActivityDisable(k);
  enabled_.clear();
  if (subscriber_ != nullptr) {
    cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
  }
}

Status CuptiTracer::StopCollection() {
  // Work still queued on the calling thread's context would otherwise be lost from the trace.
  const CudaDriver& cu = Driver();
  CUcontext ctx = nullptr;
  if (cu.ok() && cu.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr) {
    (void)cu.cuCtxSynchronize();
  }
  Status flushed =
      CheckCupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  Unsubscribe();
  // Every record is in: the conditional bodies still waiting for evidence are decided now.
  DecodeBatch([&] { decoder_->SettleBodies(); });
  // Records dropped with no context/stream to report them against; asked with no lock held.
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    AddVendorDropped(dropped);
  }
  if (flushed.ok() && sampled_ != nullptr) flushed = sampled_->status();
  // The pool stays alive with the tracer: CUPTI may still hold a buffer it never returns.
  g_active.Release();
  return flushed;
}

// The pool's refusals, the graph callbacks' counters and whether it was sampled, in a window as
// at Stop(); at Stop() the buffers allocated and the sampler's counts besides.
void CuptiTracer::AddCounters(Trace* trace, bool at_stop) {
  trace->drops.buffers_refused += pool_->refused();
  graph_callbacks_->AddCounters(trace);
  AddDeviceGraphCounters(trace);
  if (sampler_ != nullptr) trace->sampling = SamplingOf(*sampler_);
  if (!at_stop) {
    // A window: bodies still held for evidence are in a later window or the trace at Stop().
    if (const ConditionalBodies* b = decoder_->bodies(); b != nullptr && b->pending() > 0) {
      trace->counters.emplace_back("sampling_body_records_pending",
                                   static_cast<int64_t>(b->pending()));
    }
    return;
  }
  trace->counters.emplace_back("activity_buffers_allocated",
                               static_cast<int64_t>(pool_->allocated()));
  // Buffers handed out past the bound because this CUPTI cannot take a refusal (before 27).
  if (pool_->overflowed() > 0) {
    trace->counters.emplace_back("activity_buffers_overflowed",
                                 static_cast<int64_t>(pool_->overflowed()));
  }
  if (sampler_ != nullptr) {
    const LaunchSampler::Counts c = sampler_->counts();
    trace->counters.emplace_back("sampling_windows", static_cast<int64_t>(sampled_->windows()));
    trace->counters.emplace_back("sampling_guard_launches", static_cast<int64_t>(c.graph_guards));
    trace->counters.emplace_back("sampling_overlapping_launches",
                                 static_cast<int64_t>(c.graph_overlaps + c.plain_overlaps));
    trace->counters.emplace_back("sampling_records_discarded",
                                 static_cast<int64_t>(decoder_->discarded()));
    AddBodyCounters(trace);
    if (c.untracked_execs > 0) {
      trace->counters.emplace_back("sampling_untracked_exec_launches",
                                   static_cast<int64_t>(c.untracked_execs));
    }
  }
}

// Device-launched graphs: whether CUPTI was asked for their records, whether any per-node record
// of one came (none does on Hopper with CUDA 13.0: README, "What CUPTI cannot see"), and the
// per-execution records of CUPTI_ACTIVITY_KIND_DEVICE_GRAPH_TRACE by launch mode.
void CuptiTracer::AddDeviceGraphCounters(Trace* trace) const {
  const CuptiDecoder::DeviceGraphCounts& c = decoder_->device_graph_counts();
  auto add = [trace](const char* name, uint64_t n) {
    trace->counters.emplace_back(name, static_cast<int64_t>(n));
  };
  add("device_graph_collection_requested", device_graph_requested_ ? 1 : 0);
  add("device_graph_node_tracing", c.device_launched_records > 0 ? 1 : 0);
  add("device_launched_records", c.device_launched_records);
  if (c.device_graph_traces == 0) return;
  add("device_graph_traces", c.device_graph_traces);
  add("device_graph_traces_fire_and_forget", c.device_graph_traces_by_mode[1]);
  add("device_graph_traces_tail", c.device_graph_traces_by_mode[2]);
  add("device_graph_traces_sibling", c.device_graph_traces_by_mode[3]);
  add("device_graph_traces_unknown_mode", c.device_graph_traces_by_mode[0]);
  add("device_graph_trace_ns", c.device_graph_trace_ns);
}

// Conditional bodies' correlation-0 records in sampled mode (conditional_bodies.h): kept with a
// kept launch, discarded with a guard or an overlap (also in sampling_records_discarded), or
// withheld, by reason. Written when any was seen.
void CuptiTracer::AddBodyCounters(Trace* trace) const {
  const ConditionalBodies* b = decoder_->bodies();
  if (b == nullptr) return;
  const ConditionalBodies::Counts& c = b->counts();
  const uint64_t withheld =
      c.withheld_unproven + c.withheld_no_launch + c.withheld_forgotten + c.withheld_pending_full;
  if (c.kept + c.discarded + withheld == 0) return;
  auto add = [trace](const char* name, uint64_t n) {
    trace->counters.emplace_back(name, static_cast<int64_t>(n));
  };
  add("sampling_body_records_kept", c.kept);
  add("sampling_body_records_discarded", c.discarded);
  add("sampling_body_records_withheld_unproven", c.withheld_unproven);
  add("sampling_body_records_withheld_no_launch", c.withheld_no_launch);
  add("sampling_body_records_withheld_forgotten", c.withheld_forgotten);
  add("sampling_body_records_withheld_pending_full", c.withheld_pending_full);
}

void CuptiTracer::Describe(Trace* trace) { CollectEnvironment(trace); }

// Called with no nodescope lock held: the completions it causes take the decode lock.
// Flag 0 on purpose (cupti_activity.h, cuptiActivityFlushAll): a default flush returns every
// buffer whose records are all complete, full or not; only a buffer holding a record of work
// still running stays with CUPTI until a later flush. A forced flush would hand that record over
// incomplete, and it would never come back complete for the next capture or the trace at exit.
Status CuptiTracer::Flush() {
  return CheckCupti(cuptiActivityFlushAll(0), "cuptiActivityFlushAll");
}

namespace {
[[maybe_unused]] const bool kRegistered =
    RegisterTracer(NODESCOPE_BACKEND_NAME,
                   []() -> std::unique_ptr<Tracer> { return std::make_unique<CuptiTracer>(); });
}  // namespace

}  // namespace nodescope::cupti
