"""GPU test: the exec DAGs nodescope writes into the trace ("nodescopeGraphs",
docs/TRACE-DAG.md) have the shapes the programs built: a fork/join made explicitly and one
captured over two streams, a chain of programmatic dependent launches, a child graph, a
conditional WHILE node (its body not readable in CUDA 13.0: the DAG says incomplete), and the
same in sampled mode. Every keyed kernel's node id is a node of its exec's DAG.

Then the critical path `nodescope nodes` computes from it (issue 30): on a fork/join whose
branch B is longer, B's nodes are on the path in >= 99 % of replays and A's slack is within 10 %
of B - A as measured from the trace; the what-if (B 2x faster) is checked against the same graph
built with B at half its time; a PDL chain is one path; a torch program captured over two
streams has its longer (elementwise) branch on the path and the matmul's slack within 10 % of
the measured difference."""
import collections
import os
import statistics
import subprocess
import sys

from gpu_common import Checker, gpu_events, load, run_traced, setup

args, tmp = setup()
c = Checker("gpu_dag")
dag_cases = os.path.join(args.bin_dir, "dag_cases")
graph_cases = os.path.join(args.bin_dir, "graph_cases")


def trace_of(name, program, extra=()):
    out = os.path.join(tmp, f"{name}.json")
    cmd = [args.nodescope, "run", *extra, "-o", out, "--"] + program
    import subprocess
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        c.check(False, f"{name}: traced run ({r.returncode}): {r.stderr[-400:]}")
        return None, None
    return load(out), out


def dag_and_names(trace, name):
    dags = {d["graph id"]: d for d in trace.get("nodescopeGraphs", [])}
    keyed = [e for e in gpu_events(trace) if "graph id" in e["args"]]
    graphs = {e["args"]["graph id"] for e in keyed}
    c.check(len(graphs) == 1, f"{name}: one graph id in the records ({sorted(graphs)})")
    if not graphs:
        return None, {}
    g = graphs.pop()
    dag = dags.get(g)
    c.check(dag is not None, f"{name}: the trace holds graph {g}'s DAG")
    names = collections.defaultdict(set)
    for e in keyed:
        names[e["args"]["graph node id"]].add(e["name"])
    if dag is None:
        return None, names
    ids = {n[0] for n in dag["nodes"]} | {r[0] for r in dag["renamed"]}
    missing = [k for k in names if k not in ids]
    c.check(not missing, f"{name}: every keyed kernel's node id is a node of the DAG or renamed "
            f"({len(names)} keys, {len(ids)} nodes, missing {missing[:3]})")
    return dag, names


def named_edges(dag, names):
    label = {k: "/".join(sorted(v)) for k, v in names.items()}
    return collections.Counter(
        (label.get(f, "?"), label.get(t, "?"), kind) for f, t, kind in dag["edges"])


FORK = collections.Counter({("dag_root(long long)", "dag_branch_a(long long)", "full"): 1,
                            ("dag_root(long long)", "dag_branch_b(long long)", "full"): 1,
                            ("dag_branch_a(long long)", "dag_join(long long)", "full"): 1,
                            ("dag_branch_b(long long)", "dag_join(long long)", "full"): 1})

for name, program, extra in [("forkjoin", [dag_cases, "forkjoin", "20", "60", "200"], ()),
                             ("capture2", [dag_cases, "capture2"], ()),
                             ("forkjoin_sampled", [dag_cases, "forkjoin", "20", "60", "200"],
                              ("--sample", "5"))]:
    trace, _ = trace_of(name, program, extra)
    if trace is None:
        continue
    dag, names = dag_and_names(trace, name)
    if dag is None:
        continue
    edges = named_edges(dag, names)
    c.check(edges == FORK, f"{name}: edges root->a, root->b, a->join, b->join ({dict(edges)})")
    c.check(dag["complete"] is True, f"{name}: complete")

