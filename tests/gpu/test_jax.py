"""GPU test: a jitted JAX function (XLA registers NVTX payload schemas, and may run the step as a
CUDA graph) runs to completion under `nodescope run` and its trace is complete and clean.
(Skipped where JAX with CUDA is not installed.)"""
import collections
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
c.finish()
