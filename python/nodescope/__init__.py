"""nodescope: per-node statistics of CUDA/HIP graph traces, from Python.

    >>> import nodescope
    >>> t = nodescope.load("trace.json")      # a file, .json.gz, a list of files, a directory
    >>> t.nodes()                             # pandas DataFrame, one row per (rank, graph, node)
    >>> t.kernels()                           # one row per GPU activity
    >>> t.graphs()                            # the overview: graphs and eager work by GPU time
    >>> t.check()                             # the graph-node key check: verdict and counts
    >>> t.diff(nodescope.load("after.json"))  # node by node, as `nodescope nodes --diff`
    >>> t.plot()                              # `nodescope plot`'s picture (SVG; html=True: HTML)

Every figure is computed by nodescope's C++ analysis library, the one the ``nodescope`` CLI
uses: ``t.nodes()`` holds the numbers of ``nodescope nodes --json``. :func:`load` reads and
checks the files once; failures raise :class:`nodescope.Error` subclasses carrying the
library's message (and, for a trace that cannot be read, the byte offset).
"""
import html as _html
import os
import warnings as _warnings

from ._errors import Error, InvalidArgumentError, TraceError, TraceNotFoundError, TraceWarning
from . import _nodescope
# Tracing (_tracing.py). `range` shadows the builtin in this module: use builtins.range here.
from ._errors import NodescopeWarning, NoDeviceError, ProfilerConflictError
from ._tracing import profile, range  # noqa: A004

__all__ = ["load", "Trace", "Plot", "Error", "TraceError", "TraceNotFoundError",
           "InvalidArgumentError", "TraceWarning"]

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


def _frame(cols, order, text=()):
    """A DataFrame of the extension's columns in `order`, without copying them: the columns in
    `text` are codes into cols["strings"], made categories."""
    pd = _pandas()
    strings = cols.get("strings")
    table = {}
    for k in order:
        v = cols[k]
        table[k] = pd.Categorical.from_codes(v, categories=strings) if k in text else v
    # copy=False: each column stays its own array (no block of all float columns copied). No
    # columns= (the dict is in order): with it pandas 1.5 turns every column into an object
    # array first (a third of kernels()' time on 2 M rows).
    return pd.DataFrame(table, copy=False)


