"""Tracing from Python: nodescope.profile (an in-process session of libnodescope.so) and
nodescope.range (user ranges), over the extension nodescope._tracing_ext.

Process lifetime, in one place:

* exit: an atexit hook stops every session still running and writes its trace (to ``output``,
  or to the temporary file ``profile.path`` names), then gives the library's messages back to
  stderr, so that no library thread calls into Python while the interpreter finalizes.
* fork: a child does not inherit a session. ``os.register_at_fork`` drops the child's handle
  without touching the C session (its vendor threads did not survive the fork: stopping or
  freeing it could hang), the copy is leaked, and the child's methods raise :class:`Error`.
  The parent's session goes on. A child that wants a trace starts its own profile().
* threads: a profile's methods may be called from any thread (they are serialized); ranges are
  per thread, pushed and popped on the calling thread.
* messages: the library's warnings arrive as ``warnings.warn(..., NodescopeWarning)``, its
  errors, notes and debug output on ``logging.getLogger("nodescope")``, from whichever thread
  raised them (a vendor thread's warning too).
"""
import atexit
import contextlib
import logging
import os
import sys
import tempfile
import threading
import warnings

from ._errors import Error, NodescopeWarning


def _injected_libnodescope():
    """Under `nodescope run` (or a backend library injected by hand): the libnodescope.so beside
    the backend library the vendor runtime is told to load, or None.

    A process holds one libnodescope.so (one session state, one range recorder). `nodescope run`
    has the vendor runtime load its backend library (CUDA_INJECTION64_PATH, ROCP_TOOL_LIBRARIES)
    when the program first uses the GPU, and that library needs libnodescope.so, which the
    loader finds by its name among the libraries already loaded. Had this package loaded its own
    copy first, the run's backend would get it, refuse it as another build's, and the program
    would run untraced. So the package loads the run's copy instead: the extension's own need of
    libnodescope.so is then met by it; nodescope.range() records into the run's trace and
    profile() says the process is already traced."""
    for var in ("CUDA_INJECTION64_PATH", "ROCP_TOOL_LIBRARIES", "LD_PRELOAD"):
        for entry in os.environ.get(var, "").replace(" ", ":").split(":"):
            if os.path.basename(entry).startswith("libnodescope_"):
                lib = os.path.join(os.path.dirname(entry), "libnodescope.so")
                if os.path.isfile(lib):
                    return lib
    return None


_run_library = _injected_libnodescope()
if _run_library is not None:
    import ctypes

    try:
        ctypes.CDLL(_run_library)  # the extension below binds to it (same name: libnodescope.so)
    except OSError:
        _run_library = None  # the package's own copy, then
try:
    from . import _tracing_ext as _ext
except ImportError as e:
    if _run_library is None:
        raise
    raise ImportError(f"nodescope: this package cannot use {_run_library}, the library of the "
                      f"`nodescope run` tracing this process ({e}): run it with the `nodescope` "
                      "of the same version as the package") from e

__all__ = ["profile", "range", "NodescopeWarning"]

_logger = logging.getLogger("nodescope")
_LOG_LEVELS = {_ext.LOG_DEBUG: logging.DEBUG, _ext.LOG_INFO: logging.INFO,
               _ext.LOG_WARNING: logging.WARNING, _ext.LOG_ERROR: logging.ERROR}

# keyword -> (option key of nodescope_start_with_options, accepted Python types). The keys are
# the environment variables' names without NODESCOPE_, in lower case (README, "Environment
# variables"); strings are passed as written ("64k", "256MB", "60s"), the library checks them.
_OPTIONS = {
    "backend": ("backend", (str,)),
    "sample": ("sample", (int, str)),
    "sample_burst": ("sample_burst", (int, str)),
    "ring": ("ring", (int, str)),
    "stream": ("stream", (int, str)),
    "capture_every": ("capture_every", (int, str)),
    "max_events": ("max_events", (int, str)),
    "max_buffers": ("max_buffers", (int, str)),
    "buffer_size_mb": ("buffer_size_mb", (int, str)),
    "disable_graph_attribution": ("disable_graph_attribution", (bool,)),
    "metrics": ("metrics", (int, str)),  # a port (127.0.0.1), "ADDR:PORT" or "unix:PATH"
    "metrics_series": ("metrics_series", (int, str)),
    "output": ("output", (str,)),  # profile()'s first argument, passed with stream/capture_every
}


def _option_text(keyword, value):
    key, types = _OPTIONS[keyword]
    if isinstance(value, bool) and bool not in types:  # bool is an int: never a count
        raise TypeError(f"profile(): {keyword} must be {_type_names(types)}, not bool")
    if not isinstance(value, types):
        raise TypeError(f"profile(): {keyword} must be {_type_names(types)}, not "
                        f"{type(value).__name__}")
    if isinstance(value, bool):
        text = "1" if value else "0"
    elif isinstance(value, int):
        text = str(value) + ("s" if keyword == "capture_every" else "")
    else:
        text = value
    if any(c in text for c in ";\n\r") or text != text.strip():
        from ._errors import InvalidArgumentError

        raise InvalidArgumentError(f"profile(): {keyword}={value!r}: a value cannot hold ';', "
                                   "a newline or blanks at its ends", "INVALID_ARGUMENT")
    return f"{key}={text}"


