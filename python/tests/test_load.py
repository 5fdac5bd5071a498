"""nodescope.load over the analysis library's test traces: every valid one loads, every invalid
one raises with its byte offset, and t.nodes() holds `nodescope nodes --json`'s figures."""
import gzip
import json
import math
import os
import shutil
import subprocess

import pytest

import nodescope
from conftest import TESTDATA

# The traces `nodescope check` refuses (exit status 2), with the byte the CLI names.
INVALID = {
    "escape_outside_string.json": 3,
    "not_json.json": 0,
    "refused_dur.json": 167,
    "refused_pid.json": 167,
    "refused_ts.json": 167,
    "truncated.json": 4324,
    "wrong_type.json": 664,
}
VALID = sorted(f for f in os.listdir(TESTDATA)
               if f.endswith((".json", ".json.gz")) and f not in INVALID)
# Single-process traces with graph-keyed work: `nodes --json` prints one "graphs" list for them.
NODES_TRACES = ["clean.json", "clean.json.gz", "forkjoin_dag_h200.json", "replays_8x200.json",
                "sampled.json", "sampled_burst.json", "weights.json", "overview_mixed.json",
                "overview_mixed_ids.json", "aliased.json", "inconsistent.json"]


def path(name):
    return os.path.join(TESTDATA, name)


def test_every_trace_is_classified():
    assert len(VALID) >= 10
    for name in INVALID:
        assert os.path.exists(path(name)), name


@pytest.mark.parametrize("name", VALID)
def test_valid_trace_loads(name):
    t = nodescope.load(path(name))
    nodes = t.nodes()
    kernels = t.kernels()
    graphs = t.graphs()
    report = t.check()
    assert report["verdict"] in ("clean", "aliased", "inconsistent", "aliased, inconsistent")
    assert len(kernels) == sum(f["gpu_events"] for f in report["files"])
    keyed = kernels[kernels.graph_id >= 0]
    assert (keyed.ordinal == keyed.node_id % (1 << 32)).all()
    if len(nodes):
        assert (nodes.replays > 0).all()
        assert set(nodes.graph_id) <= set(graphs.graph_id)


@pytest.mark.parametrize("name,offset", sorted(INVALID.items()))
def test_invalid_trace_raises_with_offset(cli, name, offset):
    # At load(): the files are read and checked there, not when a table is asked for.
    with pytest.raises(nodescope.TraceError) as e:
        nodescope.load(path(name))
    assert e.value.offset == offset, str(e.value)
    assert e.value.code == "DATA_LOSS"
    assert path(name) in str(e.value)
    assert isinstance(e.value, nodescope.Error)
    # The CLI names the same byte.
    run = subprocess.run([cli, "check", path(name)], capture_output=True, text=True)
    assert run.returncode == 2
    assert f"byte {offset}" in run.stderr, run.stderr
    # Also as one file among valid ones: the whole load fails.
    with pytest.raises(nodescope.TraceError) as e:
        nodescope.load([path("clean.json"), path(name)])
    assert e.value.offset == offset


def test_missing_file_raises():
    with pytest.raises(nodescope.TraceNotFoundError):
        nodescope.load(path("no_such_trace.json"))
    with pytest.raises(FileNotFoundError):
        nodescope.load([path("clean.json"), path("no_such_trace.json")])
    with pytest.raises(nodescope.InvalidArgumentError):
        nodescope.load([])


def close(ours, printed, decimals):
    if printed is None:  # the CLI prints NaN as null
        return math.isnan(ours)
    return abs(ours - printed) <= 0.5 * 10 ** -decimals + 1e-9 * abs(printed)


@pytest.mark.parametrize("name", NODES_TRACES)
def test_nodes_match_cli_json(cli, name):
    out = subprocess.run([cli, "nodes", "--json", path(name)], check=True, capture_output=True,
                         text=True).stdout
    printed = {(g["graph_id"], n["node_id"]): n
               for g in json.loads(out)["graphs"] for n in g["nodes"]}
    df = nodescope.load(path(name)).nodes()
    assert len(df) == len(printed) > 0
    for row in df.itertuples():
        p = printed[(row.graph_id, row.node_id)]
        assert row.ordinal == row.node_id & 0xFFFFFFFF
        assert (row.name, row.cat, row.scope, row.replays) == (p["name"], p["cat"], p["scope"],
                                                               p["replays"])
        for col in ("total_us", "mean_us", "p50_us", "p95_us", "p99_us", "max_us", "stddev_us"):
            assert close(getattr(row, col), p[col], 3), (col, getattr(row, col), p[col])
        for col in ("drift", "share"):
            assert close(getattr(row, col), p[col], 6), (col, getattr(row, col), p[col])
        cp = p.get("critical_path")
        if cp:
            assert close(row.critical_path_share, cp["share"], 6)
            assert close(row.slack_p50_us, cp["slack_p50_us"], 3)
            assert close(row.slack_min_us, cp["slack_min_us"], 3)
        else:
            assert math.isnan(row.critical_path_share)


def test_gzip_equals_plain():
    plain = nodescope.load(path("clean.json"))
    packed = nodescope.load(path("clean.json.gz"))
    cols = ["graph_id", "node_id", "replays", "mean_us", "p99_us"]
    assert plain.nodes()[cols].equals(packed.nodes()[cols])
    assert len(plain.kernels()) == len(packed.kernels())


def test_gzip_error_offset_counts_inflated_bytes(tmp_path):
    gz = tmp_path / "truncated.json.gz"
    with open(path("truncated.json"), "rb") as f, gzip.open(gz, "wb") as out:
        shutil.copyfileobj(f, out)
    with pytest.raises(nodescope.TraceError) as e:
        nodescope.load(str(gz)).nodes()
    assert e.value.offset == INVALID["truncated.json"]


def test_directory_of_rank_files(tmp_path):
    for name in ("clean.json", "replays_8x200.json"):
        shutil.copy(path(name), tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a trace")
    t = nodescope.load(str(tmp_path))
    assert [os.path.basename(p) for p in t.paths] == ["clean.json", "replays_8x200.json"]
    nodes = t.nodes()
    assert set(nodes.source) == {str(tmp_path / "clean.json"), str(tmp_path / "replays_8x200.json")}
    assert len(t.kernels()) == sum(len(nodescope.load(p).kernels()) for p in t.paths)


def test_merged_trace_has_ranks():
    nodes = nodescope.load(path("merged_4x2.json")).nodes()
    assert sorted(set(nodes["rank"])) == [0, 1, 2, 3]
    kernels = nodescope.load(path("merged_4x2.json")).kernels()
    assert sorted(set(kernels["rank"])) == [0, 1, 2, 3]


def test_check_verdicts():
    assert nodescope.load(path("clean.json")).check()["verdict"] == "clean"
    assert nodescope.load(path("aliased.json")).check()["verdict"] == "aliased"
    report = nodescope.load(path("inconsistent.json")).check()
    assert not report["clean"] and "inconsistent" in report["verdict"]


def test_kernels_columns():
    k = nodescope.load(path("forkjoin_dag_h200.json")).kernels()
    assert list(k.columns) == ["ts", "dur", "name", "kind", "cat", "device", "stream",
                               "correlation", "graph_id", "node_id", "ordinal", "rank", "scope",
                               "sampled", "source"]
    assert len(k) > 0 and (k.dur >= 0).all()
    assert set(k.kind) == {"kernel"} and not k.sampled.any()
    assert "dag_branch_b(long long)" in set(k.name)
