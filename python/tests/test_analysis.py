"""nodescope.Trace against the CLI on every trace of the repository: load() validates at once,
nodes() holds `nodes --json`'s figures (also across the ranks of a merged trace), diff() the rows
of `nodes A --diff B --json`, plot() the bytes of `nodescope plot`; kernels() has kind and
sampled; the reprs say what was loaded."""
import json
import math
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

import nodescope
from conftest import ROOT, TESTDATA

DIRS = [TESTDATA, os.path.join(ROOT, "src", "export", "testdata"),
        os.path.join(ROOT, "tools", "nodescope", "testdata")]
ALL = sorted(os.path.join(d, f) for d in DIRS for f in os.listdir(d)
             if f.endswith((".json", ".json.gz")))


def cli_json(cli, *args):
    run = subprocess.run([cli, *args], capture_output=True, text=True)
    return run.returncode, (json.loads(run.stdout) if run.stdout.strip() else None), run.stderr


def close(ours, printed, decimals):
    if printed is None:  # the CLI prints NaN as null
        return math.isnan(ours)
    return abs(ours - printed) <= 0.5 * 10 ** -decimals + 1e-9 * abs(printed)


@pytest.fixture(scope="module")
def checked(cli):
    """Each trace of the repository with `nodescope check`'s exit status."""
    return {p: subprocess.run([cli, "check", p], capture_output=True).returncode for p in ALL}


def test_the_repository_has_valid_and_invalid_traces(checked):
    assert sum(rc != 2 for rc in checked.values()) >= 18
    assert sum(rc == 2 for rc in checked.values()) >= 8


@pytest.mark.parametrize("trace", ALL, ids=lambda p: os.path.relpath(p, ROOT))
def test_load_agrees_with_the_cli(cli, checked, trace):
    """What the CLI refuses, load() refuses at the byte the CLI names; what it reads, load()
    reads, and nodes() holds `nodes --json`'s figures."""
    if checked[trace] == 2:
        err = subprocess.run([cli, "check", trace], capture_output=True, text=True).stderr
        with pytest.raises(nodescope.TraceError) as e:
            nodescope.load(trace)
        assert e.value.offset is not None, str(e.value)
        assert re.search(rf"byte {e.value.offset}\b", err), (str(e.value), err)
        return
    t = nodescope.load(trace)
    nodes = t.nodes()
    rc, printed, _ = cli_json(cli, "nodes", "--json", trace)
    if rc == 1:  # no graph-keyed work
        assert len(nodes) == 0
        return
    assert rc == 0
    if "ranks" in printed:  # a merged trace: the CLI prints nodes across ranks
        rows = {(r.rank, r.graph_id, r.node_id): r for r in nodes.itertuples()}
        seen = 0
        for g in printed["graphs"]:
            for n in g["nodes"]:
                r = rows[(n["rank"], n["rank_graph_id"], n["rank_node_id"])]
                assert r.name == n["name"] and r.replays == n["replays"]
                for col in ("mean_us", "p50_us", "max_us", "total_us"):
                    assert close(getattr(r, col), n[col], 3), (col, getattr(r, col), n[col])
                seen += 1
        assert seen > 0
        return
    want = {(g["graph_id"], n["node_id"]): n for g in printed["graphs"] for n in g["nodes"]}
    assert len(nodes) == len(want) > 0
    for row in nodes.itertuples():
        p = want[(row.graph_id, row.node_id)]
        assert (row.name, row.cat, row.scope, row.replays) == (p["name"], p["cat"], p["scope"],
                                                               p["replays"])
        for col in ("total_us", "mean_us", "p50_us", "p99_us", "max_us", "stddev_us"):
            assert close(getattr(row, col), p[col], 3), (col, getattr(row, col), p[col])
        assert close(row.share, p["share"], 6)
    # In rank, graph id, ordinal order.
    keys = list(zip(nodes.graph_id, nodes.ordinal))
    assert keys == sorted(keys)
    graphs = t.graphs()
    overview = printed["overview"]
    assert len(graphs) == len(overview["lines"] if "lines" in overview else overview)


DIFF_PAIRS = [("clean.json", "replays_8x200.json"), ("overview_mixed.json",
                                                     "overview_mixed_ids.json"),
              ("sampled.json", "sampled_burst.json"), ("weights.json", "weights.json"),
              ("forkjoin_dag_h200.json", "clean.json")]


@pytest.mark.parametrize("a,b", DIFF_PAIRS)
def test_diff_is_nodes_diff(cli, a, b):
    pa, pb = os.path.join(TESTDATA, a), os.path.join(TESTDATA, b)
    rc, printed, err = cli_json(cli, "nodes", pa, "--diff", pb, "--json")
    assert rc == 0, err
    want = [(g, n) for g in printed["graphs"] for n in g["nodes"]]
    df = nodescope.load(pa).diff(nodescope.load(pb))
    assert len(df) == len(want) > 0
    for row, (g, n) in zip(df.itertuples(), want):
        assert row.graph_match == g["match"]
        assert row.graph_id_a == (g["graph_id_a"] if g["graph_id_a"] is not None else -1)
        assert row.graph_id_b == (g["graph_id_b"] if g["graph_id_b"] is not None else -1)
        fused = n["fused_node_ids_a"]
        assert row.fused_a == len(fused)
        if fused:
            assert row.kind == "fused" and row.node_id_a == fused[0]
        else:
            assert row.node_id_a == (n["node_id_a"] if n["node_id_a"] is not None else -1)
            assert row.name_a == (n["name_a"] or "")
            assert close(row.mean_a_us, n["mean_a_us"], 3)
        assert row.node_id_b == (n["node_id_b"] if n["node_id_b"] is not None else -1)
        assert row.name_b == (n["name_b"] or "")
        assert close(row.mean_b_us, n["mean_b_us"], 3)
        assert close(row.delta_us, n["delta_us"], 3)
        assert row.kind == ("fused" if fused else "paired" if n["node_id_a"] is not None and
                            n["node_id_b"] is not None else
                            "only_a" if n["node_id_a"] is not None else "only_b")
    if a == b:  # a trace against itself: every node paired, no change
        assert (df.kind == "paired").all() and (df.delta_us == 0).all()