def _type_names(types):
    return " or ".join(t.__name__ for t in types)


# Running sessions, for the exit hook and fork; guarded by _active_lock.
_active = set()
_active_lock = threading.Lock()


class profile:
    """Traces this process's GPU work from ``start()`` (or entering the ``with`` block) to
    ``stop()`` (leaving it) with nodescope's in-process session, and writes the trace::

        with nodescope.profile(output="trace.json", ring="64k") as p:
            train_step()
            p.capture("window.json")     # the ring's window so far; tracing goes on
        p.summary()                      # {"gpu_events": ..., "kernels": ..., ...}
        t = p.trace()                    # nodescope.load(output): t.nodes(), t.check()

    ``output``: where stop() writes the trace (``None``: a temporary file, written when
    :meth:`trace` or :meth:`write` asks, or at exit; ``path`` names it). The keyword options
    are those of ``nodescope run`` and the ``NODESCOPE_*`` variables (README): ``backend``
    ("cuda", "rocm", "xpu"; default the first that works), ``sample`` and ``sample_burst``,
    ``ring`` ("64k" records, "256MB", "60s"), ``stream`` (write the trace in parts of N records,
    ``<output>.part-<n>.json``, while running; the file written at the end is the last part) and
    ``capture_every`` (also write the window every TIME, ``<output>.capture-<n>.json``), both
    needing ``output``, ``max_events``, ``max_buffers``, ``buffer_size_mb``,
    ``disable_graph_attribution``, ``metrics`` and ``metrics_series``. An option left out is read from the environment, as
    ``nodescope run`` would. Types are checked here (TypeError); values by the library, which
    raises :class:`InvalidArgumentError` naming the option.

    ``metrics`` (``NODESCOPE_METRICS``): serve Prometheus' ``/metrics`` from a thread of the
    session, as ``nodescope run --metrics`` does: a port (``9400``, on 127.0.0.1), an
    ``"ADDR:PORT"`` or ``"unix:PATH"``. Per-node and per-graph duration histograms (graph = the
    stable name ``nodes`` prints), replays, drops; ``metrics_series`` bounds the per-node series
    (default 2000, the rest folded into ``node="other"``). The port is bound by start(): one
    taken raises and nothing is traced. Served from start() until the profile is freed (after
    stop(), the final figures: their counts are those of ``nodes`` on the trace written)::

        with nodescope.profile("t.json", metrics=9400):   # curl 127.0.0.1:9400/metrics
            serve()

    Failures raise :class:`Error` subclasses with the library's message: :class:`NoDeviceError`
    (no GPU, driver or backend), :class:`ProfilerConflictError` (torch.profiler, Nsight or
    ``nodescope run`` already traces this process), :class:`InvalidArgumentError`.
    """

    def __init__(self, output=None, *, backend=None, sample=None, sample_burst=None, ring=None,
                 stream=None, capture_every=None, max_events=None, max_buffers=None,
                 buffer_size_mb=None, disable_graph_attribution=None, metrics=None,
                 metrics_series=None):
        given = {"backend": backend, "sample": sample, "sample_burst": sample_burst,
                 "ring": ring, "stream": stream, "capture_every": capture_every,
                 "max_events": max_events, "max_buffers": max_buffers,
                 "buffer_size_mb": buffer_size_mb,
                 "disable_graph_attribution": disable_graph_attribution,
                 "metrics": metrics, "metrics_series": metrics_series}
        self.output = os.fspath(output) if output is not None else None
        if self.output is not None and (stream is not None or capture_every is not None):
            # Parts and periodic captures are named after the trace ("t.part-1.json"); only
            # then does the library need the path.
            given["output"] = self.output
        self.options = ";".join(_option_text(k, v) for k, v in given.items() if v is not None)
        self.path = self.output  # where the trace is (to be) written
        self._session = None
        self._state = "new"  # new, running, stopped, forked
        self._written = False
        self._lock = threading.RLock()

    def __repr__(self):
        return f"nodescope.profile(output={self.output!r}, options={self.options!r}) [{self._state}]"

    @property
    def running(self):
        return self._state == "running"

    def start(self):
        """Starts tracing. A profile starts once; a second one at a time is refused by the
        library (ProfilerConflictError)."""
        with self._lock:
            if self._state != "new":
                raise Error(f"profile(): this session was already started ({self._state})",
                            "FAILED_PRECONDITION")
            self._session = _ext.Session.start(self.options)
            self._state = "running"
            with _active_lock:
                _active.add(self)
        return self

    def stop(self):
        """Flushes the device's activity, stops tracing and writes ``output`` if it was given.
        A second call does nothing."""
        with self._lock:
            if self._state == "stopped":
                return self
            self._check_owned()
            if self._state != "running":
                raise Error("profile(): not started", "FAILED_PRECONDITION")
            with _active_lock:
                _active.discard(self)
            self._state = "stopped"
            stop_error = None
            try:
                self._session.stop()
            except Error as e:  # the trace is finished either way: write it, then say why
                stop_error = e
            if self.output is not None:
                self.write()
            if stop_error is not None:
                raise stop_error
        return self

    def write(self, path=None):
        """Writes the stopped session's trace to ``path`` (default: ``output``, else a
        temporary file, which ``path`` then names) and returns the path written."""
        with self._lock:
            self._require_stopped("write()")
            if path is None:
                if self.path is None:
                    fd, self.path = tempfile.mkstemp(prefix="nodescope-", suffix=".json")
                    os.close(fd)
                if self._written:
                    return self.path
                path = self.path
                self._session.write(os.fspath(path))
                self._written = True
                return path
            self._session.write(os.fspath(path))
            return os.fspath(path)

    def capture(self, path):
        """While tracing: writes the window held now (everything so far, or with ``ring`` the
        most recent window) to ``path`` as a complete trace, and goes on tracing. Returns the
        path."""
        with self._lock:
            self._check_owned()
            if self._state != "running":
                raise Error("profile(): capture() needs a running session", "FAILED_PRECONDITION")
            self._session.capture(os.fspath(path))
        return os.fspath(path)

    def summary(self):
        """Counts of the stopped session's trace (streaming: of the last part, the file written
        at the end): gpu_events, kernels, memcpys, memsets, graph_events (GPU events carrying
        graph keys), api_calls, dropped."""
        with self._lock:
            self._require_stopped("summary()")
            return self._session.summary()

    def trace(self):
        """The stopped session's trace as a :class:`nodescope.Trace` (``nodescope.load`` of the
        file written, a temporary one if no ``output`` was given)."""
        from . import load  # the package's analysis side

        return load(self.write())

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.stop()
            return False
        try:  # the block failed: still keep what was traced, but its exception goes first
            self.stop()
        except Error as e:
            warnings.warn(f"nodescope.profile: could not stop cleanly: {e}", NodescopeWarning,
                          stacklevel=2)
        return False

    def _check_owned(self):
        if self._state == "forked" or (self._session is not None and not self._session.owned):
            raise Error("profile(): this session belongs to the parent process (os.fork() was "
                        "called while it ran); start a new profile() in the child",
                        "FAILED_PRECONDITION")

    def _require_stopped(self, what):
        self._check_owned()
        if self._state != "stopped":
            raise Error(f"profile(): {what} needs a stopped session (now {self._state})",
                        "FAILED_PRECONDITION")


