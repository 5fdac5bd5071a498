"""GPU test: the in-process C++ API traces only the region between Start and Stop."""
import os
import subprocess

from gpu_common import Checker, gpu_events, load, setup

args, tmp = setup()
c = Checker("gpu_in_process")
out = os.path.join(tmp, "region.json")
r = subprocess.run([os.path.join(args.bin_dir, "in_process"), out], capture_output=True,
                   text=True, timeout=120)
print(r.stdout, r.stderr)
c.check(r.returncode == 0, f"in_process exits 0 (got {r.returncode})")
kernels = gpu_events(load(out), ("kernel",))
c.check(len(kernels) == 40, f"40 kernels in the region, none from before it (got {len(kernels)})")
c.check(len({k["args"]["graph node id"] for k in kernels if "graph id" in k["args"]}) == 4,
        "4 distinct graph node ids")
trace = load(out)
spans = [e for e in trace["traceEvents"] if e.get("cat") == "gpu_user_annotation"]
cpu = [e for e in trace["traceEvents"] if e.get("cat") == "user_annotation"]
c.check([e["name"] for e in cpu] == ["replays"], "the NODESCOPE_RANGE is on the CPU timeline")
c.check(len(spans) == 1 and spans[0]["name"] == "replays", "and projected on the GPU stream")
if spans:
    lo = min(k["ts"] for k in kernels)
    hi = max(k["ts"] + k["dur"] for k in kernels)
    pad = spans[0]["args"]["widened (ns)"] / 1000  # written 1 ns wider each side, for viewers
    c.check(abs(spans[0]["ts"] + pad - lo) < 0.0005 and
            abs(spans[0]["ts"] + spans[0]["dur"] - pad - hi) < 0.0005,
            "covering exactly the 40 replayed kernels")
r = subprocess.run([args.nodescope, "run", "-o", os.path.join(tmp, "both.json"), "--",
                    os.path.join(args.bin_dir, "in_process"), os.path.join(tmp, "inner.json")],
                   capture_output=True, text=True, timeout=120)
c.check(r.returncode == 1 and "already traced" in r.stderr,
        "in-process API under `nodescope run` refuses clearly")
c.finish()
