"""GPU test: a torch program whose work goes through cuDNN, cuBLAS(Lt), cuFFT, cuSPARSE and
cuSOLVER — NVIDIA libraries that may use NVTX and its extensions themselves — runs to completion
under `nodescope run`, with its kernels recorded. (Skipped where torch with CUDA is not installed.)"""
import collections
import os
import sys

from gpu_common import Checker, example, gpu_events, load, require_python, run_traced, setup

args, tmp = setup()
require_python("import torch; assert torch.cuda.is_available()", "torch with CUDA")
c = Checker("gpu_nvtx_libraries")
out = os.path.join(tmp, "libs.json")
r = run_traced(args, out, [sys.executable, example("torch_libraries.py")])
print(r.stdout[-2000:], r.stderr[-3000:])
c.check(r.returncode == 0, f"program exits 0 under nodescope run (got {r.returncode})")
c.check(": ok" in r.stdout, "its results are right")
t = load(out)
kernels = gpu_events(t, ("kernel",))
domains = collections.Counter(e["args"].get("domain", "(default)") for e in t["traceEvents"]
                              if e.get("cat") == "user_annotation")
print(f"  {len(kernels)} kernels; NVTX ranges by domain: {dict(domains)}")
c.check(len(kernels) >= 18, f"the libraries' kernels recorded ({len(kernels)})")
c.finish()
