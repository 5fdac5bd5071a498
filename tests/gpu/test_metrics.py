"""GPU test (issue 27): `nodescope run --sample 20 --metrics` on the torch MLP graph, scraped by the
real Prometheus server (Debian's package; on the GPU machine the .deb unpacked with dpkg-deb -x
and put on PATH, or named by NODESCOPE_PROMETHEUS_BIN, the folder holding prometheus and
promtool). Per-node counts in Prometheus equal `nodescope nodes` on the same run's trace,
medians within one bucket of its p50, and `promtool check metrics` passes on a scrape taken while
the program runs (tests/metrics/metrics_checks.py, as the CPU tests check). Skipped (77) without
a GPU, torch or Prometheus."""
import os
import subprocess
import sys
import time
import urllib.request

from gpu_common import example, require_python, setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "metrics"))
from metrics_checks import (check, compare_with_nodes, failures, finish, free_port,  # noqa: E402
                            nodes_of, prometheus_binaries, start_prometheus)

args, tmp = setup()
require_python("import torch; assert torch.cuda.is_available()", "torch with CUDA")
prometheus, promtool = prometheus_binaries()

replays = int(os.environ.get("NODESCOPE_METRICS_REPLAYS", "12000"))
port = free_port()
trace = os.path.join(tmp, "mlp.json")
env = dict(os.environ, NODESCOPE_METRICS_INTERVAL_MS="500")
prom, web = start_prometheus(prometheus, tmp, [port])
try:
    t0 = time.time()
    run = subprocess.Popen([args.nodescope, "run", "--sample", "20", "--metrics", f"127.0.0.1:{port}",
                            "--metrics-linger", "20", "-o", trace, "--", sys.executable,
                            example("torch_graph_mlp.py"), str(replays)],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # One scrape of our own while the program runs (for promtool), then none: `run` lingers until
    # one scrape has read the final figures, and that one must be Prometheus' (on the H100 this
    # test's own polling read them first, and Prometheus kept 588 of the 652 served at the end).
    scrape = b""
    while not scrape and run.poll() is None and time.time() - t0 < 120:
        time.sleep(0.5)
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
        except OSError:
            continue
        if b"nodescope_node_duration_seconds_bucket" in body:
            scrape = body
    out, err = run.communicate(timeout=300)
    check(run.returncode == 0, f"run exits 0 ({err.strip()[-300:]})")
    check(bool(scrape), "a scrape while the program runs has per-node buckets")
    if scrape:
        pt = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True)
        check(pt.returncode == 0,
              f"promtool check metrics passes ({(pt.stdout + pt.stderr).decode().strip()[:300]})")
    time.sleep(1.5)
    truth = nodes_of(args.nodescope, trace)
    check(len(truth) >= 10, f"nodes sees {len(truth)} nodes of the MLP graph")
    kept = max((n for n, _ in truth.values()), default=0)
    check(0 < kept < replays, f"sampled: {kept} of {replays} replays kept")
    compare_with_nodes(web, port, truth)
    if failures:  # what run said, to tell a lost frame from a stale one
        print("run's stderr:", err.strip()[-1500:])
    print(f"gpu_metrics: {len(truth)} nodes, {kept} kept replays, run took {time.time() - t0:.1f} s")
finally:
    prom.terminate()
    prom.wait(timeout=30)
sys.exit(finish("gpu_metrics"))
