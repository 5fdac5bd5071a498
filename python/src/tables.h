// Columns of the Python package's tables, computed by the analysis library: each function
// returns a dict of column name -> list or NumPy array, which nodescope/__init__.py turns into
// a pandas DataFrame. A failed read raises through ThrowStatus (module.cc).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace nodescope::python {

// Raises the nodescope.Error subclass for `status` (nodescope/_errors.py), its message intact.
[[noreturn]] void ThrowStatus(const Status& status);

// One row per (rank, graph, node): `nodescope nodes` figures.
pybind11::dict NodeColumns(const std::vector<std::string>& paths);
// One row per overview line (graph or eager name) per rank: `nodescope nodes`' overview.
pybind11::dict OverviewColumns(const std::vector<std::string>& paths);
// One row per GPU activity of `path`.
pybind11::dict KernelColumns(const std::string& path);
// `nodescope check`'s verdict and counts for `path`.
pybind11::dict CheckReport(const std::string& path);

}  // namespace nodescope::python
