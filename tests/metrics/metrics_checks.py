"""What check_metrics_cli.py and check_prometheus.py share: the check list, a free port, and
`nodescope nodes --json`'s nodes keyed as the metrics label them."""
import json
import socket
import subprocess

failures = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what, flush=True)
    if not cond:
        failures.append(what)


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