class Trace:
    """One or more traces (one per rank, or a merged one), read and checked by :func:`load`.

    The per-node series of every rank and each file's key check are held in C++ (the bounded
    memory of ``nodescope nodes``); :meth:`nodes`, :meth:`graphs`, :meth:`check`, :meth:`diff`
    and :meth:`plot` compute from them without reading the files again. :meth:`kernels`, whose
    rows grow with the trace, reads its files again each time it is called.

    In a notebook a Trace shows a summary table (one row per rank).
    """

    def __init__(self, data):
        """Made by :func:`load` (``data``: the extension's TraceData); not called directly."""
        self._data = data
        self.paths = list(data.paths)

    def __repr__(self):
        """Files, ranks, graphs, nodes and GPU activities loaded."""
        s = self._data.summary()
        ranks = s["ranks"]
        return (f"<nodescope.Trace: {len(self.paths)} file(s), {len(ranks)} rank(s), "
                f"{sum(r['graphs'] for r in ranks)} graph(s), "
                f"{sum(r['nodes'] for r in ranks)} node(s), "
                f"{sum(r['gpu_events'] for r in ranks)} GPU activities>")

    def _repr_html_(self):
        s = self._data.summary()
        head = ("rank", "source", "graphs", "nodes", "GPU activities", "graph-keyed", "DAGs",
                "sampled")
        rows = []
        for r in s["ranks"]:
            cells = (r["rank"] if r["rank"] >= 0 else "", r["source"], r["graphs"], r["nodes"],
                     r["gpu_events"], r["keyed_events"], r["dags"],
                     "yes" if r["sampled"] else "no")
            rows.append("<tr>" + "".join(f"<td>{_html.escape(str(c))}</td>" for c in cells)
                        + "</tr>")
        return ("<div><b>nodescope.Trace</b>"
                f" ({len(self.paths)} file{'s' if len(self.paths) != 1 else ''})"
                "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) +
                "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")

    def nodes(self):
        """Per-(rank, graph, node) statistics, one row each, as ``nodescope nodes --json``.

        Columns: rank (-1 when the trace names none), source (the file; "FILE (slot N)" for a
        process of a merged trace), graph_id, graph (stable name), node_id, ordinal
        (node_id & 0xffffffff), name, cat, scope, replays, samples (occurrences the percentiles
        come from), total_us, mean_us, p50_us, p95_us, p99_us, max_us, min_us, stddev_us,
        drift, share (of the graph's GPU time), and the critical-path figures
        critical_path_share, slack_p50_us, slack_min_us, whatif_span_p50_us, whatif_gain_us
        (NaN where the trace records no DAG). Rows are in rank order, then graph id, then
        ordinal. Text columns are categories.
        """
        return _frame(self._data.node_columns(), _NODE_COLUMNS,
                      text=("source", "graph", "name", "cat", "scope"))

    def graphs(self):
        """The overview of every rank: graphs and eager work (GPU work outside graphs) ranked
        by GPU time, as the head of ``nodescope nodes``. Columns: rank, source, kind ("graph",
        "eager", "eager_other"), graph_id (-1 for eager work), name, cat, count (replays of a
        graph, launches of eager work), total_us, share, mean_us, p50_us, p99_us, max_us,
        node_count, sampled (a graph's replay figures come from a sample)."""
        return _frame(self._data.overview_columns(), _OVERVIEW_COLUMNS,
                      text=("source", "kind", "name", "cat"))

    def kernels(self):
        """One row per GPU activity (kernel, copy, fill) of every file, in file order.

        Columns: ts and dur (microseconds, as the trace's "ts" and "dur"; NaN if absent), name,
        kind ("kernel", "memcpy", "memset"), cat (as written), device ("pid" when a number),
        stream ("tid" when a number), correlation, graph_id, node_id, ordinal (node_id &
        0xffffffff), rank, scope (capture-time range path, "" if none), sampled (the trace is a
        sampled one: it holds about one launch in N, ``nodescope.sampling`` in its header),
        source (the file). Missing integers are -1 (graph_id, node_id and ordinal: the activity
        was not launched by a graph). Reads the files again: the rows are not kept by load().
        """
        pd = _pandas()
        import numpy as np

        frames = []
        for path in self.paths:
            cols = _nodescope.kernel_columns(path)
            n = len(cols["ts"])
            cols["kind"] = pd.Categorical.from_codes(cols["kind"],
                                                     categories=_nodescope.KERNEL_KINDS)
            cols["sampled"] = np.full(n, bool(cols["sampled"]))
            cols["source"] = pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[path])
            frames.append(_frame(cols, _KERNEL_COLUMNS, text=("name", "cat", "scope")))
        if len(frames) == 1:
            return frames[0]
        return pd.concat(frames, ignore_index=True)

    def check(self):
        """The graph-node key check of every file, as ``nodescope check``: a dict with
        ``verdict`` ("clean" or the findings joined by ", "), ``clean`` (all files), and
        ``files``, one dict of counts per file (source, events, gpu_events, kernels, copies,
        fills, with_both_keys, keys, aliased_keys, mismatched_keys, one_key_only, ...).
        Counted by load(), in the read that groups the nodes."""
        files = self._data.check_reports()
        verdicts = sorted({f["verdict"] for f in files if not f["clean"]})
        return {"verdict": ", ".join(verdicts) if verdicts else "clean",
                "clean": not verdicts, "files": files}

    def diff(self, other):
        """This trace's nodes (A, before) against ``other``'s (B, after), node by node, as
        ``nodescope nodes A --diff B``: graphs paired by id and node sequence, nodes aligned
        by name (a node added, removed or fused away does not shift the others).

        One row per aligned step: graph_match ("same_id", "same_nodes", "same_id_other_nodes",
        "only_a", "only_b"), graph_id_a, graph_id_b, kind ("paired", "fused", "only_a",
        "only_b"), node_id_a/_b, ordinal_a/_b, name_a/_b, scope_a/_b, replays_a/_b,
        mean_a_us/mean_b_us, total_a_us/total_b_us, delta_us (mean B - mean A), delta_fraction,
        fused_a (for a fusion: how many consecutive nodes of A the B node stands for; side A then
        shows the first of them and the sum of their means and totals). A missing side has
        ids -1, replays 0, NaN figures. Rows come in the CLI's order (graphs by A's id; in a
        graph, matched nodes by |delta_us| descending, fusions, then nodes only in A, only in B).
        Of several ranks, the first (reference) rank of each trace is compared.
        """
        if not isinstance(other, Trace):
            raise InvalidArgumentError("diff: other must be a nodescope.Trace (nodescope.load)",
                                       "INVALID_ARGUMENT")
        return _frame(self._data.diff_columns(other._data), _DIFF_COLUMNS,
                      text=("graph_match", "kind", "name_a", "name_b", "scope_a", "scope_b"))

    def plot(self, graph=None, node=None, heatmap=False, top=16, width=960, html=False):
        """``nodescope plot``'s picture of each node's duration over the replays, as a
        :class:`Plot` (shown inline by a notebook; ``.save(path)`` writes it).

        graph: only this graph id. node: a node id or ordinal, or a list of them: only those
        nodes (with several ranks, exactly one: it is drawn across the ranks, one line per
        rank). heatmap: a heat map even for a few nodes. top: at most this many graphs drawn.
        width: pixels. html: an HTML page (with hover details) instead of an SVG document.
        Raises nodescope.Error when there is nothing to draw (no graph-keyed work, an unknown
        graph or node).
        """
        nodes = [] if node is None else ([node] if isinstance(node, int) else list(node))
        source = (os.path.basename(self.paths[0]) if len(self.paths) == 1
                  else f"{len(self.paths)} files")
        out = self._data.plot(graph, nodes, heatmap, top, width, source, html)
        return Plot(out["text"], "html" if html else "svg", out["left_out"])


