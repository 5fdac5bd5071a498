#!/usr/bin/env python3
"""`nodescope run --metrics` under hostile and careless use, over the simulated AMD runtime:
a port already taken (exit 125, the program never started), scrapes during exit and during
SIGTERM (every answer complete or the connection refused; run ends with the program's status and
a trace), a scraper that connects and never reads, 100 scrapes at once, a Unix socket (0600), a
program that forks, --stream and --ring windows (frames by interval add up exactly), and each scrape's text accepted by promtool when it
is installed.
"""
import argparse
import re
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

from metrics_checks import check, finish, free_port, nodes_rows


def http_get(port=None, unix=None, timeout=10):
    """The whole answer, or None when the connection was refused or reset."""
    try:
        if unix:
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(timeout)
            s.connect(unix)
        else:
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        return data
    except (ConnectionRefusedError, ConnectionResetError, FileNotFoundError):
        return None


def complete(answer):
    head, _, body = answer.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return head.startswith(b"HTTP/1.1 200") and int(line.split(b":")[1]) == len(body)
    return False


def wait_serving(port, proc, seconds=20):
    end = time.time() + seconds
    while time.time() < end and proc.poll() is None:
        a = http_get(port)
        if a and b"nodescope_node_duration_seconds_count" in a:
            return a
        time.sleep(0.1)
    return None


def nodes_counts(nodescope, trace):
    got = {}
    for key, n in nodes_rows(nodescope, trace, strict=False):
        got[key] = got.get(key, 0) + n["replays"]
    return got


def scraped_counts(text, family="node"):
    got = {}
    pat = (r'nodescope_node_duration_seconds_count\{graph="([^"]+)",node="([^"]+)".*\} (\d+)'
           if family == "node" else
           r'nodescope_graph_replay_duration_seconds_count\{graph="([^"]+)"(),.*\} (\d+)')
    for line in text.splitlines():
        m = re.match(pat, line)
        if m:
            got[(m[1], m[2])] = int(m[3])
    return got