trace, _ = trace_of("pdl", [dag_cases, "pdl"])
if trace is not None:
    dag, names = dag_and_names(trace, "pdl")
    if dag is not None:
        kinds = collections.Counter(kind for _, _, kind in dag["edges"])
        c.check(len(dag["edges"]) == 7, f"pdl: 7 edges in a chain of 8 ({len(dag['edges'])})")
        c.check(kinds["programmatic"] == 7, f"pdl: all programmatic ({dict(kinds)})")

trace, _ = trace_of("child", [graph_cases, "child"])
if trace is not None:
    dag, names = dag_and_names(trace, "child")
    if dag is not None:
        child = [n for n in dag["nodes"] if n[1] == "child_graph"]
        c.check(len(child) == 1, f"child: one child_graph node ({dag['nodes']})")
        if child:
            body = [n for n in dag["nodes"] if n[2] == child[0][0]]
            c.check(len(body) == 2 and all(n[1] == "kernel" for n in body),
                    f"child: two kernels in its body ({body})")
        c.check(len(dag["edges"]) == 3, f"child: 3 edges ({dag['edges']})")
        edges = named_edges(dag, names)
        c.check(edges[("void k<10>(float*)", "void k<11>(float*)", "full")] == 1,
                f"child: the body's edge k<10> -> k<11> ({dict(edges)})")

trace, _ = trace_of("setparams", [graph_cases, "setparams"])
if trace is not None:
    dag, names = dag_and_names(trace, "setparams")
    if dag is not None:
        ids = {n[0] for n in dag["nodes"]}
        c.check(len(dag["renamed"]) == 1 and dag["renamed"][0][1] in ids,
                f"setparams: the swapped node's new id is renamed to its DAG node "
                f"({dag['renamed']})")

trace, _ = trace_of("while", [graph_cases, "while"])
if trace is not None:
    dags = trace.get("nodescopeGraphs", [])
    c.check(len(dags) == 1, f"while: one DAG ({len(dags)})")
    if dags:
        kinds = collections.Counter(n[1] for n in dags[0]["nodes"])
        c.check(kinds["conditional"] == 1, f"while: a conditional node ({dict(kinds)})")
        c.check(dags[0]["complete"] is False, "while: the DAG says it is incomplete (body unread)")


# ---- The critical path (nodes --json) against what the trace measured. ----
def nodes_json(path):
    r = subprocess.run([args.nodescope, "nodes", "--json", path], capture_output=True, text=True,
                       timeout=300)
    c.check(r.returncode == 0, f"nodes --json {os.path.basename(path)} exits 0 ({r.stderr[-300:]})")
    import json
    return json.loads(r.stdout) if r.returncode == 0 else None


def path_of(report, name_part):
    """(graph, node) of the heaviest graph whose node name contains name_part."""
    for g in report["graphs"]:
        for n in g["nodes"]:
            if name_part in n["name"]:
                return g, n
    return None, None


def replays(trace):
    by = collections.defaultdict(list)
    for e in gpu_events(trace):
        if "graph id" in e["args"]:
            by[e["args"]["correlation"]].append(e)
    return list(by.values())


def measured_span(trace):
    return statistics.median(max(e["ts"] + e["dur"] for e in replay) - min(e["ts"] for e in replay)
                             for replay in replays(trace))


