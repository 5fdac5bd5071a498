"""GPU test of issue 15 (jobs of many processes): examples/torch_straggler.py under
`nodescope run -- torchrun --nproc-per-node 2`, rank 1 slowed by a sleep kernel in its graph.
Expects: one trace per rank named by rank (job-rank0.json, job-rank1.json), none for torchrun's
own process (said on one line), each trace clean with its NCCL kernels attributed; `merge` gives
one valid trace that `check` finds clean; `nodes` over the two traces (and over the merged one)
names rank 1 and the sleep node as the straggler and rank 0 as the rank waiting in the
all-reduce. Skips (77) without 2 GPUs or torch with NCCL."""
import json
import os
import subprocess
import sys

from gpu_common import SKIP, Checker, example, gpu_events, load, run_traced, setup

args, tmp = setup()
probe = subprocess.run(
    [sys.executable, "-c",
     "import torch, torch.distributed as d; assert torch.cuda.is_available() and d.is_nccl_available();"
     "print(torch.cuda.device_count())"], capture_output=True, text=True)
if probe.returncode != 0:
    print("SKIP: torch with CUDA and NCCL is not installed")
    sys.exit(SKIP)
if int(probe.stdout.strip()) < 2:
    print("SKIP: fewer than 2 GPUs")
    sys.exit(SKIP)
c = Checker("gpu_ranks")
out = os.path.join(tmp, "job.json")
program = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
           example("torch_straggler.py")]
r = run_traced(args, out, program, env=dict(os.environ, EXAMPLE_WATCHDOG_S="120"))
print(r.stdout[-2000:], r.stderr[-4000:])
c.check(r.returncode == 0, f"program exits 0 under nodescope run (got {r.returncode})")
c.check(r.stdout.count(": ok") == 2, "2 ranks report right sums")
names = sorted(f for f in os.listdir(tmp) if f.endswith(".json"))
print("files:", names)
c.check(names == ["job-rank0.json", "job-rank1.json"], f"one trace per rank, named by rank ({names})")
c.check("no GPU work recorded" in r.stderr, "torchrun's own process: no trace, said in one line")
traces = [os.path.join(tmp, n) for n in ("job-rank0.json", "job-rank1.json")]


def nodescope(*a):
    p = subprocess.run([args.nodescope, *a], capture_output=True, text=True)
    print("$ nodescope", " ".join(a), "->", p.returncode)
    print(p.stdout[-3000:], p.stderr[-2000:])
    return p


for rank, path in enumerate(traces):
    if not os.path.exists(path):
        continue
    t = load(path)
    job = t.get("nodescope", {}).get("job", {})
    c.check(job.get("rank") == rank and job.get("world_size") == 2 and job.get("host"),
            f"rank {rank}: header records rank, world size and host ({job})")
    c.check("realtime_ns" in job.get("clock", {}), f"rank {rank}: header records a clock anchor")
    check = nodescope("check", "--json", path)
    report = json.loads(check.stdout) if check.stdout.strip() else {}
    c.check(check.returncode == 0 and report.get("aliased_keys") == 0,
            f"rank {rank}: nodescope check clean, 0 aliased keys")
    nccl = [k for k in gpu_events(t, ("kernel",)) if "nccl" in k["name"].lower()]
    keyed = [k for k in nccl if "graph node id" in k["args"]]
    c.check(len(keyed) >= 50, f"rank {rank}: NCCL kernels attributed to their node ({len(keyed)})")

merged = os.path.join(tmp, "merged.json")
m = nodescope("merge", "-o", merged, *traces)
c.check(m.returncode == 0, "merge exits 0")
if m.returncode == 0:
    mt = load(merged)
    c.check(len({e["pid"] >> 22 for e in mt["traceEvents"] if isinstance(e.get("pid"), int)}) == 2,
            "merged trace: two process slots")
    mc = nodescope("check", merged)
    c.check(mc.returncode == 0, "check of the merged trace: clean")

for what, inputs in (("two traces", traces), ("the merged trace", [merged])):
    n = nodescope("nodes", "--json", *inputs)
    if n.returncode != 0:
        c.check(False, f"nodes over {what} exits 0")
        continue
    d = json.loads(n.stdout)
    g = max(d["graphs"], key=lambda g: len(g["nodes"]))
    s = g["straggler"] or {}
    rows = g["nodes"]
    slow = [x for x in rows if x["node_id"] == s.get("node_id") and x["rank"] == 1]
    c.check(s.get("rank") == 1, f"nodes over {what}: straggler rank 1 ({s})")
    c.check(bool(slow) and "spin" in slow[0]["name"],
            f"nodes over {what}: straggler node is the sleep kernel ({slow[0]['name'] if slow else None})")
    ar = [x for x in rows if x["collective"]]
    waits = {x["rank"]: x["wait_mean_us"] for x in ar if x["wait_mean_us"] is not None}
    print(f"  all-reduce waits per rank over {what}: {waits}")
    c.check(waits.get(0, 0) > 100 and waits.get(1, 1e9) < waits.get(0, 0) / 4,
            f"nodes over {what}: rank 0 waits in the all-reduce (>100 us), rank 1 hardly ({waits})")
nodescope("nodes", "--width", "120", *traces)
c.finish()
