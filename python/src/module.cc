// nodescope._nodescope: the compiled half of `import nodescope` (python/nodescope/__init__.py
// is the public face). Every figure comes from the C++ analysis library.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "tables.h"

namespace py = pybind11;

namespace nodescope::python {

void ThrowStatus(const Status& status) {
  py::gil_scoped_acquire gil;
  py::object error = py::module_::import("nodescope._errors")
                         .attr("from_status")(static_cast<int>(status.code()),
                                              StatusCodeName(status.code()), status.message());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
  throw py::error_already_set();
}

}  // namespace nodescope::python

PYBIND11_MODULE(_nodescope, m) {
  using namespace nodescope::python;
  m.doc() = "nodescope's analysis library (private: use the nodescope package).";
  m.def("node_columns", &NodeColumns, py::arg("paths"),
        "Per-(rank, graph, node) statistics of the traces, as columns.");
  m.def("overview_columns", &OverviewColumns, py::arg("paths"),
        "The overview lines (graphs and eager work) of every rank, as columns.");
  m.def("kernel_columns", &KernelColumns, py::arg("path"),
        "One row per GPU activity of the trace, as columns.");
  m.def("check_report", &CheckReport, py::arg("path"),
        "The graph-node key check of one trace file (`nodescope check`).");
}
