"""The real Prometheus server for the metrics tests: started with its own config (scraping the
given 127.0.0.1 targets every second), its own web port and a temporary storage folder; its HTTP
query API; and the bucket a duration falls in (the buckets `--metrics` serves)."""
import json
import os
import subprocess
import time
import urllib.parse
import urllib.request

from metrics_checks import free_port

BUCKETS = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2,
           5e-2, 0.1, 0.2, 0.5, 1.0]


def bucket_index(seconds):
    for i, b in enumerate(BUCKETS):
        if seconds <= b:
            return i
    return len(BUCKETS)


class Prometheus:
    """`with Prometheus(binary, tmp, ports) as prom:` scrapes 127.0.0.1:<port> for each port."""

    def __init__(self, binary, tmp, ports):
        self.web = free_port()
        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
                    "  - job_name: nodescope\n    static_configs:\n      - targets: [" +
                    ", ".join(f"'127.0.0.1:{p}'" for p in ports) + "]\n")
        self.proc = subprocess.Popen(
            [binary, f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'data')}",
             f"--web.listen-address=127.0.0.1:{self.web}"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "prom.log"), "w"))
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.web}/-/ready", timeout=1)
                break
            except Exception:
                time.sleep(0.2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def query(self, expr):
        url = f"http://127.0.0.1:{self.web}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        assert body["status"] == "success", body
        return body["data"]["result"]

    def last_counts(self, instance):
        """(graph, node) -> the last count scraped from one instance."""
        return {(r["metric"]["graph"], r["metric"]["node"]): int(float(r["value"][1]))
                for r in self.query("last_over_time(nodescope_node_duration_seconds_count"
                                    f'{{instance="{instance}"}}[5m])')}

    def last_medians(self, instance):
        """(graph, node) -> histogram_quantile(0.5) of the last buckets scraped from one instance."""
        return {(r["metric"]["graph"], r["metric"]["node"]): float(r["value"][1])
                for r in self.query("histogram_quantile(0.5, sum by (graph, node, le) "
                                    "(last_over_time(nodescope_node_duration_seconds_bucket"
                                    f'{{instance="{instance}"}}[5m])))')}
