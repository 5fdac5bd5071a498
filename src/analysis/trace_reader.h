// Streaming reader of kineto-schema Chrome-trace JSON: one event at a time, never the whole DOM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace nodescope::analysis {

// "pid" / "tid": kineto writes numbers, torch.profiler also writes strings ("Spans", "Traces").
struct TraceId {
  enum class Kind : uint8_t { kAbsent, kNumber, kString };
  Kind kind = Kind::kAbsent;
  int64_t number = 0;     // when kNumber (an unsigned value above INT64_MAX keeps its bits)
  std::string_view text;  // when kString
};

// One element of "traceEvents". Every key is optional; absent strings are empty. The string_views
// point into the reader's buffers and are valid only during the visitor call.
struct TraceEvent {
  // The trace as messages name it ("PATH", or "PATH (inflated)" when offsets count the bytes of
  // a decompressed trace), for a visitor's own "SOURCE: byte OFFSET: ..." errors.
  std::string_view source;
  uint64_t offset = 0;  // byte offset of the event's '{' in the file
  std::string_view ph;
  std::string_view cat;
  std::string_view name;
  TraceId pid;
  TraceId tid;
  std::optional<double> ts_us;
  std::optional<double> dur_us;
  // From "args".
  std::optional<uint64_t> graph_id;
  std::optional<uint64_t> graph_node_id;
  std::optional<int64_t> correlation;
  std::optional<int64_t> external_id;
  std::optional<std::string_view> scope;
};

// What the reader keeps of the top-level "nodescope" object; the rest of it stays opaque.
struct TraceMetadata {
  bool has_nodescope = false;  // the trace has a "nodescope" object (written by nodescope)
  // "nodescope"."attribution"."withheld": reason -> count, in file order.
  std::vector<std::pair<std::string, uint64_t>> withheld;
  // "nodescope"."dropped_records"."total".
  std::optional<uint64_t> dropped_total;
  uint64_t events = 0;  // elements of "traceEvents" handed to the visitor
};

// Called once per event, in file order. A non-OK status stops reading and is returned as is.
// When the trace is bad further on, events before the bad byte may have been visited already.
using TraceEventVisitor = std::function<Status(const TraceEvent&)>;

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
