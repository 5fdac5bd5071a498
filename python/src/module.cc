// nodescope._nodescope: the compiled half of `import nodescope` (python/nodescope/__init__.py
// is the public face). Every figure comes from the C++ analysis library.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis/stats/gpu_activity.h"
#include "trace_data.h"

namespace py = pybind11;

PYBIND11_MODULE(_nodescope, m) {
  using nodescope::python::TraceData;
  m.doc() = "nodescope's analysis library (private: use the nodescope package).";
  py::class_<TraceData, std::shared_ptr<TraceData>>(
      m, "TraceData", "Traces read and validated once (private: see nodescope.Trace).")
      .def_static("load", &TraceData::Load, py::arg("paths"),
                  "Reads and checks every file; raises nodescope.TraceError on a bad byte.")
      .def_property_readonly("paths", &TraceData::paths)
      .def("node_columns", &TraceData::NodeColumns,
           "Per-(rank, graph, node) statistics, as columns.")
      .def("overview_columns", &TraceData::OverviewColumns,
           "The overview lines (graphs and eager work) of every rank, as columns.")
      .def("check_reports", &TraceData::CheckReports,
           "The graph-node key check of each file (`nodescope check`).")
      .def("summary", &TraceData::Summary, "Counts per rank, for the Trace's repr.")
      .def("warnings", &TraceData::Warnings, "What `nodescope nodes` warns about, a line each.")
      .def("diff_columns", &TraceData::DiffColumns, py::arg("other"),
           "The first rank's nodes aligned with other's, as `nodescope nodes --diff`.")
      .def(
          "plot",
          [](const TraceData& t, std::optional<uint64_t> graph, std::vector<uint64_t> nodes,
             bool heatmap, size_t top, int width, std::string source, bool html) {
            nodescope::analysis::PlotOptions o;
            o.graph_id = graph;
            o.node_ids = std::move(nodes);
            o.heatmap = heatmap;
            o.max_graphs = top;
            o.width = width;
            o.source = std::move(source);
            return t.Plot(o, html);
          },
          py::arg("graph"), py::arg("nodes"), py::arg("heatmap"), py::arg("top"), py::arg("width"),
          py::arg("source"), py::arg("html"),
          "`nodescope plot`'s SVG or HTML document and what it left out.");
  m.def("kernel_columns", &nodescope::python::KernelColumns, py::arg("path"),
        "One row per GPU activity of the file (read again), as columns.");
  py::list kinds;
  for (const char* k : nodescope::analysis::kGpuActivityKindNames) kinds.append(k);
  m.attr("KERNEL_KINDS") = kinds;
}