def test_diff_wants_a_trace():
    with pytest.raises(nodescope.InvalidArgumentError):
        nodescope.load(os.path.join(TESTDATA, "clean.json")).diff("clean.json")


@pytest.mark.parametrize("name,args", [("forkjoin_dag_h200.json", {}),
                                       ("replays_8x200.json", {"heatmap": True}),
                                       ("weights.json", {"top": 1, "width": 640})])
def test_plot_is_the_clis_picture(cli, tmp_path, name, args):
    trace = os.path.join(TESTDATA, name)
    p = nodescope.load(trace).plot(**args)
    root = ET.fromstring(p.text.encode("utf-8"))  # parses as XML
    assert root.tag.endswith("svg")
    assert p._repr_svg_() == p.text and p._repr_html_() is None
    out = tmp_path / "cli.svg"
    argv = [cli, "plot", trace, "-o", str(out)]
    if args.get("heatmap"):
        argv.append("--heatmap")
    if "top" in args:
        argv += ["--top", str(args["top"])]
    if "width" in args:
        argv += ["--width", str(args["width"])]
    subprocess.run(argv, check=True, capture_output=True)
    assert p.text == out.read_text(encoding="utf-8")
    p.save(tmp_path / "py.svg")
    assert (tmp_path / "py.svg").read_text(encoding="utf-8") == p.text
    page = nodescope.load(trace).plot(html=True, **args)
    assert page._repr_html_().lstrip().lower().startswith("<!doctype html")
    assert page._repr_svg_() is None


def test_plot_of_one_node_and_errors():
    t = nodescope.load(os.path.join(TESTDATA, "forkjoin_dag_h200.json"))
    one = t.plot(node=2)
    assert "dag_branch_b" in one.text and "dag_root" not in one.text
    with pytest.raises(nodescope.Error) as e:
        t.plot(graph=999)
    assert e.value.code == "NOT_FOUND"
    with pytest.raises(nodescope.Error):
        nodescope.load(os.path.join(TESTDATA, "torch.json")).plot()  # no graph keys
    merged = nodescope.load(os.path.join(TESTDATA, "merged_4x2.json"))
    with pytest.raises(nodescope.InvalidArgumentError):
        merged.plot()  # several ranks: one node, drawn across them
    assert "rank 3" in merged.plot(node=0).text


def test_kernels_kind_and_sampled():
    k = nodescope.load(os.path.join(TESTDATA, "sampled.json")).kernels()
    assert len(k) > 0 and k.sampled.all()
    k = nodescope.load(os.path.join(TESTDATA, "clean.json")).kernels()
    assert not k.sampled.any()
    kinds = {}
    for name in ("torch.json", "overview_mixed.json", "weights.json", "clean.json"):
        for cat, kind in nodescope.load(os.path.join(TESTDATA, name)).kernels()[["cat", "kind"]] \
                .itertuples(index=False):
            kinds[cat] = kind
    expected = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset",
                "Memcpy": "memcpy", "Memset": "memset"}
    assert {c: expected[c] for c in kinds} == kinds
    assert "memcpy" in kinds.values()


def test_repr_and_notebook_table(tmp_path):
    t = nodescope.load([os.path.join(TESTDATA, "clean.json"),
                        os.path.join(TESTDATA, "forkjoin_dag_h200.json")])
    text = repr(t)
    assert text.startswith("<nodescope.Trace: 2 file(s), 2 rank(s)")
    assert f"{len(t.nodes())} node(s)" in text
    html = t._repr_html_()
    root = ET.fromstring(html)  # well-formed
    rows = root.findall(".//tbody/tr")
    assert len(rows) == 2
    cells = [c.text for c in rows[1].findall("td")]
    assert cells[1].endswith("forkjoin_dag_h200.json") and cells[3] == "4"
    # A source name is escaped.
    odd = tmp_path / "a<b>&.json"
    odd.write_bytes(open(os.path.join(TESTDATA, "clean.json"), "rb").read())
    ET.fromstring(nodescope.load(str(odd))._repr_html_())


def test_tables_do_not_read_the_files_again(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_bytes(open(os.path.join(TESTDATA, "replays_8x200.json"), "rb").read())
    t = nodescope.load(str(trace))
    before = t.nodes()
    trace.write_text("not json")  # gone bad after load(): nodes/graphs/check/plot still answer
    assert t.nodes().equals(before)
    assert len(t.graphs()) > 0 and t.check()["clean"]
    assert t.plot().text.startswith("<?xml")
    with pytest.raises(nodescope.TraceError):
        t.kernels()  # the rows are read again, by design


def test_help_reads_well():
    for name in ("load", "Trace", "Plot"):
        assert len(getattr(nodescope, name).__doc__) > 100
    for method in ("nodes", "graphs", "kernels", "check", "diff", "plot"):
        doc = getattr(nodescope.Trace, method).__doc__
        assert doc and len(doc) > 150, method


def test_what_nodes_warns_about_is_a_trace_warning():
    with pytest.warns(nodescope.TraceWarning, match="4 of 4 node keys are aliased"):
        nodescope.load(os.path.join(TESTDATA, "aliased.json"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a clean trace warns about nothing
        nodescope.load(os.path.join(TESTDATA, "clean.json"))
