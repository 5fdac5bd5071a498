"""nodescope: per-node statistics of CUDA/HIP graph traces, from Python.

    >>> import nodescope
    >>> t = nodescope.load("trace.json")      # a file, .json.gz, a list of files, a directory
    >>> t.nodes()                             # pandas DataFrame, one row per (rank, graph, node)
    >>> t.kernels()                           # one row per GPU activity
    >>> t.graphs()                            # the overview: graphs and eager work by GPU time
    >>> t.check()                             # the graph-node key check: verdict and counts

Every figure is computed by nodescope's C++ analysis library, the one the ``nodescope`` CLI
uses: ``t.nodes()`` holds the numbers of ``nodescope nodes --json``. Failures raise
:class:`nodescope.Error` subclasses carrying the library's message (and, for a trace that
cannot be read, the byte offset).
"""
import os

from ._errors import Error, InvalidArgumentError, TraceError, TraceNotFoundError
from . import _nodescope
# Tracing (_tracing.py). `range` shadows the builtin in this module: use builtins.range here.
from ._errors import NodescopeWarning, NoDeviceError, ProfilerConflictError
from ._tracing import profile, range  # noqa: A004

__all__ = ["load", "Trace", "Error", "TraceError", "TraceNotFoundError", "InvalidArgumentError"]

__all__ += ["profile", "range", "NodescopeWarning", "NoDeviceError", "ProfilerConflictError"]

_TRACE_SUFFIXES = (".json", ".json.gz")


def _trace_files(directory):
    files = sorted(
        os.path.join(directory, f)
        for f in os.listdir(directory)
        if f.endswith(_TRACE_SUFFIXES) and os.path.isfile(os.path.join(directory, f))
    )
    if not files:
        raise TraceNotFoundError(f"{directory}: no *.json or *.json.gz trace in the directory",
                                 "NOT_FOUND")
    return files


def _pandas():
    import pandas  # imported on first use: `import nodescope` stays cheap

    return pandas


class Trace:
    """One or more traces (one per rank, or a merged one), read on demand.

    Made by :func:`load`. Each method reads the files again through the C++ reader (streaming,
    bounded memory) and returns a fresh pandas DataFrame or dict.
    """

    def __init__(self, paths):
        self.paths = list(paths)

    def __repr__(self):
        return f"nodescope.Trace({self.paths!r})"

    def nodes(self):
        """Per-(rank, graph, node) statistics, one row each, as ``nodescope nodes --json``.

        Columns: rank, source, graph_id, graph (stable name), node_id, ordinal
        (node_id & 0xffffffff), name, cat, scope, replays, samples, total_us, mean_us, p50_us,
        p95_us, p99_us, max_us, min_us, stddev_us, drift, share, and the critical-path figures
        critical_path_share, slack_p50_us, slack_min_us, whatif_span_p50_us, whatif_gain_us
        (NaN where the trace records no DAG). Rows are sorted by rank, graph_id and ordinal.
        """
        df = _pandas().DataFrame(_nodescope.node_columns(self.paths), columns=_NODE_COLUMNS)
        return df.sort_values(["rank", "source", "graph_id", "ordinal"], kind="stable",
                              ignore_index=True)

    def graphs(self):
        """The overview of every rank: graphs and eager work (kernels outside graphs) ranked by
        GPU time, as the head of ``nodescope nodes``. Columns: rank, source, kind ("graph",
        "eager", "eager_other"), graph_id (-1 for eager work), name, cat, count, total_us,
        share, mean_us, p50_us, p99_us, max_us, node_count, sampled."""
        return _pandas().DataFrame(_nodescope.overview_columns(self.paths),
                                   columns=_OVERVIEW_COLUMNS)

    def kernels(self):
        """One row per GPU activity (kernel, copy, fill) of every file: ts_us, dur_us, name,
        cat, device ("pid"), stream ("tid"), correlation, graph_id, node_id, ordinal (-1 where
        the activity was not launched by a graph), rank (-1 when unknown), scope, source."""
        pd = _pandas()
        import numpy as np

        frames = []
        for path in self.paths:
            cols = _nodescope.kernel_columns(path)
            n = len(cols["ts_us"])
            table = {}
            for k in _KERNEL_COLUMNS:  # built in order: no reordering copy after
                if k in ("name", "cat", "scope"):  # each text held once, as a category
                    table[k] = pd.Categorical.from_codes(cols[k], categories=cols["strings"])
                elif k == "source":
                    table[k] = pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[path])
                else:
                    table[k] = cols[k]
            frames.append(pd.DataFrame(table, copy=False))
        if len(frames) == 1:
            return frames[0]
        return pd.concat(frames, ignore_index=True)

    def check(self):
        """The graph-node key check of every file, as ``nodescope check``: a dict with
        ``verdict`` ("clean" or the findings joined by ", "), ``clean`` (all files), and
        ``files``, one dict of counts per file (events, gpu_events, kernels, copies, fills,
        with_both_keys, keys, aliased_keys, mismatched_keys, one_key_only, ...)."""
        files = [dict(_nodescope.check_report(p), source=p) for p in self.paths]
        verdicts = sorted({f["verdict"] for f in files if not f["clean"]})
        return {"verdict": ", ".join(verdicts) if verdicts else "clean",
                "clean": not verdicts, "files": files}


_NODE_COLUMNS = ["rank", "source", "graph_id", "graph", "node_id", "ordinal", "name", "cat",
                 "scope", "replays", "samples", "total_us", "mean_us", "p50_us", "p95_us",
                 "p99_us", "max_us", "min_us", "stddev_us", "drift", "share",
                 "critical_path_share", "slack_p50_us", "slack_min_us", "whatif_span_p50_us",
                 "whatif_gain_us"]
_OVERVIEW_COLUMNS = ["rank", "source", "kind", "graph_id", "name", "cat", "count", "total_us",
                     "share", "mean_us", "p50_us", "p99_us", "max_us", "node_count", "sampled"]
_KERNEL_COLUMNS = ["ts_us", "dur_us", "name", "cat", "device", "stream", "correlation",
                   "graph_id", "node_id", "ordinal", "rank", "scope", "source"]


def load(source):
    """A :class:`Trace` over ``source``: a trace file (``.json`` or ``.json.gz``), a list of
    them (one per rank), or a directory of rank files (every ``*.json``/``*.json.gz`` in it).

    Raises :class:`TraceNotFoundError` for a missing path. Files are read when a table is asked
    for; a malformed trace raises :class:`TraceError` then, with the byte offset.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path):
            return Trace(_trace_files(path))
        paths = [path]
    else:
        paths = [os.fspath(p) for p in source]
        if not paths:
            raise InvalidArgumentError("load: no trace given", "INVALID_ARGUMENT")
    for p in paths:
        if not os.path.exists(p):
            raise TraceNotFoundError(f"{p}: no such file", "NOT_FOUND")
    return Trace(paths)
