"""GPU test: NVTX ranges under `nodescope run` become user_annotation events on the CPU and
gpu_user_annotation spans on the device; ranges open while a graph was captured follow its nodes
into every replay ("scope" arg, one span per replay); odd range use is counted."""
import collections
import os

from gpu_common import Checker, gpu_events, load, run_traced, setup

args, tmp = setup()
c = Checker("gpu_ranges")
out = os.path.join(tmp, "ranges.json")
r = run_traced(args, out, [os.path.join(args.bin_dir, "ranges_cases")])
print(r.stdout, r.stderr)
c.check(r.returncode == 0, f"program exits 0 (got {r.returncode})")
t = load(out)
ev = t["traceEvents"]
cpu = [e for e in ev if e.get("cat") == "user_annotation"]
gpu_spans = [e for e in ev if e.get("cat") == "gpu_user_annotation"]
kernels = gpu_events(t, ("kernel",))
by_name = collections.defaultdict(list)
for e in cpu:
    by_name[e["name"]].append(e)
for name in ("setup", "model", "layer.0", "layer.1", "replay", "replay2", "io", "registered",
             "worker exits inside", "left open"):
    c.check(len(by_name[name]) == 1, f"one CPU user_annotation {name!r} (got {len(by_name[name])})")
c.check(by_name["registered"] and by_name["registered"][0]["args"].get("domain") == "mydomain",
        "domain range carries its domain")
c.check(by_name["io"] and by_name["io"][0]["args"].get("end tid") not in (None, by_name["io"][0]["tid"]),
        "Start/End range ended on another thread records it")
c.check(by_name["left open"] and by_name["left open"][0]["args"].get("open at end") is True,
        "range left open is closed at the end and marked")
rc = t["nodescope"]["ranges"]
c.check(rc["unbalanced_pops"] == 1, f"1 unbalanced pop counted ({rc})")
c.check(rc["ended_on_other_thread"] == 1, "1 range ended on another thread counted")
c.check(rc["open_at_end"] >= 1, "open-at-end counted")

ext = {e["args"]["External id"]: e for e in cpu}


def span_matches(span, ks):
    """The span's exact extent (its written bounds less "widened (ns)" each side) is its work's."""
    lo = min(k["ts"] for k in ks)
    hi = max(k["ts"] + k["dur"] for k in ks)
    pad = span["args"]["widened (ns)"] / 1000
    return (pad > 0 and abs(span["ts"] + pad - lo) < 0.0005 and
            abs(span["ts"] + span["dur"] - pad - hi) < 0.0005)


# A worker thread that ended inside its range.
worker = by_name["worker exits inside"]
c.check(worker and worker[0]["args"].get("ended at thread exit") is True
        and "open at end" not in worker[0]["args"] and by_name["left open"]
        and worker[0]["tid"] != by_name["left open"][0]["tid"],
        f"range its worker thread ended inside is closed at the thread's exit and marked ({worker})")
c.check(rc["ended_at_thread_exit"] == 1, f"1 range ended at thread exit counted ({rc})")
worker_kernels = [k for k in kernels if "k<102>" in k["name"]]
worker_spans = [s for s in gpu_spans if s["name"] == "worker exits inside"]
c.check(len(worker_kernels) == 1 and worker and
        worker_kernels[0]["args"].get("External id") == worker[0]["args"]["External id"],
        "the worker's kernel links to its range")
c.check(len(worker_spans) == 1 and span_matches(worker_spans[0], worker_kernels),
        "the worker's range has one device span covering its kernel")

# Runtime ranges: setup covers exactly its three kernels, replay exactly its 150.
setup_kernels = [k for k in kernels if "k<100>" in k["name"]]
setup_spans = [s for s in gpu_spans if s["name"] == "setup"]
c.check(len(setup_kernels) == 3 and len(setup_spans) == 1, "setup: 3 kernels, 1 device span")
c.check(setup_spans and span_matches(setup_spans[0], setup_kernels), "setup span covers exactly its kernels")
c.check(all(k["args"].get("External id") == by_name["setup"][0]["args"]["External id"]
            for k in setup_kernels), "setup kernels link to the range by External id")
updated = [k for k in kernels if "k<10>" in k["name"] or "k<11>" in k["name"]]
scopes = collections.Counter((k["name"].split("(")[0], k["args"].get("scope")) for k in updated)
c.check(scopes == {("void k<10>", "old"): 7, ("void k<11>", "new"): 9},
        f"exec update: the new graph's ranges win after the update ({dict(scopes)})")
replayed = [k for k in kernels if "graph id" in k["args"] and k not in updated]
per_graph = collections.Counter(k["args"]["graph id"] for k in replayed)
c.check(sorted(per_graph.values()) == [30, 150], f"150 + 30 replayed kernels ({dict(per_graph)})")
g1 = max(per_graph, key=per_graph.get)
r1 = [k for k in replayed if k["args"]["graph id"] == g1]
r2 = [k for k in replayed if k["args"]["graph id"] != g1]
replay_spans = [s for s in gpu_spans if s["name"] == "replay"]
c.check(len(replay_spans) == 1 and span_matches(replay_spans[0], r1),
        "replay range's device span covers exactly its 150 kernels")
replay2_spans = [s for s in gpu_spans if s["name"] == "replay2"]
c.check(len(replay2_spans) == 1 and span_matches(replay2_spans[0], r2),
        "replay2 range's device span covers exactly its 30 kernels")

# Capture-time ranges follow the nodes into every replay, of both execs.
want_scope = {"k<0>": "model/layer.0", "k<1>": "model/layer.0", "k<2>": "model/layer.1"}
ok = all(k["args"].get("scope") == next(v for n, v in want_scope.items() if n in k["name"])
         for k in replayed)
c.check(ok, "every replayed kernel carries its capture-time scope path")
for name, per_replay in (("model", 3), ("layer.0", 2), ("layer.1", 1)):
    spans = [s for s in gpu_spans if s["name"] == name]
    replays = collections.Counter(s["args"].get("replay correlation") for s in spans)
    c.check(len(spans) == 60 and len(replays) == 60,
            f"capture range {name!r}: one device span per replay, 60 (got {len(spans)})")
    by_corr = collections.defaultdict(list)
    for k in replayed:
        if name == "model" or want_scope[next(n for n in want_scope if n in k["name"])].endswith(name):
            by_corr[k["args"]["correlation"]].append(k)
    exact = sum(1 for s in spans if span_matches(s, by_corr[s["args"]["replay correlation"]]))
    c.check(exact == 60, f"capture range {name!r}: each span covers exactly its replay's kernels ({exact})")
c.check(all(s["args"]["External id"] in ext for s in gpu_spans),
        "every device span links back to a CPU range")
c.finish()
