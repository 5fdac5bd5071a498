"""GPU test: a program that is already a CUPTI client gets a clear message from `nodescope run`
(CUDA 13 allows one subscriber) and keeps running; since it ran untraced, `run` exits 125 where
the program succeeded (issue 24: no failure to trace exits 0)."""
import os

from gpu_common import Checker, run_traced, setup

args, tmp = setup()
c = Checker("gpu_cupti_conflict")
out = os.path.join(tmp, "conflict.json")
r = run_traced(args, out, [os.path.join(args.bin_dir, "cupti_client")])
print(r.stdout, r.stderr)
c.check("cupti_client: done" in r.stdout, "the program still runs to the end")
c.check(r.returncode == 125, f"run exits 125: the program ran untraced (got {r.returncode})")
c.check("another CUPTI client" in r.stderr, "nodescope says another CUPTI client is attached")
c.check(not os.path.exists(out), "and writes no half trace")
c.finish()