fj, fj_path = trace_of("cp_forkjoin", [dag_cases, "forkjoin", "20", "60", "300"])
fast, fast_path = trace_of("cp_forkjoin_fast", [dag_cases, "forkjoin", "20", "30", "300"])
if fj is not None and fast is not None:
    report = nodes_json(fj_path)
    if report is not None:
        g, b = path_of(report, "dag_branch_b")
        _, a = path_of(report, "dag_branch_a")
        c.check(g is not None and g.get("critical_path", {}).get("dag") is True,
                "forkjoin: nodes has the critical path")
        if b is not None and a is not None and b.get("critical_path") and a.get("critical_path"):
            c.check(b["critical_path"]["share"] >= 0.99,
                    f"forkjoin: B on the path in >= 99 % of replays ({b['critical_path']['share']})")
            diffs = []
            for replay in replays(fj):
                end = {e["name"].split("(")[0]: e["ts"] + e["dur"] for e in replay}
                if "dag_branch_a" in end and "dag_branch_b" in end:
                    diffs.append(end["dag_branch_b"] - end["dag_branch_a"])
            want = statistics.median(diffs)
            got = a["critical_path"]["slack_p50_us"]
            c.check(abs(got - want) <= 0.1 * want,
                    f"forkjoin: A's slack p50 {got:.2f} us within 10 % of B - A measured {want:.2f} us")
            predicted = b["critical_path"]["whatif_span_p50_us"]
            real = measured_span(fast)
            c.check(abs(predicted - real) <= 0.1 * real,
                    f"forkjoin: what-if B 2x faster {predicted:.2f} us within 10 % of the measured "
                    f"span with B at half its time {real:.2f} us")

pdl, pdl_path = trace_of("cp_pdl", [dag_cases, "pdl"])
if pdl is not None:
    report = nodes_json(pdl_path)
    if report is not None:
        nodes = [n for g in report["graphs"] for n in g["nodes"] if "dag_pdl" in n["name"]]
        shares = [n["critical_path"]["share"] for n in nodes if n.get("critical_path")]
        c.check(len(shares) == 8 and min(shares) >= 0.99,
                f"pdl: every node of the chain on the path ({shares})")

torch_ok = subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                          capture_output=True).returncode == 0
if torch_ok:
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                          "torch_two_streams.py")
    two, two_path = trace_of("cp_torch", [sys.executable, script, "300"])
    if two is not None:
        report = nodes_json(two_path)
        g = report["graphs"][0] if report and report["graphs"] else None
        c.check(g is not None and g.get("critical_path", {}).get("dag") is True,
                "torch two streams: the heaviest graph has a DAG")
        if g is not None and g.get("critical_path", {}).get("dag"):
            elementwise = [n for n in g["nodes"] if "elementwise" in n["name"]]
            gemm = [n for n in g["nodes"] if "gemm" in n["name"].lower()]
            c.check(len(elementwise) >= 24 and len(gemm) >= 1,
                    f"torch two streams: {len(elementwise)} elementwise nodes, {len(gemm)} gemm")
            shares = [n["critical_path"]["share"] for n in elementwise if n.get("critical_path")]
            c.check(shares and min(shares) >= 0.99,
                    f"torch two streams: the elementwise branch on the path (min share "
                    f"{min(shares) if shares else None})")
            if gemm and gemm[0].get("critical_path"):
                # Measured with the DAG: the latest end among the predecessors of the matmul's
                # successor (what the successor waited for), minus the matmul's end.
                gid = g["graph_id"]
                dag = {d["graph id"]: d for d in two.get("nodescopeGraphs", [])}.get(gid)
                mm_id = gemm[0]["node_id"]
                succ = [t for f, t, _ in dag["edges"] if f == mm_id] if dag else []
                preds = {t: [f for f, t2, _ in dag["edges"] if t2 == t] for t in succ}
                diffs = []
                for replay in replays(two):
                    end = {e["args"]["graph node id"]: e["ts"] + e["dur"] for e in replay}
                    if mm_id not in end:
                        continue
                    waits = [max(end[p] for p in ps if p in end) for t, ps in preds.items()
                             if any(p in end for p in ps)]
                    if waits:
                        diffs.append(min(waits) - end[mm_id])
                c.check(len(diffs) > 0, f"torch two streams: the matmul's successors measured "
                        f"({len(succ)} successors)")
                if diffs:
                    want = statistics.median(diffs)
                    got = gemm[0]["critical_path"]["slack_p50_us"]
                    c.check(abs(got - want) <= 0.1 * max(want, 1.0),
                            f"torch two streams: the matmul's slack {got:.2f} us within 10 % of "
                            f"the measured difference {want:.2f} us")
else:
    print("  (torch with CUDA not installed: its part skipped)")

c.finish()
