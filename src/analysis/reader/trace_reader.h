// Streaming reader of kineto-schema Chrome-trace JSON: one event at a time, never the whole DOM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "analysis/reader/trace_event.h"
#include "base/status.h"

namespace nodescope::analysis {

struct TraceReadOptions {
  // Bytes parsed at a time. A window ends between two tokens outside strings (after a newline,
  // or a `},` on a trace written on one line), so it holds complete events; one that holds none
  // (an event larger than it) is tried again twice as large, up to max_window_bytes.
  size_t window_bytes = size_t{1} << 20;
  // The most bytes of the trace held at once, whatever the input. An event (read together with
  // the one before it) or the part of the trace before the first event or after the last that
  // does not fit is a DATA_LOSS error at its byte. Memory stays a few times this at most
  // (simdjson's index of the window, unescaped strings; bench/RESULTS.md measures it).
  size_t max_window_bytes = size_t{64} << 20;
  // When set, raised to the largest window buffer held, in bytes (tests, benchmarks).
  size_t* peak_window_bytes = nullptr;
  // Called after each window with the bytes of the file read so far and the file's size (0 when
  // unknown: a pipe); for a compressed trace these are compressed bytes. ReadTraceFile only.
  std::function<void(uint64_t read_bytes, uint64_t file_bytes)> progress;
  // Fill TraceEvent::raw, raw_pid, raw_ts and raw_id (for `nodescope merge`).
  bool raw_events = false;
};

// Reads the trace at `path` (a file, a pipe, /dev/stdin) in windows, never all of it at once.
// Errors: NOT_FOUND / PERMISSION_DENIED for the file, DATA_LOSS for bad content, with messages
// "PATH: byte N: what is wrong". Every byte is checked to be UTF-8 and every string closed, and
// what is read is checked; values that are skipped (other keys, the rest of "args") are checked
// only for their nesting, as simdjson On-Demand does: a `]` closing a `{` in them goes unnoticed.
StatusOr<TraceMetadata> ReadTraceFile(const std::string& path, const TraceEventVisitor& visit,
                                      const TraceReadOptions& options = {});

// Reads a trace held in memory; `name` stands for the file in messages.
StatusOr<TraceMetadata> ReadTraceText(std::string_view name, std::string_view json,
                                      const TraceEventVisitor& visit,
                                      const TraceReadOptions& options = {});

}  // namespace nodescope::analysis
