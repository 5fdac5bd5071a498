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
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from metrics_checks import check, failures, free_port, nodes_rows

BUCKETS = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
           5e-2, 0.1, 0.2, 0.5, 1.0]
def bucket_index(seconds):
    for i, b in enumerate(BUCKETS):
        if seconds <= b:
            return i
    return len(BUCKETS)


def query(web, expr):
    url = f"http://127.0.0.1:{web}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]["result"]


def nodes_of(nodescope, trace):
    return {key: (n["replays"], n["p50_us"]) for key, n in nodes_rows(nodescope, trace, strict=True)}


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
    prometheus = shutil.which("prometheus")
    promtool = shutil.which("promtool")
    if not prometheus or not promtool:
        print("SKIP: prometheus or promtool not installed (scripts/setup.sh installs them)")
        return 77
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
    web = free_port()
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                "  - job_name: nodescope\n    static_configs:\n      - targets: [" +
                ", ".join(f"'127.0.0.1:{p}'" for p in ports) + "]\n")
    prom = subprocess.Popen([prometheus, f"--config.file={config}",
                             f"--storage.tsdb.path={os.path.join(tmp, 'data')}",
                             f"--web.listen-address=127.0.0.1:{web}"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prom.log"), "w"))
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{web}/-/ready", timeout=1)
                break
            except Exception:
                time.sleep(0.2)
        # Case 1: one process, >= 4 scrape intervals.
        trace = os.path.join(tmp, "one.json")
        run = start_run(args, env, ports[0], trace, sample, 6000)
        time.sleep(2.5)
        scrape = urllib.request.urlopen(f"http://127.0.0.1:{ports[0]}/metrics", timeout=5).read()
        pt = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True)
        check(pt.returncode == 0, f"promtool check metrics passes ({pt.stdout.decode()}{pt.stderr.decode()})")
        check(b"nodescope_node_duration_seconds_bucket" in scrape, "a scrape while running has per-node buckets")
        out, err = run.communicate(timeout=120)
        check(run.returncode == 0, f"run exits 0 ({err.strip()[-300:]})")
        time.sleep(1.5)
        truth = nodes_of(args.nodescope, trace)
        check(len(truth) >= 8, f"nodes sees {len(truth)} nodes")
        inst = f'instance="127.0.0.1:{ports[0]}"'
        counts = {(r["metric"]["graph"], r["metric"]["node"]): int(float(r["value"][1]))
                  for r in query(web, f"last_over_time(nodescope_node_duration_seconds_count{{{inst}}}[5m])")}
        medians = {(r["metric"]["graph"], r["metric"]["node"]): float(r["value"][1])
                   for r in query(web, "histogram_quantile(0.5, sum by (graph, node, le) "
                                       f"(last_over_time(nodescope_node_duration_seconds_bucket{{{inst}}}[5m])))")}
        for key, (n, p50_us) in sorted(truth.items()):
            check(counts.get(key) == n, f"{key}: count {counts.get(key)} == nodes' {n}")
            m = medians.get(key)
            check(m is not None and abs(bucket_index(m) - bucket_index(p50_us * 1e-6)) <= 1,
                  f"{key}: median {m} s within one bucket of nodes' p50 {p50_us} us")
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
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print("prometheus checks: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
