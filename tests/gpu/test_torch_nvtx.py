"""GPU test: a torch program using torch.cuda.nvtx and emit_nvtx() comes out annotated under
`nodescope run` with no change to the program (skipped where torch is not installed)."""
import collections
import os
import sys

from gpu_common import Checker, example, gpu_events, load, require_python, run_traced, setup

args, tmp = setup()
require_python("import torch; assert torch.cuda.is_available()", "torch with CUDA")
c = Checker("gpu_torch_nvtx")
script = example("torch_nvtx.py")
out = os.path.join(tmp, "torch.json")
r = run_traced(args, out, [sys.executable, script])
print(r.stdout[-2000:], r.stderr[-3000:])
c.check(r.returncode == 0, f"torch program exits 0 (got {r.returncode})")
t = load(out)
ev = t["traceEvents"]
cpu = collections.Counter(e["name"] for e in ev if e.get("cat") == "user_annotation")
gpu = collections.Counter(e["name"] for e in ev if e.get("cat") == "gpu_user_annotation")
print("cpu ranges:", dict(list(cpu.items())[:12]))
print("gpu spans:", dict(list(gpu.items())[:12]))
for name in ("forward", "layer.0", "layer.3", "captured.block", "replays"):
    c.check(cpu[name] >= 1, f"CPU user_annotation {name!r}")
for name in ("forward", "layer.0", "layer.3", "replays"):
    c.check(gpu[name] >= 1, f"gpu_user_annotation {name!r} on the device timeline")
c.check(gpu["captured.block"] == 5, f"captured range: one device span per replay (got {gpu['captured.block']})")
scoped = [k for k in gpu_events(t, ("kernel",)) if k["args"].get("scope") == "captured.block"]
c.check(len(scoped) >= 5, f"replayed kernels carry scope 'captured.block' ({len(scoped)})")
c.check(any(n.startswith("aten::") for n in cpu), "emit_nvtx() op ranges recorded")
c.check(any(n.startswith("aten::") for n in gpu), "emit_nvtx() op ranges projected on the GPU")
c.finish()
