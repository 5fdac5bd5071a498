#!/usr/bin/env python3
"""Times the Python package against the CLI on the same trace, side by side, in rounds whose
order rotates (the machine's other load falls on all alike):

  cli nodes      `nodescope nodes TRACE`
  py nodes       `python -c "nodescope.load(TRACE).nodes()"`: the whole process (interpreter,
                 pandas import, load, table), as a user pays it
  cli check      `nodescope check TRACE`: a plain read of every event
  py kernels     `nodescope.load(TRACE)` then `t.kernels()`, the kernels() call timed inside the
                 process (rows / its seconds: rows/s), wall and CPU
  py import      `python -c "import nodescope, pandas"`: what every Python run pays first

Each command's wall time, CPU time (user + sys) and peak RSS come from /usr/bin/time. Prints the
medians and the ratios py nodes / cli nodes (time, peak RSS) and kernels() rows/s beside check's
events/s.

  bench/python_vs_cli.py [--rounds N] --cli BUILD/bin/nodescope --python VENV/bin/python TRACE
"""

import argparse
import os
import statistics
import subprocess
import tempfile

PY_NODES = """
import sys, time, nodescope, pandas
t0, c0 = time.perf_counter(), time.process_time()
df = nodescope.load(sys.argv[1]).nodes()
print(len(df), time.perf_counter() - t0, time.process_time() - c0)
"""
PY_KERNELS = """
import sys, time, nodescope, pandas
t = nodescope.load(sys.argv[1])
t0, c0 = time.perf_counter(), time.process_time()
k = t.kernels()
print(len(k), time.perf_counter() - t0, time.process_time() - c0)
"""
PY_IMPORT = "import nodescope, pandas"


def run(argv):
    """(wall s, cpu s, peak RSS KB, stdout) of one run of argv, measured by /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r") as out:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name] + argv,
                           check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        wall, user, sys_s, rss = out.read().split()[-4:]
    return float(wall), float(user) + float(sys_s), int(rss), p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("trace")
    args = ap.parse_args()
    cmds = [("cli nodes", [args.cli, "nodes", args.trace]),
            ("py nodes", [args.python, "-c", PY_NODES, args.trace]),
            ("cli check", [args.cli, "check", args.trace]),
            ("py kernels", [args.python, "-c", PY_KERNELS, args.trace]),
            ("py import", [args.python, "-c", PY_IMPORT])]
    results = {label: [] for label, _ in cmds}
    for r in range(args.rounds):
        order = cmds[r % len(cmds):] + cmds[:r % len(cmds)]
        for label, argv in order:
            results[label].append(run(argv))
    med = {}
    print(f"{args.trace} ({os.path.getsize(args.trace) / 1e6:.0f} MB), {args.rounds} rounds, "
          "medians:")
    for label, _ in cmds:
        rs = results[label]
        med[label] = (statistics.median(w for w, _, _, _ in rs),
                      statistics.median(c for _, c, _, _ in rs), max(m for _, _, m, _ in rs))
        wall, cpu, rss = med[label]
        print(f"  {label:<11} wall {wall:6.3f} s  cpu {cpu:6.3f} s  peak RSS {rss / 1024:7.1f} MB")
    def inside(label, field):
        return statistics.median(float(o.split()[field]) for _, _, _, o in results[label])

    cw, cc, cr = med["cli nodes"]
    pw, pc, pr = med["py nodes"]
    print(f"  py nodes / cli nodes: wall {pw / cw:.2f}x  cpu {pc / cc:.2f}x  peak RSS "
          f"{pr / cr:.2f}x")
    nw, nc = inside("py nodes", 1), inside("py nodes", 2)
    print(f"  load().nodes() inside the process: wall {nw:.3f} s = {nw / cw:.2f}x cli nodes, "
          f"cpu {nc:.3f} s = {nc / cc:.2f}x")
    rows = int(results["py kernels"][0][3].split()[0])
    kw, kc = inside("py kernels", 1), inside("py kernels", 2)
    check_wall, check_cpu = med["cli check"][0], med["cli check"][1]
    print(f"  kernels(): {rows} rows in {kw:.3f} s wall = {rows / kw / 1e6:.2f} M rows/s "
          f"({kc:.3f} s cpu = {rows / kc / 1e6:.2f} M rows/s); check reads them in "
          f"{check_wall:.3f} s wall = {rows / check_wall / 1e6:.2f} M/s ({check_cpu:.3f} s cpu); "
          f"kernels() / check: wall {kw / check_wall:.2f}x cpu {kc / check_cpu:.2f}x")

if __name__ == "__main__":
    main()
