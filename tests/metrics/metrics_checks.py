"""What check_metrics_cli.py, check_prometheus.py and check_region_prometheus.py share: the check
list, a free port, `nodescope nodes --json`'s nodes keyed as the metrics label them, and the real
Prometheus server (started on its own config, queried, buckets compared)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


def finish(what):
    """The exit status after every check: says how many failed, or that all passed."""
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print(f"{what} checks: all passed")
    return 0


def prometheus_binaries():
    """(prometheus, promtool): from NODESCOPE_PROMETHEUS_BIN (a folder, e.g. Debian's .deb
    unpacked on a machine without the package) or PATH; the test is skipped (exit 77) without
    them."""
    path = os.environ.get("NODESCOPE_PROMETHEUS_BIN", "") + os.pathsep + os.environ.get("PATH", "")
    prometheus = shutil.which("prometheus", path=path)
    promtool = shutil.which("promtool", path=path)
    if not prometheus or not promtool:
        print("SKIP: prometheus or promtool not installed (scripts/setup.sh installs them, or "
              "name their folder in NODESCOPE_PROMETHEUS_BIN)")
        sys.exit(77)
    return prometheus, promtool


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def nodes_rows(nodescope, trace, strict):
    """((graph name, ordinal as text), node dict) for every node `nodes --json` prints; `strict`:
    a failing `nodes` raises, else it gives no rows."""
    out = subprocess.run([nodescope, "nodes", "--json", "--top", "0", "--rows", "0", trace],
                         check=strict, capture_output=True, text=True).stdout
    for g in (json.loads(out)["graphs"] if out else []):
        for n in g["nodes"]:
            yield (g["name"], str(n["node_id"] & 0xffffffff)), n


# The bucket bounds the exporter writes (metrics/exposition.h, DurationBuckets).
BUCKETS = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
           5e-2, 0.1, 0.2, 0.5, 1.0]


def bucket_index(seconds):
    for i, b in enumerate(BUCKETS):
        if seconds <= b:
            return i
    return len(BUCKETS)


def nodes_of(nodescope, trace):
    """{(graph, node): (replays, p50_us)} of `nodes --json`."""
    return {key: (n["replays"], n["p50_us"]) for key, n in nodes_rows(nodescope, trace, strict=True)}


def start_prometheus(prometheus, tmp, ports):
    """The real server on its own config (scraping 127.0.0.1:<port> for each of `ports` every
    second), its own web port and storage under `tmp`; returns (process, web port) once ready."""
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
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{web}/-/ready", timeout=1)
            break
        except Exception:
            time.sleep(0.2)
    return prom, web


def query(web, expr):
    url = f"http://127.0.0.1:{web}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]["result"]


def promtool_check(promtool, port):
    """`promtool check metrics` on one scrape of 127.0.0.1:<port>; returns the scrape."""
    scrape = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
    pt = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True)
    check(pt.returncode == 0,
          f"promtool check metrics passes ({pt.stdout.decode()}{pt.stderr.decode()})")
    return scrape


def compare_with_nodes(web, port, truth):
    """Each node's last count and median in Prometheus (instance 127.0.0.1:<port>) against
    `truth` (nodes_of): counts exact, medians within one bucket."""
    inst = f'instance="127.0.0.1:{port}"'
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
