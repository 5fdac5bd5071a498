// Every GPU activity of a trace (kernels, copies, fills) as columns, one row per event, and the
// key check of a whole file: what the Python package's Trace.kernels() and Trace.check() return.
// Reads through the trace reader; no statistics of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/reader/trace_reader.h"
#include "analysis/stats/alias_check.h"
#include "analysis/stats/huge_page_allocator.h"
#include "base/status.h"

namespace nodescope::analysis {

// What an activity is, by its "cat" (ClassifyCategory), as `nodescope nodes` names it.
enum class GpuActivityKind : uint8_t { kKernel = 0, kMemcpy = 1, kMemset = 2 };
inline constexpr const char* kGpuActivityKindNames[] = {"kernel", "memcpy", "memset"};

// Columns of equal length (huge-page backed: filled at the read's pace); a missing value is NaN
// (doubles) or -1 (integers). Names are indices into `strings` (each distinct name, cat and scope
// text once).
struct GpuActivityTable {
  Column<double> ts_us;
  Column<double> dur_us;
  Column<uint32_t> name;
  Column<uint32_t> cat;
  Column<uint32_t> scope;  // index of "" when the event has no scope
  Column<uint8_t> kind;    // GpuActivityKind: what `nodescope nodes` calls it
  Column<int64_t> device;  // "pid" when a number (kineto: the device), else -1
  Column<int64_t> stream;  // "tid" when a number (kineto: the stream), else -1
  Column<int64_t> correlation;
  Column<int64_t> graph_id;  // -1: not launched by a graph (or the keys are 0)
  Column<int64_t> node_id;
  Column<int64_t> ordinal;  // node id & 0xffffffff, -1 without keys
  Column<int64_t> rank;     // the trace's rank, a merged trace's rank by process; else -1
  std::vector<std::string> strings;
  TraceMetadata metadata;

  size_t size() const { return ts_us.size(); }
  void Reserve(size_t rows);
};

// Reads `path` (gzip too), refusing what `nodescope nodes` refuses (CheckEvent), with its errors.
StatusOr<GpuActivityTable> CollectGpuActivities(const std::string& path);

// What `nodescope check` computes for one file: every event checked (CheckEvent), every key
// counted (AliasChecker).
StatusOr<AliasReport> CheckTraceFile(const std::string& path, const AliasCheckOptions& limits = {});

}  // namespace nodescope::analysis