class Plot:
    """A picture made by :meth:`Trace.plot`: ``text`` is the SVG or HTML document, ``format``
    "svg" or "html", ``left_out`` what it leaves out (the lightest graphs and nodes: counts and
    GPU time). A notebook shows it inline."""

    def __init__(self, text, format, left_out):
        self.text = text
        self.format = format
        self.left_out = left_out

    def __repr__(self):
        return f"<nodescope.Plot: {self.format}, {len(self.text)} characters>"

    def _repr_svg_(self):
        return self.text if self.format == "svg" else None

    def _repr_html_(self):
        return self.text if self.format == "html" else None

    def save(self, path):
        """Writes the document to ``path`` (UTF-8)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)


_NODE_COLUMNS = ["rank", "source", "graph_id", "graph", "node_id", "ordinal", "name", "cat",
                 "scope", "replays", "samples", "total_us", "mean_us", "p50_us", "p95_us",
                 "p99_us", "max_us", "min_us", "stddev_us", "drift", "share",
                 "critical_path_share", "slack_p50_us", "slack_min_us", "whatif_span_p50_us",
                 "whatif_gain_us"]
_OVERVIEW_COLUMNS = ["rank", "source", "kind", "graph_id", "name", "cat", "count", "total_us",
                     "share", "mean_us", "p50_us", "p99_us", "max_us", "node_count", "sampled"]
_KERNEL_COLUMNS = ["ts", "dur", "name", "kind", "cat", "device", "stream", "correlation",
                   "graph_id", "node_id", "ordinal", "rank", "scope", "sampled", "source"]
_DIFF_COLUMNS = ["graph_match", "graph_id_a", "graph_id_b", "kind", "node_id_a", "node_id_b",
                 "ordinal_a", "ordinal_b", "name_a", "name_b", "scope_a", "scope_b", "replays_a",
                 "replays_b", "mean_a_us", "mean_b_us", "total_a_us", "total_b_us", "delta_us",
                 "delta_fraction", "fused_a"]


def load(source):
    """Reads and checks ``source``: a trace file (``.json`` or ``.json.gz``), a list of them
    (one per rank), or a directory of rank files (every ``*.json``/``*.json.gz`` in it).

    The files are read once, here, with the CLI's reader and limits (``nodescope nodes``):
    a malformed or refused trace raises :class:`TraceError` now, its ``offset`` the byte where
    reading stopped; a missing path raises :class:`TraceNotFoundError`. What ``nodescope
    nodes`` warns about (aliased node keys, nodes past the limits, figures from a sample of the
    replays) is issued as a :class:`TraceWarning` (the ``warnings`` module). Returns a
    :class:`Trace`.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        paths = _trace_files(path) if os.path.isdir(path) else [path]
    else:
        paths = [os.fspath(p) for p in source]
        if not paths:
            raise InvalidArgumentError("load: no trace given", "INVALID_ARGUMENT")
    for p in paths:
        if not os.path.exists(p):
            raise TraceNotFoundError(f"{p}: no such file", "NOT_FOUND")
    data = _nodescope.TraceData.load(paths)
    for message in data.warnings():
        _warnings.warn(message, TraceWarning, stacklevel=2)
    return Trace(data)
