// The C++ object behind nodescope.Trace: the traces read once, at load(), and validated there
// (a bad byte raises then, with its offset), kept as the `nodescope nodes` CLI keeps them (the
// per-node series of every rank, bounded by NodeSeriesOptions) plus each file's key check
// (`nodescope check`), counted in the same read. The tables are computed from what is held;
// only kernels(), whose rows grow with the trace, reads the files again (keeping them would hold
// about 85 bytes per GPU activity for the Trace's life: several times the series' memory on a
// large trace).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/plot/plot_svg.h"
#include "analysis/stats/alias_check.h"
#include "analysis/stats/rank_traces.h"

namespace nodescope::python {

class TraceData {
 public:
  // Reads every file, a file per core as the CLI does, releasing the GIL; raises the
  // nodescope.Error of the first file that fails.
  static std::shared_ptr<TraceData> Load(const std::vector<std::string>& paths);

  const std::vector<std::string>& paths() const { return paths_; }
  const analysis::RankTraces& ranks() const { return ranks_; }
  const std::vector<analysis::AliasReport>& checks() const { return checks_; }
  // What `nodescope nodes` warns about, one line each: aliased node keys, nodes left out past
  // the limits, nodes whose percentiles come from a sample of their replays.
  std::vector<std::string> Warnings() const;

  // Tables as dicts of columns (tables.cc): NumPy arrays, text columns as integer codes into a
  // "strings" list.
  pybind11::dict NodeColumns() const;
  pybind11::dict OverviewColumns() const;
  pybind11::list CheckReports() const;
  pybind11::dict Summary() const;
  // The reference rank's graphs (the first input) against `other`'s, as `nodes --diff`.
  pybind11::dict DiffColumns(const TraceData& other) const;
  // `nodescope plot`'s picture: every graph of the one rank, or, across several ranks, the
  // node `nodes[0]` on each rank. Returns {"text", "left_out" (dict)}.
  pybind11::dict Plot(const analysis::PlotOptions& options, bool html) const;

 private:
  std::vector<std::string> paths_;
  analysis::RankTraces ranks_;
  std::vector<analysis::AliasReport> checks_;  // one per file
};

// One row per GPU activity of the file at `path` (read again): its columns and "strings".
pybind11::dict KernelColumns(const std::string& path);

// Raises the nodescope.Error subclass for `status` (nodescope/_errors.py), its message intact.
[[noreturn]] void ThrowStatus(const Status& status);

}  // namespace nodescope::python
