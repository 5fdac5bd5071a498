"""GPU test: a jitted JAX function (XLA registers NVTX payload schemas, and may run the step as a
CUDA graph) runs to completion under `nodescope run` and its trace is complete and clean; and
(issue 11) its graph ids are its execs: as many as the cuGraphInstantiate* calls in the same
trace, although XLA calls cuGraphExecKernelNodeSetParams on them between launches.
(Skipped where JAX with CUDA is not installed.)"""
import collections
import json
import os
import subprocess
import sys

from gpu_common import Checker, example, gpu_events, load, require_python, run_traced, setup

args, tmp = setup()
require_python("import jax; assert jax.devices()[0].platform == 'gpu'", "JAX with CUDA")
c = Checker("gpu_jax")
script = example("jax_jit.py")
out = os.path.join(tmp, "jax.json")
r = run_traced(args, out, [sys.executable, script])
print(r.stdout[-2000:], r.stderr[-3000:])
c.check(r.returncode == 0, f"jitted JAX program exits 0 under nodescope run (got {r.returncode})")
c.check(": ok" in r.stdout, "its result is right")
t = load(out)
kernels = gpu_events(t, ("kernel",))
keyed = [k for k in kernels if "graph node id" in k["args"]]
ranges = collections.Counter(e["args"].get("domain", "") for e in t["traceEvents"]
                             if e.get("cat") == "user_annotation")
print(f"  {len(kernels)} kernels, {len(keyed)} graph-keyed; NVTX ranges by domain: {dict(ranges)}")
c.check(len(kernels) >= 50, f"kernels of the 50 steps recorded ({len(kernels)})")
dropped = t["nodescope"]["dropped_records"]
c.check(all(v == 0 for v in dropped.values() if isinstance(v, int)), f"no record dropped ({dropped})")
check = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
c.check(check.returncode == 0, f"nodescope check clean ({check.stdout.strip()[-200:]})")

# Graph ids against instantiations. API calls are "X" events of cat cuda_driver / cuda_runtime
# named as CUPTI names them; XLA instantiates through the driver (cuGraphInstantiateWithFlags).
# A runtime cudaGraphInstantiate may call the driver's underneath, so driver calls are counted
# when there are any, else runtime ones.
api = collections.Counter()
for e in t["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") in ("cuda_driver", "cuda_runtime"):
        api[(e["cat"], e["name"])] += 1
def calls(cat, prefix):
    return sum(n for (c_, name), n in api.items() if c_ == cat and name.startswith(prefix))
driver = calls("cuda_driver", "cuGraphInstantiate")
runtime = calls("cuda_runtime", "cudaGraphInstantiate")
instantiations = driver or runtime
set_params = calls("cuda_driver", "cuGraphExecKernelNodeSetParams")
launches = calls("cuda_driver", "cuGraphLaunch") or calls("cuda_runtime", "cudaGraphLaunch")
graph_ids = {k["args"]["graph id"] for k in gpu_events(t) if "graph id" in k["args"]}
print(f"  cuGraphInstantiate*={driver} cudaGraphInstantiate*={runtime} graph launches={launches} "
      f"cuGraphExecKernelNodeSetParams={set_params} graph ids={len(graph_ids)}")
if instantiations:
    c.check(len(graph_ids) == instantiations,
            f"graph ids ({len(graph_ids)}) == instantiations ({instantiations})")
    nodes = subprocess.run([args.nodescope, "nodes", "--json", out], capture_output=True, text=True)
    c.check(nodes.returncode == 0, f"nodescope nodes exits 0 ({nodes.stderr.strip()[-200:]})")
    if nodes.returncode == 0:
        shown = json.loads(nodes.stdout)["graphs"]
        replays = sorted((g["replays"] for g in shown), reverse=True)
        print(f"  nodes: {len(shown)} graphs, replays per graph {replays[:12]}")
        c.check(len(shown) == len(graph_ids), f"nodes shows each exec once ({len(shown)})")
        c.check(sum(replays) == launches,
                f"nodes shows each exec's replays ({sum(replays)} for {launches} launches)")
c.finish()
