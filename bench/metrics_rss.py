#!/usr/bin/env python3
"""Peak RSS of the traced process under `nodescope run --metrics` and without it (issue 27).

  bench/metrics_rss.py BUILD_DIR [CASE] [ROUNDS]   (default spin_100000, 1 round)

Runs the simulated-AMD `sim_program CASE` under `nodescope run --backend rocm -o T` with and
without `--metrics 127.0.0.1:<free port> --metrics-linger 0`, alternating, each inside
`/usr/bin/time -v` (its "Maximum resident set size" is the largest of `run` and the program).
The program's own peak is its VmHWM, read from /proc every 20 ms until it exits (the last read
comes at most 20 ms before its end). Prints one line per run."""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(r"VmHWM:\s+(\d+) kB", f.read())
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def one(build, case, metrics, tmp):
    trace = os.path.join(tmp, "t.json")
    cmd = ["/usr/bin/time", "-v", os.path.join(build, "bin", "nodescope"), "run", "--backend",
           "rocm", "-o", trace]
    if metrics:
        cmd += ["--metrics", f"127.0.0.1:{free_port()}", "--metrics-linger", "0"]
    cmd += ["--", os.path.join(build, "bin", "sim_program"), case]
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(build, "lib", "rocprofiler-sim"))
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    program, peak = None, 0
    while p.poll() is None:
        if program is None:  # time -> nodescope run -> sim_program
            for run in children(p.pid):
                for c in children(run):
                    program = c
        if program is not None:
            peak = max(peak, hwm_kb(program))
        time.sleep(0.02)
    err = p.stderr.read()
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    print(f"{'--metrics' if metrics else 'plain    '}  program VmHWM {peak / 1024:7.1f} MB   "
          f"max(run, program) {int(m.group(1)) / 1024 if m else 0:7.1f} MB   "
          f"wall {time.time() - t0:5.1f} s   exit {p.returncode}", flush=True)


def main():
    build = sys.argv[1]
    case = sys.argv[2] if len(sys.argv) > 2 else "spin_100000"
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            one(build, case, False, tmp)
            one(build, case, True, tmp)


if __name__ == "__main__":
    main()