def scrape_to_the_end(args, env, tmp, flags, trace, ms):
    """Runs loop_<ms> with `flags`, scraping until run ends: the last scrape (the final figures:
    run lingers until one scrape has read them) and the program's stdout."""
    port = free_port()
    p = subprocess.Popen([args.nodescope, "run", "--backend", "rocm", "--metrics", str(port),
                          "--metrics-linger", "20", "-o", os.path.join(tmp, trace)] + flags +
                         ["--", args.program, f"loop_{ms}"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    last = ""
    while p.poll() is None:
        a = http_get(port, timeout=5)
        if a and complete(a):
            last = a.partition(b"\r\n\r\n")[2].decode()
        time.sleep(0.1)
    return last, p.stdout.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodescope", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--sim-lib-dir", required=True)
    args = ap.parse_args()
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    env["NODESCOPE_METRICS_INTERVAL_MS"] = "200"
    for v in ("NODESCOPE_RING", "NODESCOPE_STREAM", "NODESCOPE_CAPTURE_EVERY", "NODESCOPE_OUTPUT"):
        env.pop(v, None)
    promtool = shutil.which("promtool")
    tmp = tempfile.mkdtemp(prefix="nodescope-metrics-cli-")
    run = [args.nodescope, "run", "--backend", "rocm"]
    try:
        # A port already taken: 125 before the program starts.
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        marker = os.path.join(tmp, "started")
        r = subprocess.run(run + ["--metrics", str(port), "-o", os.path.join(tmp, "t0.json"), "--",
                                  "/bin/sh", "-c", f"touch {marker}"],
                           env=env, capture_output=True, text=True)
        check(r.returncode == 125, f"port taken: exit {r.returncode} == 125")
        check("cannot listen on 127.0.0.1:%d" % port in r.stderr and "in use" in r.stderr,
              f"port taken: says so ({r.stderr.strip()})")
        check(not os.path.exists(marker), "port taken: the program was not started")
        taken.close()
        # A streaming window: frames by interval, each part fed before it leaves memory, the
        # rest from the last part: the counts equal the sum of every part's `nodes`.
        last, out = scrape_to_the_end(args, env, tmp, ["--stream", "5000"], "st.json", 3000)
        want = {}
        for f in sorted(os.listdir(tmp)):
            if f.startswith("st") and f.endswith(".json"):
                for key, n in nodes_counts(args.nodescope, os.path.join(tmp, f)).items():
                    want[key] = want.get(key, 0) + n
        got = scraped_counts(last)
        parts = len([f for f in os.listdir(tmp) if f.startswith("st.part-")])
        check(parts >= 2 and got == want,
              f"--stream: counts over {parts} parts and the trace == the sum of their nodes "
              f"({sum(want.values())} vs {sum(got.values())})")
        # The series limit: 8 nodes, 3 series; the other 5 folded into their graphs' "other".
        last, out = scrape_to_the_end(args, env, tmp, ["--metrics-series", "3"], "lim.json", 1500)
        got = scraped_counts(last)
        own = [k for k in got if k[1] != "other"]
        total = sum(nodes_counts(args.nodescope, os.path.join(tmp, "lim.json")).values())
        check(len(own) == 3 and "nodescope_node_series 3\n" in last and
              "nodescope_node_series_folded 5\n" in last and sum(got.values()) == total,
              f"--metrics-series 3: {len(own)} own series, the rest in node=\"other\", "
              f"{sum(got.values())} == {total} counted")
        # A ring shorter than the run: every replay counted once, none lost or twice.
        last, out = scrape_to_the_end(args, env, tmp, ["--ring", "1s"], "ring.json", 3000)
        made = int(out.split("loop: ")[1].split()[0]) if "loop: " in out else -1
        replays = sum(v for k, v in scraped_counts(last, "graph_replay").items())
        withheld = sum(int(float(l.rsplit(" ", 1)[1])) for l in last.splitlines()
                       if l.startswith("nodescope_records_withheld_total{"))
        # Every replay counted once: none twice, and none lost but those whose records a key
        # was withheld from (counted by reason, as in the trace).
        check(made > 0 and replays <= made and made - replays <= withheld,
              f"--ring 1s: replays counted {replays}, made {made}, records withheld {withheld}")
        window = nodes_counts(args.nodescope, os.path.join(tmp, "ring.json"))
        got = scraped_counts(last)
        check(all(got.get(k, 0) >= n for k, n in window.items()) and
              sum(got.values()) > sum(window.values()),
              f"--ring: more counted ({sum(got.values())}) than the last window holds "
              f"({sum(window.values())})")

        # Scrapes during the run, 100 at once, one that never reads, and during SIGTERM.
        port = free_port()
        trace = os.path.join(tmp, "t1.json")
        p = subprocess.Popen(run + ["--metrics", f"127.0.0.1:{port}", "--metrics-linger", "2",
                                    "-o", trace, "--", args.program, "loop_60000"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = wait_serving(port, p)
        check(first is not None, "serves figures while the program runs")
        if promtool and first:
            body = first.partition(b"\r\n\r\n")[2]
            pt = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True)
            check(pt.returncode == 0, "promtool check metrics passes")
        deaf = socket.create_connection(("127.0.0.1", port))
        deaf.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")  # and never reads
        silent = socket.create_connection(("127.0.0.1", port))  # never sends
        answers = [None] * 100
        def scrape(i):
            answers[i] = http_get(port)
        ts = [threading.Thread(target=scrape, args=(i,)) for i in range(100)]
        t0 = time.time()
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        ok = sum(1 for a in answers if a and complete(a))
        check(ok == 100, f"100 concurrent scrapes beside a deaf and a silent client: {ok} complete "
                         f"in {time.time() - t0:.2f} s")
        # Scrapes running while SIGTERM reaches run (forwarded to the program).
        stop = threading.Event()
        seen = {"complete": 0, "refused": 0, "broken": 0}
        def hammer():
            while not stop.is_set():
                a = http_get(port, timeout=5)
                if a is None:
                    seen["refused"] += 1
                    time.sleep(0.01)
                elif complete(a):
                    seen["complete"] += 1
                else:
                    seen["broken"] += 1
        hs = [threading.Thread(target=hammer) for _ in range(4)]
        for h in hs:
            h.start()
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        time.sleep(0.3)
        stop.set()
        for h in hs:
            h.join()
        deaf.close()
        silent.close()
        check(p.returncode == 143, f"SIGTERM: run exits with the program's status ({p.returncode})")
        check(os.path.exists(trace), "SIGTERM: the trace was written")
        check(seen["broken"] == 0 and seen["complete"] > 0,
              f"scrapes during SIGTERM and exit: {seen}")

        # A Unix socket, created 0600, removed at the end.
        sock = os.path.join(tmp, "m.sock")
        p = subprocess.Popen(run + ["--metrics", sock, "--metrics-linger", "5", "-o",
                                    os.path.join(tmp, "t2.json"), "--", args.program, "loop_1500"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got = None
        end = time.time() + 20
        while time.time() < end and got is None:
            if os.path.exists(sock):
                check(stat.S_IMODE(os.stat(sock).st_mode) == 0o600, "Unix socket is 0600")
                a = http_get(unix=sock)
                if a and b"nodescope_node_duration_seconds_count" in a:
                    got = a
            time.sleep(0.1)
        check(got is not None and complete(got), "served on a Unix socket")
        p.communicate(timeout=60)
        check(p.returncode == 0 and not os.path.exists(sock), "Unix socket removed at the end")

        # A program that forks children (without exec) that end in signals or exit().
        port = free_port()
        p = subprocess.Popen(run + ["--metrics", str(port), "--metrics-linger", "0", "-o",
                                    os.path.join(tmp, "t3.json"), "--", args.program, "fork_signals"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, err = p.communicate(timeout=120)
        check(p.returncode == 0, f"a forking program: exit {p.returncode} ({err.strip()[-200:]})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("metrics cli")


if __name__ == "__main__":
    sys.exit(main())
