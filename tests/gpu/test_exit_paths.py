"""GPU test: the trace is complete and valid however the program ends: exit() with work still
queued, every signal whose default action ends a process sent to `nodescope run` (issue 24), and
a crash. The exit status stays the program's. And where it goes (issue 24): a character device
and a FIFO written in place, a full device an error (125), `nodescope capture` and SIGUSR2 on a
program that waits, two runs with one -o both kept."""
import glob
import json
import os
import signal
import stat
import subprocess
import sys
import threading
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

SIGNALS = [(getattr(signal, n), n) for n in
           ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGALRM", "SIGPIPE", "SIGVTALRM",
            "SIGPROF", "SIGXCPU", "SIGXFSZ", "SIGSTKFLT", "SIGPWR", "SIGIO")]
SIGNALS += [(signal.SIGRTMIN, "SIGRTMIN"), (signal.SIGRTMAX, "SIGRTMAX")]
for sig, name in SIGNALS:
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

# Outputs written in place (issue 24): devices of our own (mknod), a FIFO, /dev/stdout on a pipe.
null, full = os.path.join(tmp, "null"), os.path.join(tmp, "full")
os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
r = run_traced(args, null, [example])
c.check(r.returncode == 0 and stat.S_ISCHR(os.stat(null).st_mode) and "written in place" in r.stderr,
        f"-o a null device: status {r.returncode}, still a device")
r = run_traced(args, full, [example])
c.check(r.returncode == 125 and "No space left" in r.stderr and stat.S_ISCHR(os.stat(full).st_mode),
        f"-o a full device: status {r.returncode} (125), said, still a device")
fifo = os.path.join(tmp, "t.fifo")
os.mkfifo(fifo)
got = {}
reader = threading.Thread(target=lambda: got.update(data=open(fifo, "rb").read()))
reader.start()
r = run_traced(args, fifo, [example])
reader.join(60)
try:
    n = sum(1 for e in json.loads(got.get("data", b""))["traceEvents"]
            if e.get("cat") == "kernel" and "graph id" in e["args"])
except ValueError:
    n = 0
c.check(r.returncode == 0 and n == 6400, f"-o a FIFO: its reader got all 6400 graph kernels ({n})")
r = subprocess.run([args.nodescope, "run", "-o", "/dev/stdout", "--", example], capture_output=True,
                   timeout=300)
at = r.stdout.find(b'{\n  "schemaVersion"')
try:
    trace, _ = json.JSONDecoder().raw_decode(r.stdout[at:].decode())
    n = sum(1 for e in trace["traceEvents"] if e.get("cat") == "kernel" and "graph id" in e["args"])
except ValueError:
    n = 0
c.check(r.returncode == 0 and at >= 0 and n == 6400, f"-o /dev/stdout on a pipe: {n} graph kernels")

# Captures of a waiting program: by `nodescope capture` (the socket's new server) and SIGUSR2.
out = os.path.join(tmp, "cap.json")
p = subprocess.Popen([args.nodescope, "run", "-o", out, "--", example, "--hang"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
p.stdout.readline()
pid = int(subprocess.run(["pgrep", "-f", "-n", "graph_replay --hang"], capture_output=True,
                         text=True).stdout.split()[0])
r = subprocess.run([args.nodescope, "capture", str(pid)], capture_output=True, text=True,
                   timeout=120)
first = r.stdout.strip()
c.check(r.returncode == 0 and os.path.isfile(first), f"nodescope capture {pid}: {r.stderr.strip()}")
os.kill(pid, signal.SIGUSR2)
time.sleep(2)
p.send_signal(signal.SIGTERM)
p.communicate(timeout=120)
captures = sorted(glob.glob(os.path.join(tmp, "cap.capture-*.json")))
c.check(len(captures) == 2 and all(graph_kernels(f) == 6400 for f in captures),
        f"two captures with all 6400 graph kernels: {captures}")

# Two runs with one -o at once: both traces kept, the later named by pid.
same = os.path.join(tmp, "same.json")
procs = [subprocess.Popen([args.nodescope, "run", "-o", same, "--", example], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) for _ in range(2)]
errs = [p.communicate(timeout=300)[1] for p in procs]
kept = glob.glob(os.path.join(tmp, "same*.json"))
c.check(len(kept) == 2 and all(graph_kernels(f) == 6400 for f in kept) and
        sum("named by its pid" in e for e in errs) == 1, f"two runs with one -o: {kept}")

# A torch program that forks a worker (no exec) and ends it with SIGTERM, as a data loader may:
# the worker dies by SIGTERM, the traced parent goes on and writes its trace (before: the
# worker's signal reached the parent's watcher and ended the parent).
FORKER = """
import os, signal, sys, time
import torch
x = torch.ones(1 << 20, device="cuda"); torch.cuda.synchronize()
pid = os.fork()
if pid == 0:
    time.sleep(30); os._exit(0)
time.sleep(0.3); os.kill(pid, signal.SIGTERM); _, st = os.waitpid(pid, 0)
print("worker ended by", os.WTERMSIG(st) if os.WIFSIGNALED(st) else -1, flush=True)
y = (x * 2).sum().item(); torch.cuda.synchronize(); print("parent done", y, flush=True)
"""
if subprocess.run([sys.executable, "-c", "import torch; assert torch.cuda.is_available()"],
                  capture_output=True).returncode == 0:
    out = os.path.join(tmp, "forker.json")
    r = run_traced(args, out, [sys.executable, "-c", FORKER])
    kernels = len(gpu_events(load(out))) if os.path.exists(out) else 0
    c.check(r.returncode == 0 and "worker ended by 15" in r.stdout and "parent done" in r.stdout
            and kernels > 0, f"torch forks a worker and ends it with SIGTERM: status "
            f"{r.returncode}, {r.stdout.strip()!r}, {kernels} GPU events traced")
else:
    print("SKIP: the torch fork case (no torch with CUDA)")

r = run_traced(args, os.path.join(tmp, "x.json"), ["/nonexistent/program"])
c.check(r.returncode == 127 and "not found" in r.stderr, "missing program: status 127, clear error")
r = run_traced(args, "/nonexistent-dir/x.json", [example])
c.check(r.returncode == 125 and "/nonexistent-dir/x.json" in r.stderr,
        "unwritable output: status 125, names the path")
c.finish()
