"""GPU test (issue 27): `nodescope run --sample 20 --metrics` on the torch MLP graph, scraped by the
real Prometheus server (Debian's package; on the GPU machine the .deb unpacked with dpkg-deb -x
and put on PATH, or named by NODESCOPE_PROMETHEUS_BIN, the folder holding prometheus and
promtool). Per-node counts served at the end equal `nodescope nodes` on the same run's trace,
medians within one bucket of its p50, and `promtool check metrics` passes on a scrape taken while
the program runs. Skipped (77) without a GPU, torch or Prometheus."""
import os
import shutil
import subprocess
import sys
import time
import urllib.request

from gpu_common import Checker, example, require_python, setup

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "metrics"))
from metrics_checks import free_port, nodes_rows  # noqa: E402
from prom_server import Prometheus, bucket_index  # noqa: E402

args, tmp = setup()
require_python("import torch; assert torch.cuda.is_available()", "torch with CUDA")
path = os.environ.get("NODESCOPE_PROMETHEUS_BIN", "") + os.pathsep + os.environ.get("PATH", "")
prometheus = shutil.which("prometheus", path=path)
promtool = shutil.which("promtool", path=path)
if not prometheus or not promtool:
    print("SKIP: prometheus or promtool not found (NODESCOPE_PROMETHEUS_BIN or PATH)")
    sys.exit(77)

c = Checker("gpu_metrics")
replays = int(os.environ.get("NODESCOPE_METRICS_REPLAYS", "12000"))
port = free_port()
trace = os.path.join(tmp, "mlp.json")
env = dict(os.environ, NODESCOPE_METRICS_INTERVAL_MS="500")
with Prometheus(prometheus, tmp, [port]) as prom:
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
    c.check(run.returncode == 0, f"run exits 0 ({err.strip()[-300:]})")
    c.check(bool(scrape), "a scrape while the program runs has per-node buckets")
    if scrape:
        pt = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True)
        c.check(pt.returncode == 0,
                f"promtool check metrics passes ({(pt.stdout + pt.stderr).decode().strip()[:300]})")
    time.sleep(1.5)
    truth = {key: (n["replays"], n["p50_us"]) for key, n in nodes_rows(args.nodescope, trace, True)}
    c.check(len(truth) >= 10, f"nodes sees {len(truth)} nodes of the MLP graph")
    kept = max((n for n, _ in truth.values()), default=0)
    c.check(0 < kept < replays, f"sampled: {kept} of {replays} replays kept")
    inst = f"127.0.0.1:{port}"
    counts, medians = prom.last_counts(inst), prom.last_medians(inst)
    worst = 0
    for key, (n, p50_us) in sorted(truth.items()):
        c.check(counts.get(key) == n, f"{key}: count {counts.get(key)} == nodes' {n}")
        m = medians.get(key)
        off = abs(bucket_index(m) - bucket_index(p50_us * 1e-6)) if m is not None else 99
        worst = max(worst, off)
        c.check(off <= 1, f"{key}: median {m} s within one bucket of nodes' p50 {p50_us} us")
    if c.failures:  # what run said and served last, to tell a lost frame from a stale one
        print("run's stderr:", err.strip()[-1500:])
        print("last scrape:", [l for l in scrape.decode().splitlines() if "_count{" in l][:3])
    print(f"gpu_metrics: {len(truth)} nodes, {kept} kept replays, worst median offset {worst} "
          f"bucket(s), run took {time.time() - t0:.1f} s")
c.finish()
