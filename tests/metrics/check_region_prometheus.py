#!/usr/bin/env python3
"""NODESCOPE_METRICS: an in-process session (the C API, no `nodescope run`) serving /metrics from
a thread of its own, scraped by the real Prometheus server (Debian's `prometheus`).

The simulated-AMD region program (tests/rocprofiler_sim/region_program.cc, case `metrics`) traces
two graphs replayed by two threads for 5 s (at least four scrape intervals) with
NODESCOPE_METRICS=127.0.0.1:<free port> (and NODESCOPE_SAMPLE=5 where the rocm backend samples),
writes its trace at nodescope_stop() and keeps serving 3 s more. Prometheus' last count and median
of each node are compared with `nodescope nodes --json` on that trace: counts exact, medians
within one bucket; `promtool check metrics` passes on a scrape. Then a port already taken:
nodescope_start fails saying so, nothing traced. Exits 77 (skipped) when prometheus or promtool is
missing.
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from metrics_checks import (check, compare_with_nodes, finish, free_port, nodes_of,
                            prometheus_binaries, promtool_check, start_prometheus)


def start(args, env, tmp):
    return subprocess.Popen([args.program, "metrics", tmp], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodescope", required=True)
    ap.add_argument("--program", required=True)  # sim_region_program
    ap.add_argument("--sim-lib-dir", required=True)
    args = ap.parse_args()
    prometheus, promtool = prometheus_binaries()
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    for v in ("NODESCOPE_RING", "NODESCOPE_STREAM", "NODESCOPE_CAPTURE_EVERY", "NODESCOPE_OUTPUT",
              "NODESCOPE_METRICS_FD", "NODESCOPE_ROOT_PID", "NODESCOPE_SAMPLE"):
        env.pop(v, None)
    env.update(NODESCOPE_METRICS_INTERVAL_MS="500", REGION_METRICS_MS="5000",
               REGION_METRICS_LINGER_MS="3000")
    tmp = tempfile.mkdtemp(prefix="nodescope-region-prom-")
    port = free_port()
    prom, web = start_prometheus(prometheus, tmp, [port])
    try:
        env["NODESCOPE_METRICS"] = f"127.0.0.1:{port}"
        # Sampled where the rocm backend samples (the session is refused at once where not).
        run = start(args, dict(env, NODESCOPE_SAMPLE="5"), tmp)
        time.sleep(2.5)
        if run.poll() is not None and "cannot sample" in run.stdout.read():
            print("note: NODESCOPE_SAMPLE=5 not available for rocm in this build: full tracing")
            run = start(args, env, tmp)
            time.sleep(2.5)
        scrape = promtool_check(promtool, port)
        check(b"nodescope_node_duration_seconds_bucket" in scrape,
              "a scrape while tracing has per-node buckets")
        out, err = run.communicate(timeout=120)
        check(run.returncode == 0 and "written" in out,
              f"the program exits 0 having written its trace ({err.strip()[-300:]})")
        truth = nodes_of(args.nodescope, os.path.join(tmp, "metrics.json"))
        check(len(truth) == 8, f"nodes sees {len(truth)} nodes (8 expected)")
        check(any(g.startswith("serve.decode-") for g, _ in truth),
              "the graph captured under serve/decode is named after its scope")
        time.sleep(1.5)
        compare_with_nodes(web, port, truth)
        # A port already taken: nodescope_start fails, nothing traced, no trace written.
        os.remove(os.path.join(tmp, "metrics.json"))
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            env["NODESCOPE_METRICS"] = str(taken.getsockname()[1])
            r = subprocess.run([args.program, "metrics", tmp], env=env, capture_output=True,
                               text=True, timeout=60)
        check(r.returncode == 3 and "Address already in use" in r.stdout,
              f"a port taken refuses the session ({r.stdout.strip()} {r.stderr.strip()[-200:]})")
        check(not os.path.exists(os.path.join(tmp, "metrics.json")), "nothing traced then")
    finally:
        prom.terminate()
        prom.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("region prometheus")


if __name__ == "__main__":
    sys.exit(main())
