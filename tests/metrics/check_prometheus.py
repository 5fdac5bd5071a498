#!/usr/bin/env python3
"""`nodescope run --metrics` scraped by the real Prometheus server (Debian's `prometheus`).

Starts prometheus with its own config (scraping 127.0.0.1:<free port> every second), its own web
port and a temporary storage folder; runs the simulated-AMD program under
`nodescope run --backend rocm [--sample 5] --metrics 127.0.0.1:<port>` for several scrape
intervals; then asks Prometheus' HTTP API for each node's count and median
(histogram_quantile) and compares them with `nodescope nodes --json` on the same run's trace:
counts exact, medians within one bucket. `promtool check metrics` must pass on a scrape.
Second case: two traced processes at once, both scraped: sum by (graph, node) equals the sum of
their `nodes` counts. Exits 77 (skipped) when prometheus or promtool is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from metrics_checks import (check, compare_with_nodes, finish, free_port, nodes_of,
                            prometheus_binaries, promtool_check, query, start_prometheus)

def start_run(args, env, port, trace, sample, ms):
    cmd = [args.nodescope, "run", "--backend", "rocm", "--metrics", f"127.0.0.1:{port}",
           "--metrics-linger", "20", "-o", trace]
    if sample:
        cmd[2:2] = ["--sample", "5"]
    return subprocess.Popen(cmd + ["--", args.program, f"loop_{ms}"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodescope", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--sim-lib-dir", required=True)
    args = ap.parse_args()
    prometheus, promtool = prometheus_binaries()
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    env["NODESCOPE_METRICS_INTERVAL_MS"] = "500"
    for v in ("NODESCOPE_RING", "NODESCOPE_STREAM", "NODESCOPE_CAPTURE_EVERY", "NODESCOPE_OUTPUT"):
        env.pop(v, None)
    tmp = tempfile.mkdtemp(prefix="nodescope-prom-")
    # Does the rocm backend sample in this build? (--sample is refused with 125 where not.)
    probe = subprocess.run([args.nodescope, "run", "--backend", "rocm", "--sample", "5", "-o",
                            os.path.join(tmp, "probe.json"), "--", args.program, "loop_10"],
                           env=env, capture_output=True, text=True)
    sample = "cannot sample" not in probe.stderr
    print(f"note: --sample 5 {'used' if sample else 'not available for rocm in this build: full tracing'}")
    ports = [free_port(), free_port(), free_port()]
    prom, web = start_prometheus(prometheus, tmp, ports)
    try:
        # Case 1: one process, >= 4 scrape intervals.
        trace = os.path.join(tmp, "one.json")
        run = start_run(args, env, ports[0], trace, sample, 6000)
        time.sleep(2.5)
        scrape = promtool_check(promtool, ports[0])
        check(b"nodescope_node_duration_seconds_bucket" in scrape, "a scrape while running has per-node buckets")
        out, err = run.communicate(timeout=120)
        check(run.returncode == 0, f"run exits 0 ({err.strip()[-300:]})")
        time.sleep(1.5)
        truth = nodes_of(args.nodescope, trace)
        check(len(truth) >= 8, f"nodes sees {len(truth)} nodes")
        compare_with_nodes(web, ports[0], truth)
        # Case 2: two processes at once on one host, both scraped.
        traces = [os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")]
        runs = [start_run(args, env, ports[1 + i], traces[i], sample, 5000) for i in range(2)]
        for r in runs:
            _, err = r.communicate(timeout=120)
            check(r.returncode == 0, f"run exits 0 ({err.strip()[-200:]})")
        time.sleep(1.5)
        want = {}
        for t in traces:
            for key, (n, _) in nodes_of(args.nodescope, t).items():
                want[key] = want.get(key, 0) + n
        targets = "|".join(f"127.0.0.1:{p}" for p in ports[1:])
        got = {(r["metric"]["graph"], r["metric"]["node"]): int(float(r["value"][1]))
               for r in query(web, "sum by (graph, node) (last_over_time(nodescope_node_duration_seconds_count"
                                   f'{{instance=~"{targets}"}}[5m]))')}
        check(got == want, f"sum by (graph, node) over two processes == sum of their nodes ({len(want)} nodes)")
    finally:
        prom.terminate()
        prom.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("prometheus")


if __name__ == "__main__":
    sys.exit(main())
