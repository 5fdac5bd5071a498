#!/usr/bin/env python3
"""Range logs bounded by the ring, end to end, no GPU (issue 14): `nodescope run --backend rocm
--ring 20000` over `sim_ranges_program service <n>` (a range per request, a graph replay every
1000th). The traced program's RSS must stay flat from its first quarter to its end (a full log
takes at least 64 bytes per range: 3/4 n ranges would add that much), the trace holds at most the
ring's 32768 ranges per thread, counts the rest as ring_released (not dropped), and passes
`nodescope check`. Prints "range ring checks: all passed" when every check passed.
"""
import json
import os
import subprocess
import tempfile

from sim_checks import RANGES, Checker, parse_args, sim_env

args = parse_args(RANGES)
checker = Checker("range ring")
check = checker.check
env = sim_env(args.sim_lib_dir)

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "service.json")
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "--ring", "20000", "-o", out,
                        "--", args.program, "service", str(args.ranges)],
                       env=env, capture_output=True, text=True, timeout=600)
    check(r.returncode == 0, f"the service ran to its end (exit {r.returncode}): {r.stderr[-400:]}")
    rss = [int(line.split()[2]) for line in r.stdout.splitlines() if line.startswith("rss_kb ")]
    print("rss_kb at each quarter:", rss)
    check(len(rss) == 4, f"4 RSS readings ({len(rss)})")
    if len(rss) == 4:
        full_log_kb = args.ranges * 3 // 4 * 64 // 1024
        growth = rss[3] - rss[0]
        check(growth < full_log_kb // 10,
              f"RSS grew {growth} kB over the last 3/4 of the ranges (a full log: >= {full_log_kb} kB)")
    with open(out) as f:
        ns = json.load(f)["nodescope"]
    ranges = ns["ranges"]
    print("ranges:", ranges)
    check(0 < ranges["recorded"] <= 32768, f"at most one ring of ranges kept ({ranges['recorded']})")
    check(ranges.get("ring_released") == args.ranges - 32768,
          f"the rest counted as ring_released ({ranges.get('ring_released')})")
    check(ranges["dropped"] == 0 and ranges.get("ring_unnamed") == 0, "none dropped or unnamed")
    c = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True, timeout=300)
    check(c.returncode == 0, f"nodescope check: exit {c.returncode} {c.stdout[-300:]}")

checker.finish()
