// The metrics feed: how a process traced under `nodescope run --metrics` hands its figures to
// `run`, which serves them (src/metrics). A pipe `run` creates, private to it and the program (as
// the report pipe, model/run_report.h): the process run started finds the write end in
// NODESCOPE_METRICS_FD. It aggregates in the process (metrics/record_figures.h, as an in-process
// session's NODESCOPE_METRICS does) and every NODESCOPE_METRICS_INTERVAL_MS (default 1000)
// writes its figures so far (metrics/figures_text.h) in one frame:
//
//   nodescope-metrics<SP>pid=N<SP>kind=K<SP>from=0<SP>to=N<SP>bytes=N<LF><bytes of figures text>
//
// K: `figures`, the figures so far (each frame replaces the last; `to` is where the records
// counted end, trace clock ns), or `final`, written at exit after the trace is finished: every
// record of the trace and of its streaming parts counted, every replay closed; `run` then has
// what `nodes` would read and needs not read the trace file. Each interval copies only the GPU
// records that ended since the last one (TracingSession::CaptureRecent), never the whole window,
// and counts those that ended up to kRingMarginNs (or a quarter of a ring's age) before the
// copy, so that a record whose key a later batch decides is counted, keyed, the next time; a
// time ring is fed at least twice per age. A streaming part is added before its records leave
// memory. Without a final frame (the process was killed) `run` reads the trace file as before.
// `run` parses strictly and bounds a frame (kMaxFrameBytes): the program can write to the pipe
// too. (Frames of kinds whole, interval, part and window, which carried trace JSON, are still
// read by `run`: trace_figures.h.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/trace.h"

namespace nodescope::metrics_feed {

inline constexpr char kFdVariable[] = "NODESCOPE_METRICS_FD";
inline constexpr char kIntervalVariable[] = "NODESCOPE_METRICS_INTERVAL_MS";
inline constexpr char kFrameTag[] = "nodescope-metrics";
inline constexpr size_t kMaxFrameBytes = size_t{1} << 30;
inline constexpr unsigned kDefaultIntervalMs = 1000;
inline constexpr uint64_t kRingMarginNs = 200'000'000;

enum class Mode { kWhole, kRing, kStream };

// Where the records come from (process_session.cc), called by the feed's thread with no lock of
// the feed's held: copies the GPU records not counted yet that ended by `ended_by_ns`
// (TracingSession::CaptureRecent, each marked counted) and hands them to AddRecent() under the
// lock that orders copies, parts and the end, so that no copy is lost between them. False when
// tracing has ended (the feed stops).
using Source = bool (*)(uint64_t ended_by_ns);

// Starts feeding (a thread) when NODESCOPE_METRICS_FD names a pipe and this is the process `run`
// started (`root_pid`, NODESCOPE_ROOT_PID); the fd is made close-on-exec.
// `ring_age_ns`: a ring's age bound (0: none); the feed then comes at least twice per age, so no
// record leaves the ring before an interval counted it.
void Start(const char* root_pid, Mode mode, uint64_t ring_age_ns, Source source);
bool Active();
// Whether `recent` holds a new node captured under a user range: its scope needs the session's
// ranges in `recent` before AddRecent() (RecordFigures::NeedsRanges).
bool NeedsRanges(const Trace& recent);
// A live copy (Source): its records added, the figures so far written as a frame.
void AddRecent(const Trace& recent, uint64_t ended_by_ns);
// A streaming part, before its records leave memory (under that lock): its records no live copy
// counted are added.
void FeedPart(const Trace& part);
// At exit, the session stopped and `trace` finished (for streaming, the last part): the rest
// added, every replay closed, the final frame written; the feed stops.
void Finish(const Trace& trace);

}  // namespace nodescope::metrics_feed
