"""GPU test: the trace is complete and valid however the program ends: exit() with work still
queued, Ctrl-C / SIGTERM sent to `nodescope run`, and a crash. The exit status stays the program's."""
import os
import signal
import subprocess
import time

from gpu_common import Checker, gpu_events, load, run_traced, setup

args, tmp = setup()
c = Checker("gpu_exit_paths")
example = os.path.join(args.bin_dir, "graph_replay")


def graph_kernels(path):
    return sum(1 for k in gpu_events(load(path), ("kernel",)) if "graph id" in k["args"])


out = os.path.join(tmp, "exit.json")
r = run_traced(args, out, [example, "--exit"])
c.check(r.returncode == 0, f"exit(): status 0 (got {r.returncode})")
c.check(graph_kernels(out) == 6400, "exit() with replays still queued: all 6400 graph kernels")

for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
    out = os.path.join(tmp, f"{name}.json")
    p = subprocess.Popen([args.nodescope, "run", "-o", out, "--", example, "--hang"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()  # the example prints once its work is done, then waits
    time.sleep(0.2)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    c.check(p.returncode == 128 + sig, f"{name}: status {128 + sig} (got {p.returncode})")
    try:
        n = graph_kernels(out)
        c.check(n == 6400, f"{name}: trace valid with all 6400 graph kernels (got {n})")
    except Exception as e:  # noqa: BLE001
        c.check(False, f"{name}: trace readable ({e}); stderr: {err}")

out = os.path.join(tmp, "crash.json")
r = run_traced(args, out, [example, "--crash"])
c.check(r.returncode == 128 + signal.SIGSEGV, f"crash: status 139 (got {r.returncode})")
try:
    c.check(graph_kernels(out) == 6400, "crash: trace valid with all 6400 graph kernels")
except Exception as e:  # noqa: BLE001
    c.check(False, f"crash: trace readable ({e})")

r = run_traced(args, os.path.join(tmp, "x.json"), ["/nonexistent/program"])
c.check(r.returncode == 127 and "not found" in r.stderr, "missing program: status 127, clear error")
r = run_traced(args, "/nonexistent-dir/x.json", [example])
c.check(r.returncode == 125 and "/nonexistent-dir/x.json" in r.stderr,
        "unwritable output: status 125, names the path")
c.finish()
