// The metrics feed: how a process traced under `nodescope run --metrics` hands its figures to
// `run`, which serves them (src/metrics). A pipe `run` creates, private to it and the program (as
// the report pipe, model/run_report.h): the process run started finds the write end in
// NODESCOPE_METRICS_FD and, every NODESCOPE_METRICS_INTERVAL_MS (default 1000), writes its
// window as a trace (the same JSON as the trace file) in one frame:
//
//   nodescope-metrics<SP>pid=N<SP>kind=K<SP>from=N<SP>to=N<SP>bytes=N<LF><bytes of trace JSON>
//
// K says how the frame's figures combine with what came before:
//   whole     every record of the trace so far: replaces the last frame (`run` reads the trace
//             file at the end so when no frame came);
//   interval  full tracing, --sample, a ring: only the records that ended in (from, to], trace
//             clock ns; intervals follow each other without gap or overlap, and frames add up;
//             `to` lies kRingMarginNs (or a quarter of a ring's age) before the copy, so that a
//             record whose key a later batch decides is counted by the next frame, keyed. The
//             frame holds only the records that ended after from - kNamingSlackNs (those the
//             graphs' names need), and no API calls: its size follows the interval, not the
//             trace;
//   part      a streaming part, fed before its records leave memory: added (each record is in
//             exactly one part or the trace at exit);
//   window    the streaming window now (records not yet in a part): shown on top of the parts,
//             replaced by the next window frame, cleared by the next part.
// At the end `run` reads the trace file as the last frame: a whole trace as `whole` (so records
// that reached the window after their interval was fed, as a sampled launch's do, are counted
// there), a ring's as the interval (last to, end], a streaming trace's as its last part. `run`
// parses strictly and bounds a frame (kMaxFrameBytes): the program can write to the pipe too.
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
inline constexpr uint64_t kNamingSlackNs = 1'000'000'000;

enum class Mode { kWhole, kRing, kStream };

// Copies the window into `out` (as a capture does): `copied_ns` when it was taken (every record
// that ended before it is in), `generation` Generation() then. False when tracing has ended (the
// feed stops); true with `out` left empty skips a turn. Called with no lock of the feed's held.
using WindowFn = bool (*)(Trace* out, uint64_t* copied_ns, uint64_t* generation);

// Starts feeding (a thread) when NODESCOPE_METRICS_FD names a pipe and this is the process `run`
// started (`root_pid`, NODESCOPE_ROOT_PID); the fd is made close-on-exec.
// `ring_age_ns`: a ring's age bound (0: none); the feed then comes at least twice per age, so no
// record leaves the ring before an interval counted it.
void Start(const char* root_pid, Mode mode, uint64_t ring_age_ns, WindowFn window);
bool Active();
// Parts fed so far: read under the lock that orders window copies and parts.
uint64_t Generation();
// A streaming part, before its records leave memory (under that lock).
void FeedPart(const Trace& part);

}  // namespace nodescope::metrics_feed
