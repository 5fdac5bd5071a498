"""GPU test: the exec DAGs nodescope writes into the trace ("nodescopeGraphs",
docs/TRACE-DAG.md) have the shapes the programs built: a fork/join made explicitly and one
captured over two streams, a chain of programmatic dependent launches, a child graph, a
conditional WHILE node (its body not readable in CUDA 13.0: the DAG says incomplete), and the
same in sampled mode. Every keyed kernel's node id is a node of its exec's DAG."""
import collections
import os

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

c.finish()
