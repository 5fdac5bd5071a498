// What strict trace viewers require of a Chrome-trace JSON document, checked on the whole
// document at once (simdjson DOM: for tests and small files, not for streaming large traces).
#pragma once

#include <string_view>

#include "base/status.h"

namespace nodescope {

// A top-level object whose "traceEvents" is an array of objects, each with a string "ph", and:
//  - "X": a string "name", integer "pid" and "tid", finite "ts" >= 0 and "dur" >= 0;
//  - "s" / "f": integer "id", "pid" and "tid", finite "ts" >= 0; each id has exactly one "s" and
//    exactly one "f";
//  - "M": "name" one of process_name, process_labels, process_sort_index, thread_name,
//    thread_sort_index; integer "pid" and "tid"; "args" an object holding "name" (a string),
//    "labels" (a string) or "sort_index" (an integer) accordingly;
//  - "i" (instant events, which kineto writes with string pids): finite "ts" >= 0;
//  - no other "ph".
// Returns the first violation, naming the event by its index in "traceEvents".
Status CheckTraceForViewers(std::string_view json);

// On every (pid, tid) with "gpu_user_annotation" events, each such span strictly contains every
// X event that starts inside it (starts after it and ends before it), with ends computed as a
// viewer computes them: "ts" + "dur" in doubles. Spans and work that overlap without nesting
// are an error; work overlapping work (kernels of one stream can overlap under programmatic
// dependent launch) is not. Assumes CheckTraceForViewers passed.
Status CheckDeviceSpanNesting(std::string_view json);

}  // namespace nodescope
