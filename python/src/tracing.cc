// nodescope._tracing_ext: the in-process session and user ranges for Python, over the C API of
// libnodescope.so (linked dynamically: one copy of the session state per process, shared with a
// C/C++ caller of the same library). python/nodescope/_tracing.py is the public face.
//
// The GIL: every call that can wait for another thread (start, stop, write, capture, destroy,
// set_log_handler) runs with the GIL released, since the thread it waits for may be in the log
// handler below, which takes the GIL.
#include <pybind11/pybind11.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "nodescope/nodescope.h"

namespace py = pybind11;

namespace {

// The session's C error as the exception _errors.session_error() picks ("ALREADY_EXISTS: ...").
[[noreturn]] void ThrowLastError(const std::string& error) {
  py::object exc = py::module_::import("nodescope._errors").attr("session_error")(error);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

// One nodescope_session. Methods are serialized by the Python side (_tracing.Profile's lock);
// the pid guard is for a forked child, which must never touch the parent's session: its vendor
// threads did not survive the fork, so stopping or freeing it could hang or crash.
class Session {
 public:
  static Session* Start(const std::string& options) {
    nodescope_session* s = nullptr;
    std::string error;
    {
      py::gil_scoped_release release;
      s = nodescope_start_with_options(options.c_str());
      if (s == nullptr) error = nodescope_last_error();
    }
    if (s == nullptr) ThrowLastError(error);
    return new Session(s);
  }

  ~Session() {
    if (session_ == nullptr || !Owned()) return;  // a forked child's copy is left as it is
    if (stopped_) {  // only memory to free: no need to let go of the GIL (maybe at finalization)
      nodescope_destroy(session_);
      return;
    }
    py::gil_scoped_release release;  // stops the backend first
    nodescope_destroy(session_);
  }

  void Stop() {
    stopped_ = true;  // a failed stop leaves the session stopped too (nodescope_stop)
    Call([](nodescope_session* s) { return nodescope_stop(s); });
  }
  void Write(const std::string& path) {
    Call([&](nodescope_session* s) { return nodescope_write(s, path.c_str()); });
  }
  void Capture(const std::string& path) {
    Call([&](nodescope_session* s) { return nodescope_capture(s, path.c_str()); });
  }
  py::dict Summary() {
    nodescope_summary sum{};
    Call([&](nodescope_session* s) { return nodescope_get_summary(s, &sum); });
    py::dict d;
    d["gpu_events"] = sum.gpu_events;
    d["kernels"] = sum.kernels;
    d["memcpys"] = sum.memcpys;
    d["memsets"] = sum.memsets;
    d["graph_events"] = sum.graph_events;
    d["api_calls"] = sum.api_calls;
    d["dropped"] = sum.dropped;
    return d;
  }
  // A forked child: forget the parent's session without touching it (leaked on purpose).
  void Abandon() { session_ = nullptr; }
  bool Owned() const { return owner_pid_ == getpid(); }

 private:
  explicit Session(nodescope_session* s) : session_(s), owner_pid_(getpid()) {}

  template <typename F>
  void Call(F&& f) {
    if (session_ == nullptr || !Owned()) {
      ThrowLastError(
          "FAILED_PRECONDITION: this session belongs to the parent process (os.fork() was "
          "called while it ran); a child must start its own");
    }
    int rc = 0;
    std::string error;
    {
      py::gil_scoped_release release;
      rc = f(session_);
      if (rc != 0) error = nodescope_last_error();
    }
    if (rc != 0) ThrowLastError(error);
  }

  nodescope_session* session_;
  pid_t owner_pid_;
  bool stopped_ = false;
};

// The log handler: library messages to Python (_tracing._on_message: warnings.warn or logging),
// from whichever thread raised them. While Python cannot run (before the handler is set, after
// _tracing's atexit hook cleared g_accept, during finalization) they go to stderr as the library
// would have written them. g_dispatch is leaked on purpose: a Python object must not be released
// by a C++ static destructor after the interpreter is gone.
std::atomic<bool> g_accept{false};
PyObject* g_dispatch = nullptr;  // owned reference, set once

bool PythonCanRun() {
  if (!g_accept.load(std::memory_order_acquire) || !Py_IsInitialized()) return false;
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsFinalizing();
#else
  return !_Py_IsFinalizing();
#endif
}

void ToStderr(int level, const char* id, const char* message) {
  const char* what = level >= NODESCOPE_LOG_ERROR     ? "error"
                     : level == NODESCOPE_LOG_WARNING ? "warning"
                     : level == NODESCOPE_LOG_INFO    ? "note"
                                                      : "debug";
  std::fprintf(stderr, "nodescope: %s: %s [%s]\n", what, message, id);
}

void OnMessage(int level, const char* id, const char* message, void* /*user*/) noexcept {
  if (!PythonCanRun()) {
    ToStderr(level, id, message);
    return;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* r = PyObject_CallFunction(g_dispatch, "iss", level, id, message);
  if (r == nullptr) {
    // A warnings filter set to "error" makes warn() raise; it cannot propagate from here.
    PyErr_WriteUnraisable(g_dispatch);
  } else {
    Py_DECREF(r);
  }
  PyGILState_Release(gil);
}

void SetLogHandler(const py::object& dispatch) {
  if (dispatch.is_none()) {
    g_accept.store(false, std::memory_order_release);
    py::gil_scoped_release release;  // waits for a call in progress, which may want the GIL
    nodescope_set_log_handler(nullptr, nullptr);
    return;
  }
  if (g_dispatch == nullptr) g_dispatch = dispatch.inc_ref().ptr();
  g_accept.store(true, std::memory_order_release);
  py::gil_scoped_release release;
  nodescope_set_log_handler(&OnMessage, nullptr);
}

// For the tests: delivers one message as the library would from a thread Python never saw (a
// vendor's), and waits for it with the GIL released.
void MessageFromNativeThread(int level, const std::string& id, const std::string& message) {
  py::gil_scoped_release release;
  std::thread([&] { OnMessage(level, id.c_str(), message.c_str(), nullptr); }).join();
}

}  // namespace

PYBIND11_MODULE(_tracing_ext, m) {
  m.doc() = "nodescope's in-process tracing (private: use nodescope.profile and nodescope.range).";
  py::class_<Session>(m, "Session")
      .def_static("start", &Session::Start, py::arg("options"),
                  py::return_value_policy::take_ownership)
      .def("stop", &Session::Stop)
      .def("write", &Session::Write, py::arg("path"))
      .def("capture", &Session::Capture, py::arg("path"))
      .def("summary", &Session::Summary)
      .def("abandon", &Session::Abandon)
      .def_property_readonly("owned", &Session::Owned);
  m.def("set_log_handler", &SetLogHandler, py::arg("dispatch"),
        "dispatch(level, id, message) receives the library's messages; None gives them back to "
        "stderr (waits for a call in progress).");
  // Ranges cost a few ns when no session records them: no GIL release, no allocation but the
  // name's UTF-8 (the library copies it).
  m.def(
      "range_push", [](const char* name) { nodescope_range_push(name); }, py::arg("name"));
  m.def("range_pop", []() { nodescope_range_pop(); });
  m.def(
      "range_start", [](const char* name) { return nodescope_range_start(name); }, py::arg("name"));
  m.def(
      "range_end", [](uint64_t id) { nodescope_range_end(id); }, py::arg("id"));
  m.def("_message_from_native_thread", &MessageFromNativeThread, py::arg("level"), py::arg("id"),
        py::arg("message"));
  m.attr("LOG_DEBUG") = NODESCOPE_LOG_DEBUG;
  m.attr("LOG_INFO") = NODESCOPE_LOG_INFO;
  m.attr("LOG_WARNING") = NODESCOPE_LOG_WARNING;
  m.attr("LOG_ERROR") = NODESCOPE_LOG_ERROR;
}
