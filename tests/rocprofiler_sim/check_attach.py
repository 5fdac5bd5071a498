#!/usr/bin/env python3
"""The AMD entry point's failure to attach reaches `nodescope run` (issue 25): a
libnodescope_rocm.so beside a libnodescope.so of another build (the same files, the build id
patched) is injected over the simulated SDK. The program must run on untraced, the tool must say
why on stderr, and `run` must relay that reason from its report line and exit 125, instead of
guessing that "the program never initialised ROCm" and exiting 0 (what it did before the entry
point reported through AttachToHostOrReport).

Prints "attach checks: all passed" when every check passed.
"""
import os
import shutil
import subprocess
import tempfile

from sim_checks import Checker, parse_args, sim_env

args = parse_args({"flag": "--lib-dir", "required": True},
                  {"flag": "--build-id", "required": True})
checker = Checker("attach")
check = checker.check

with tempfile.TemporaryDirectory() as tmp:
    for name in ("libnodescope_rocm.so", "libnodescope.so"):
        shutil.copy(os.path.join(args.lib_dir, name), tmp)
    host = os.path.join(tmp, "libnodescope.so")
    data = open(host, "rb").read()
    ours = args.build_id.encode()
    other = ours[:-1] + (b"X" if ours[-1:] != b"X" else b"Y")
    check(data.count(ours) == 1, "libnodescope.so holds its build id once")
    open(host, "wb").write(data.replace(ours, other))
    env = dict(sim_env(args.sim_lib_dir),
               NODESCOPE_LIBRARY=os.path.join(tmp, "libnodescope_rocm.so"))
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "-o",
                        os.path.join(tmp, "t.json"), "--", args.program, "copies"],
                       env=env, capture_output=True, text=True, timeout=120)
    print(r.stderr, end="")
    check("expect copies=20" in r.stdout, "the program ran, untraced")
    check("not tracing pid" in r.stderr and "another nodescope build" in r.stderr,
          "the tool says why it does not trace")
    check("nodescope: no trace: FAILED_PRECONDITION: libnodescope.so comes from another "
          "nodescope build" in r.stderr, "run relays the reason from the report line")
    check("never initialised ROCm" not in r.stderr, "run does not guess another reason")
    check(r.returncode == 125, f"run exits 125 (the trace could not be made), got {r.returncode}")
    check(not os.path.exists(os.path.join(tmp, "t.json")), "no trace file")
checker.finish()
