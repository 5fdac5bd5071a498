#!/usr/bin/env python3
"""`nodescope run --metrics` under hostile and careless use, over the simulated AMD runtime:
a port already taken (exit 125, the program never started), scrapes during exit and during
SIGTERM (every answer complete or the connection refused; run ends with the program's status and
a trace), a scraper that connects and never reads, 100 scrapes at once, a Unix socket (0600), a
program that forks, --ring refused up front, and each scrape's text accepted by promtool when it
is installed.
"""
import argparse
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
        # --ring refused up front.
        r = subprocess.run(run + ["--metrics", str(free_port()), "--ring", "10s", "--", "/bin/true"],
                           env=env, capture_output=True, text=True)
        check(r.returncode == 125 and "--ring" in r.stderr, f"--ring refused: {r.returncode}")

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
    if failures:
        print(f"{len(failures)} checks failed")
        return 1
    print("metrics cli checks: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
