// The xpu backend's tracer: PTI's part of the skeleton.
#include "backends/xpu/pti_tracer.h"

#include <cstdlib>
#include <string>
#include <unordered_map>

#include "base/clock.h"
#include "base/diagnostics.h"
#include "ranges/range_recorder.h"

namespace nodescope::pti {
namespace {

ActiveTracer<PtiTracer> g_active;
PtiApi g_range_api;

// The buffers nodescope handed to PTI and not yet given back, numbered in the order they went out.
// PTI keeps one set of buffer callbacks per process: another PTI user (PyTorch's profiler) that
// sets its own takes nodescope's buffers over, and one set before nodescope hands its buffers to
// nodescope (docs/pti-notes.md, "Two tools in one process"). A buffer that is not ours is never
// freed or read here; one of ours that a flush does not bring back went to the other tool. Taken
// once per buffer, never per record. Never destroyed: PTI may deliver from its own thread after
// static destructors have run.
std::mutex g_buffers_mu;
// Constructed on first use: the session can start from a library constructor that runs before
// this file's dynamic initialisation (entry_point.cc), so no global may need it.
std::unordered_map<unsigned char*, uint64_t>& Buffers() {
  static auto* buffers = new std::unordered_map<unsigned char*, uint64_t>;
  return *buffers;
}
uint64_t g_buffers_issued = 0;
std::atomic<uint64_t> g_foreign_buffers{0};

constexpr pti_view_kind kViews[] = {
    PTI_VIEW_DEVICE_GPU_KERNEL,   PTI_VIEW_DEVICE_GPU_MEM_COPY, PTI_VIEW_DEVICE_GPU_MEM_COPY_P2P,
    PTI_VIEW_DEVICE_GPU_MEM_FILL, PTI_VIEW_RUNTIME_API,         PTI_VIEW_EXTERNAL_CORRELATION};

// PTI takes records in CLOCK_MONOTONIC_RAW and converts them with this: the trace clock.
uint64_t TraceClock() { return NowNs(); }

// User ranges become pushed external correlation ids of kind CUSTOM_1: PTI writes one external
// correlation record per runtime API record made inside one, linking its work to the range.
void RangePushed(uint64_t range_id) {
  (void)g_range_api.push_external(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, range_id);
}
void RangePopped(uint64_t) {
  uint64_t id = 0;
  (void)g_range_api.pop_external(PTI_VIEW_EXTERNAL_KIND_CUSTOM_1, &id);
}
const RangeRecorder::Listener kRangeListener{&RangePushed, &RangePopped};

Status Check(pti_result r, const std::string& what) {
  if (r == PTI_SUCCESS) return OkStatus();
  return UnavailableError(what + " failed (PTI result " + std::to_string(static_cast<int>(r)) +
                          ")");
}

}  // namespace

PtiTracer::PtiTracer() : BackendTracer(NODESCOPE_BACKEND_NAME, &kRangeListener) {}

PtiTracer::~PtiTracer() {
  if (running()) (void)Stop();
}

Status PtiTracer::StartCollection(const TracerOptions& options) {
  ASSIGN_OR_RETURN(api_, LoadPtiApi());
  // PTI refuses a first buffer smaller than its largest record (192 bytes in 1.0).
  buffer_bytes_ = options.buffer_bytes < 4096 ? 4096 : options.buffer_bytes;
  RETURN_IF_ERROR(g_active.Claim(this, "PTI"));
  const pti_version v = api_.version();
  trace().versions.emplace_back("pti_version", v._major * 10000 + v._minor * 100 + v._patch);
  // A ring or streaming window bounds the submission calls kept too (stage.h).
  const bool bounded = options.ring.enabled() || options.stream_records != 0;
  stage_ = MakeSubmissionMatchingStage(options.graph_attribution,
                                       SubmissionMatchingStage::kDefaultToleranceNs,
                                       SubmissionMatchingStage::kDefaultSettleNs, bounded);
  decoder_.emplace(&trace(), options.max_events, UsesV2Layout(v), api_.api_id_name, stage_.get());
  set_stage(stage_.get());
  Status s = Check(api_.set_timestamp_callback(&TraceClock), "ptiViewSetTimestampCallback");
  if (s.ok()) s = Check(api_.set_callbacks(&OnRequest, &OnComplete), "ptiViewSetCallbacks");
  for (pti_view_kind kind : kViews) {
    if (s.ok()) s = Check(api_.enable(kind), "ptiViewEnable(" + std::to_string(kind) + ")");
  }
  if (!s.ok()) {
    for (pti_view_kind kind : kViews) (void)api_.disable(kind);
    g_active.Release();
    return s;
  }
  g_range_api = api_;
  return OkStatus();
}

// Buffers: at most max_buffers in flight (PTI holds one per recording thread); past that the
// request is refused and PTI drops what that thread records (it only logs), counted here as
// refused buffers.
void PtiTracer::OnRequest(unsigned char** buffer, size_t* size) {
  *buffer = nullptr;
  *size = 0;
  PtiTracer* self = g_active.get();
  if (self == nullptr) return;
  if (self->in_flight_.fetch_add(1) >= self->options().max_buffers) {
    self->in_flight_.fetch_sub(1);
    self->AddBuffersRefused(1);
    return;
  }
  *buffer = static_cast<unsigned char*>(std::malloc(self->buffer_bytes_));
  if (*buffer == nullptr) {
    self->in_flight_.fetch_sub(1);
    self->AddBuffersRefused(1);
    return;
  }
  *size = self->buffer_bytes_;
  std::lock_guard<std::mutex> lock(g_buffers_mu);
  Buffers().emplace(*buffer, ++g_buffers_issued);
}

void PtiTracer::OnComplete(unsigned char* buffer, size_t, size_t used) {
  if (buffer == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    if (Buffers().erase(buffer) == 0) {
      // Another PTI user's buffer (it set its callbacks before ours): not ours to read or free.
      if (g_foreign_buffers.fetch_add(1) == 0) {
        LogWarning("pti_foreign_buffers",
                   "PTI delivered a buffer nodescope never gave out: another "
                   "PTI user in this process (PyTorch's profiler?) was collecting, and PTI keeps "
                   "one set of buffer callbacks: it now loses its buffers to nodescope (left "
                   "unread and unfreed)");
      }
      return;
    }
  }
  PtiTracer* self = g_active.get();
  if (self != nullptr) {
    if (used != 0) self->DecodeBatch([&] { self->Decode(buffer, used); });
    self->in_flight_.fetch_sub(1);
  }
  std::free(buffer);
}

// Under the decode lock (DecodeBatch): every record of one buffer.
void PtiTracer::Decode(unsigned char* buffer, size_t used) {
  pti_view_record_base* record = nullptr;
  for (;;) {
    const pti_result r = api_.next_record(buffer, used, &record);
    if (r == PTI_STATUS_END_OF_BUFFER || record == nullptr) break;
    if (r != PTI_SUCCESS) {
      walk_errors_.fetch_add(1, std::memory_order_relaxed);
      break;
    }
    decoder_->Decode(record);
  }
}

// When ptiFlushAllViews returns, every record PTI made before it began has been delivered
// (docs/pti-notes.md, "Deciding while tracing"): what that proves is decided at the snapshot.
Status PtiTracer::Flush() {
  const uint64_t began = NowNs();
  Status s = Check(api_.flush(), "ptiFlushAllViews");
  if (s.ok()) {
    uint64_t seen = flushed_before_.load(std::memory_order_relaxed);
    while (began > seen && !flushed_before_.compare_exchange_weak(seen, began)) {
    }
  }
  return s;
}

// Graph kernels whose replay the last flush proves complete get their keys now; a capture's
// graph records not decided yet (their replay is within the settle time of the flush, stage.h)
// are written without keys, counted as undecided_at_capture.
void PtiTracer::BeforeWindowCopy() { stage_->Flushed(trace().gpu, flushed_before_.load()); }

Status PtiTracer::StopCollection() {
  for (pti_view_kind kind : kViews) (void)api_.disable(kind);
  uint64_t issued_before_flush = 0;
  {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    issued_before_flush = g_buffers_issued;
  }
  Status flushed = Check(api_.flush(), "ptiFlushAllViews");
  // A flush delivers every buffer PTI holds: one of ours handed out before it and still out went
  // to another PTI user's completion callback (it replaced ours), with the records in it.
  {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    for (const auto& [buffer, number] : Buffers()) not_returned_ += number <= issued_before_flush;
  }
  if (not_returned_ != 0) {
    LogWarning("pti_buffers_not_returned",
               "%llu of nodescope's PTI buffers never came back: another PTI "
               "user in this process (PyTorch's profiler?) replaced nodescope's buffer "
               "callbacks (PTI keeps one set), so its records from then on are missing from this "
               "trace; do not run another PTI profiler under nodescope's xpu backend",
               static_cast<unsigned long long>(not_returned_));
  }
  g_active.Release();
  return flushed;
}

void PtiTracer::AddCounters(Trace* trace, bool at_stop) {
  if (!at_stop) return;
  const uint64_t errors = walk_errors_.exchange(0);
  if (errors != 0) trace->counters.emplace_back("pti_buffer_walk_errors", errors);
  if (not_returned_ != 0) {
    trace->counters.emplace_back("pti_buffers_not_returned", static_cast<int64_t>(not_returned_));
  }
  if (const uint64_t foreign = g_foreign_buffers.exchange(0); foreign != 0) {
    trace->counters.emplace_back("pti_foreign_buffers", static_cast<int64_t>(foreign));
  }
}

namespace {
// A prioritised constructor, run before every plain one of this library: its entry point starts
// the session from a plain constructor (entry_point.cc), which must find the tracer registered
// whatever order the linker put the two files in (it differed between two builds).
__attribute__((constructor(101))) void RegisterPtiTracer() {
  RegisterTracer(NODESCOPE_BACKEND_NAME,
                 []() -> std::unique_ptr<Tracer> { return std::make_unique<PtiTracer>(); });
}
}  // namespace

}  // namespace nodescope::pti