class range(contextlib.ContextDecorator):
    """A user range on the calling thread, as a context manager or a decorator::

        with nodescope.range("forward"):
            model(x)

        @nodescope.range("step")
        def step(): ...

    It becomes a ``user_annotation`` on the thread and a ``gpu_user_annotation`` on every
    stream that ran work launched inside it (a CUDA graph captured inside it carries it into
    every replay). Recorded while a session traces; otherwise it costs about a microsecond, nearly
    all of it Python's call overhead."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"range(): name must be str, not {type(name).__name__}")
        self.name = name

    def __repr__(self):
        return f"nodescope.range({self.name!r})"

    def __enter__(self):
        _ext.range_push(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        _ext.range_pop()
        return False


def _on_message(level, ident, message):
    """The library's log handler (any thread, the GIL held by the extension)."""
    if level == _ext.LOG_WARNING:
        warnings.warn(NodescopeWarning(f"{message} [{ident}]"), stacklevel=2)
    else:
        _logger.log(_LOG_LEVELS.get(level, logging.ERROR), "%s [%s]", message, ident)


def _at_exit():
    with _active_lock:
        running = list(_active)
    for p in running:
        try:
            p.stop()
            if p.output is None:
                path = p.write()
                _logger.info("wrote the trace of a session still running at exit to %s", path)
        except Exception as e:  # noqa: BLE001 -- an exit hook must not raise
            print(f"nodescope: error: could not write the trace of {p!r} at exit: {e}",
                  file=sys.stderr)
    # Python may not run once the interpreter finalizes: the library's messages (a vendor
    # thread's, the C library's own exit) go to stderr from here on.
    _ext.set_log_handler(None)


def _after_fork_in_child():
    global _active_lock
    _active_lock = threading.Lock()  # a thread of the parent may have held it
    for p in list(_active):
        p._lock = threading.RLock()
        if p._session is not None:
            p._session.abandon()
        p._state = "forked"
    _active.clear()


_ext.set_log_handler(_on_message)
atexit.register(_at_exit)
os.register_at_fork(after_in_child=_after_fork_in_child)
