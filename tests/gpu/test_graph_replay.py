"""GPU test: `nodescope run` on examples/graph_replay gives 6400 graph kernels keyed by node,
plain work without keys, graph copies/fills with keys, flows from launches, 20 runs in a row."""
import collections
import os

from gpu_common import Checker, gpu_events, load, run_traced, setup

args, tmp = setup()
c = Checker("gpu_graph_replay")
example = os.path.join(args.bin_dir, "graph_replay")

out = os.path.join(tmp, "trace.json")
r = run_traced(args, out, [example])
print(r.stderr)
c.check(r.returncode == 0, f"exit status is the program's (got {r.returncode})")
t = load(out)
for key in ("schemaVersion", "deviceProperties", "traceEvents", "displayTimeUnit",
            "baseTimeNanoseconds", "traceName", "cupti_version", "cuda_driver_version"):
    c.check(key in t, f"top-level key {key!r}")
c.check(bool(t["deviceProperties"]) and t["deviceProperties"][0]["numSms"] > 0,
        "device properties present")

kernels = gpu_events(t, ("kernel",))
graph_kernels = [k for k in kernels if "graph id" in k["args"]]
plain = [k for k in kernels if "plain_kernel" in k["name"]]
c.check(len(graph_kernels) == 6400, f"6400 graph kernels (got {len(graph_kernels)})")
per_node = collections.Counter(k["args"]["graph node id"] for k in graph_kernels)
c.check(len(per_node) == 32, f"32 distinct graph node ids (got {len(per_node)})")
c.check(set(per_node.values()) == {200}, f"200 occurrences each (got {set(per_node.values())})")
c.check(all(k["args"]["graph node id"] >> 32 == k["args"]["graph id"] for k in graph_kernels),
        "graph node id >> 32 == graph id for every graph kernel")
names_per_node = collections.defaultdict(set)
for k in graph_kernels:
    names_per_node[k["args"]["graph node id"]].add(k["name"])
c.check(all(len(v) == 1 for v in names_per_node.values()), "each node id names one kernel")
c.check(len({next(iter(v)) for v in names_per_node.values()}) == 32, "32 distinct kernel names")
c.check(len(plain) == 3, f"3 plain launches (got {len(plain)})")
c.check(all("graph id" not in k["args"] and "graph node id" not in k["args"] for k in plain),
        "plain launches carry no graph keys")
copies = gpu_events(t, ("gpu_memcpy",))
fills = gpu_events(t, ("gpu_memset",))
graph_copies = [e for e in copies if "graph id" in e["args"]]
graph_fills = [e for e in fills if "graph id" in e["args"]]
c.check(len(graph_copies) == 5, f"5 graph memcpys carry graph keys (got {len(graph_copies)})")
c.check(len(graph_fills) == 5, f"5 graph memsets carry graph keys (got {len(graph_fills)})")
c.check(any("graph id" not in e["args"] for e in copies), "a plain memcpy has no graph keys")
c.check(any("graph id" not in e["args"] for e in fills), "a plain memset has no graph keys")
c.check(all(e["args"]["graph node id"] >> 32 == e["args"]["graph id"]
            for e in graph_copies + graph_fills), "copy/fill node ids pack their graph id")

# Flows: each graph kernel is the end of an ac2g flow that starts inside a cudaGraphLaunch.
ends = {e["id"]: e for e in t["traceEvents"] if e.get("ph") == "f" and e.get("cat") == "ac2g"}
starts = {e["id"]: e for e in t["traceEvents"] if e.get("ph") == "s" and e.get("cat") == "ac2g"}
launches = [e for e in t["traceEvents"]
            if e.get("cat") == "cuda_runtime" and e["name"] == "cudaGraphLaunch"]
c.check(len(launches) == 205, f"205 cudaGraphLaunch calls (got {len(launches)})")
launch_at = {(e["tid"], e["ts"]): e for e in launches}
kernel_at = {(k["pid"], k["tid"], k["ts"]) for k in graph_kernels}
flows_to_graph_kernels = [f for f in ends.values() if (f["pid"], f["tid"], f["ts"]) in kernel_at]
c.check(len(flows_to_graph_kernels) == 6400,
        f"6400 flows end at graph kernels (got {len(flows_to_graph_kernels)})")
from_launch = sum(1 for f in flows_to_graph_kernels
                  if f["id"] in starts and (starts[f["id"]]["tid"], starts[f["id"]]["ts"]) in launch_at)
c.check(from_launch == 6400, f"...each starting at a cudaGraphLaunch (got {from_launch})")
corr = collections.Counter(k["args"]["correlation"] for k in graph_kernels)
c.check(len(corr) == 200 and set(corr.values()) == {32},
        "one graph launch -> its 32 kernels (by correlation)")
c.check(t["nodescope"]["dropped_records"]["total"] == 0, "no records dropped")

# 20 runs in a row: complete, valid traces every time.
complete = 0
for i in range(20):
    path = os.path.join(tmp, f"run{i}.json")
    r = run_traced(args, path, [example])
    try:
        ti = load(path)
        n = sum(1 for k in gpu_events(ti, ("kernel",)) if "graph id" in k["args"])
        complete += int(r.returncode == 0 and n == 6400)
    except Exception as e:  # noqa: BLE001 - report any failure as a failed run
        print(f"run {i}: {e}")
c.check(complete == 20, f"20 runs in a row give complete traces (got {complete})")
c.finish()
