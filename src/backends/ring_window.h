// Bounded memory for every backend (issue 14): a ring window that keeps only the most recent
// records, and the copy of that window a capture or a streaming part writes while tracing goes on.
//
//   decoding thread, under the backend's decode lock, after each decoded batch:
//       Process(trace.gpu, first); TrimWindow(options.ring, NowNs(), &trace);
//   capture (any thread): tracer.Flush() with no lock held; then under the decode lock
//       CopyWindow(trace, &copy, release); then, outside it, FinishWindowCopy(&copy).
//
// Trimming releases whole chunks (ChunkedVector::ReleaseBefore): no allocation or lock per
// record, and released chunks are reused, so memory stays flat however long the program runs.
// Released records are counted in trace.window.ring_released, never as drops. Graph keys do not
// depend on the records kept: the first-seen state lives in the attribution stage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace nodescope {

struct WindowPolicy {
  uint64_t max_records = 0;  // GPU + API records held (0: no bound by size)
  uint64_t max_age_ns = 0;   // records older than this are released (0: no bound by time)
  bool enabled() const { return max_records != 0 || max_age_ns != 0; }
  // "events=2796202" or "time=60s", written in the header after "ring:" or "stream:".
  std::string Describe() const;
};

// A size is a count of records ("10M", "500k", "1000") or of bytes ("256MB", "1GB", "64KB"),
// bytes being turned into records of sizeof(GpuActivity) (96 B). A duration is "60s", "5min",
// "1h" or "500ms". Errors name `what` (the variable or flag) and the value.
StatusOr<uint64_t> ParseRecordCount(std::string_view text, std::string_view what);
StatusOr<uint64_t> ParseDurationNs(std::string_view text, std::string_view what);
// NODESCOPE_RING: a size or a duration.
StatusOr<WindowPolicy> ParseWindowPolicy(std::string_view text, std::string_view what);

// Releases the records that left the window, a whole chunk at a time (the chunk being filled is
// always kept): by size, the oldest of GPU and API records first until at most max_records are
// held; by time, chunks whose last record ended before now_ns - max_age_ns. External
// correlations follow the API calls they link (at most one chunk more than the API calls held).
void TrimWindow(const WindowPolicy& policy, uint64_t now_ns, Trace* trace);

// Where the window `t` holds starts: its oldest record, or t.start_ns when nothing left it.
uint64_t WindowStartNs(const Trace& t, uint64_t now_ns);

// Copies the window `live` holds into `out` (a fresh Trace): records, strings, devices, versions,
// counters, drops, pid and names, window info; out->start_ns is the oldest record held (or the
// trace's start), out->end_ns now. With `release`, the copied records are then released from
// `live` and counted as streamed. Call under the decode lock; it allocates only for the copy.
void CopyWindow(Trace& live, uint64_t now_ns, bool release, Trace* out);

// What a live metrics interval needs (NODESCOPE_METRICS, metrics/record_figures.h), not the
// window: the GPU records not counted yet (metrics_fed clear) that ended by `ended_by_ns` and
// whose graph key is decided (a provisional one is left for a later copy), the strings, devices,
// counters, drops, sampling and pid; no API record, no external correlation. Each one copied is
// marked metrics_fed in `live` (the copy is not), so it is copied once however late it reached
// the window: by arrival, not by end time (CUPTI hands a sampled launch's records over after
// later records). `*cursor` (absolute index, ChunkedVector) is where the next copy starts: the
// first record left uncounted. Its size follows the interval, not the window. Call under the
// decode lock.
void CopyUnfedGpu(Trace& live, uint64_t now_ns, uint64_t ended_by_ns, size_t* cursor, Trace* out);

// A streaming part (issue 14): as CopyWindow with `release`, except that GPU records whose graph
// key is still provisional (a later batch or flush decides them) are not written in this part:
// they stay held, moved after the records appended so far (in order), to be written, decided, in
// a later part or the trace at exit, so the parts together key what one trace would. At most
// `max_held_back` are kept (the newest); older ones are written in this part without a key
// (FinishWindowCopy). *moved gets the indices they had: they are now, in that order, at
// [live.gpu.size() - moved->size(), live.gpu.size()) (AttributionStage::RecordsMoved).
// StreamHeldBack(stream_records) is the limit streaming uses: a part's size, and at least 1 M
// records (96 MB): PTI decides a replay about a second after it ran, so a part holds back about
// a second of records, and the rocprofiler backend those a later batch decides.
inline size_t StreamHeldBack(uint64_t stream_records) {
  return static_cast<size_t>(stream_records > (1u << 20) ? stream_records : (1u << 20));
}
void CopyWindowPart(Trace& live, uint64_t now_ns, size_t max_held_back, Trace* out,
                    std::vector<size_t>* moved);

// Outside the lock: records whose graph key was still provisional when copied (a reconstructing
// stage decides some only with a later batch) are written without a key and counted as withheld
// ("undecided_at_capture"), never with a provisional one.
void FinishWindowCopy(Trace* out);

}  // namespace nodescope
