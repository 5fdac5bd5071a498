"""GPU test: a torch program doing NCCL all-reduces outside and inside a captured CUDA graph runs
to completion under `nodescope run` — under torchrun with one process per GPU where two GPUs exist,
else as a world of one — and every rank's trace is clean: NCCL's collective ranges (its `NCCL`
NVTX domain, which also registers payload schemas) appear as user_annotation and on the device as
gpu_user_annotation, and the all-reduce kernels replayed by the graph carry graph keys.
(Skipped where torch with CUDA is not installed.)"""
import glob
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
gpus = int(probe.stdout.strip())
world = 2 if gpus >= 2 else 1
c = Checker("gpu_nccl")
script = example("torch_nccl_graph.py")
out = os.path.join(tmp, "ar.json")
if world == 2:
    program = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", script]
else:
    program = [sys.executable, script]
print("world of", world, ":", " ".join(program))
# A hang prints every thread's stack and fails the program instead of the test timing out.
r = run_traced(args, out, program, env=dict(os.environ, EXAMPLE_WATCHDOG_S="120"))
print(r.stdout[-3000:], r.stderr[-4000:])
c.check(r.returncode == 0, f"program exits 0 under nodescope run (got {r.returncode})")
c.check(r.stdout.count(": ok") == world, f"{world} rank(s) report right sums")

traces = []
for path in sorted(glob.glob(os.path.join(tmp, "ar*.json"))):
    t = load(path)
    if gpu_events(t, ("kernel",)):
        traces.append((path, t))
# A world of one has no peer: NCCL runs no kernel for its in-place all-reduce (seen on one H200,
# 2026-12-01: 0 NCCL kernels, 0 device spans, the 5 AllReduce ranges still recorded), so the
# kernel and device-span checks need two ranks.
collectives_run = world == 2
c.check(len(traces) == world, f"one trace with GPU work per rank ({len(traces)} of {world})")
for path, t in traces:
    name = os.path.basename(path)
    ev = t["traceEvents"]
    check = subprocess.run([args.nodescope, "check", path], capture_output=True, text=True)
    c.check(check.returncode == 0, f"{name}: nodescope check clean ({check.stdout.strip()[-200:]})")
    cpu = [e for e in ev if e.get("cat") == "user_annotation" and "AllReduce" in e["name"]]
    gpu = [e for e in ev if e.get("cat") == "gpu_user_annotation" and "AllReduce" in e["name"]]
    domains = {e["args"].get("domain") for e in cpu}
    print(f"  {name}: {len(cpu)} CPU AllReduce ranges, domains {domains}; {len(gpu)} device spans")
    c.check(len(cpu) >= 3, f"{name}: NCCL's AllReduce ranges recorded as user_annotation")
    c.check("NCCL" in domains, f"{name}: ranges carry NCCL's domain")
    nccl = [k for k in gpu_events(t, ("kernel",)) if "nccl" in k["name"].lower()]
    keyed = [k for k in nccl if "graph node id" in k["args"]]
    eager = [k for k in nccl if "graph id" not in k["args"]]
    print(f"  {name}: {len(nccl)} NCCL kernels, {len(keyed)} graph-keyed, {len(eager)} eager")
    if not collectives_run:
        print(f"  {name}: world of one: NCCL launches no all-reduce kernel; kernel checks need 2 GPUs")
        continue
    c.check(len(gpu) >= 1, f"{name}: AllReduce as gpu_user_annotation on the device timeline")
    c.check(len(keyed) >= 20, f"{name}: the graph's all-reduce kernels carry graph keys ({len(keyed)})")
    c.check(len(eager) >= 1, f"{name}: the eager all-reduce kernel is there, unkeyed ({len(eager)})")
    c.check(all(k["args"]["graph node id"] >> 32 == k["args"]["graph id"] for k in keyed),
            f"{name}: node id >> 32 == graph id")
c.finish()
