#!/usr/bin/env python3
"""Times `nodescope nodes` against `nodescope check` on the same traces, side by side: each round
runs check, then `nodes` of every binary given, in a rotating order, so that load from other work
on the machine falls on all of them alike. Prints, per trace and command, the median wall time,
the median CPU time (user + sys) and the peak RSS, and each `nodes` over `check`.

  bench/nodes_vs_check.py [--rounds N] [--cpu C] --check BIN NAME=BIN [NAME=BIN ...] TRACE...

`--cpu C` pins every run to core C (taskset). Outputs go to /dev/null.
"""

import argparse
import os
import statistics
import subprocess
import tempfile


def run(argv):
    """(wall s, user + sys s, peak RSS KB) of one run of argv, measured by /usr/bin/time (a
    child forked from Python would count Python's memory in its peak)."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name] + argv, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall, user, sys_s, rss = out.read().split()[-4:]
    return float(wall), float(user) + float(sys_s), int(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpu", type=int)
    ap.add_argument("--check", required=True, help="the binary whose `check` is the reference")
    ap.add_argument("args", nargs="+", help="NAME=BIN (the `nodes` to time), then the traces")
    args = ap.parse_args()
    named = [a.split("=", 1) for a in args.args if "=" in a]
    traces = [a for a in args.args if "=" not in a]
    pin = ["taskset", "-c", str(args.cpu)] if args.cpu is not None else []
    for trace in traces:
        cmds = [("check", pin + [args.check, "check", trace])]
        cmds += [(f"nodes {name}", pin + [binary, "nodes", trace]) for name, binary in named]
        results = {label: [] for label, _ in cmds}
        for r in range(args.rounds):
            shift = r % len(named)
            order = cmds[:1] + cmds[1 + shift:] + cmds[1:1 + shift]
            for label, argv in order:
                results[label].append(run(argv))
        size = os.path.getsize(trace) / 1e6
        print(f"{trace} ({size:.0f} MB), {args.rounds} rounds, medians:")
        check_wall = statistics.median(w for w, _, _ in results["check"])
        check_cpu = statistics.median(c for _, c, _ in results["check"])
        for label, _ in cmds:
            walls = [w for w, _, _ in results[label]]
            cpus = [c for _, c, _ in results[label]]
            rss = max(m for _, _, m in results[label]) / 1024
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            line = f"  {label:<14} wall {wall:6.3f} s  cpu {cpu:6.3f} s  peak {rss:6.1f} MB"
            if label != "check":
                line += f"   / check: wall {wall / check_wall:.2f}x  cpu {cpu / check_cpu:.2f}x"
            print(line)


if __name__ == "__main__":
    main()
