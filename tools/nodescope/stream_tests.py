#!/usr/bin/env python3
"""check, nodes and plot at the edges the CMake harness cannot reach: stdout that cannot be
written (a full device, a closed descriptor, a pipe with no reader while SIGPIPE is ignored),
traces read from standard input, and empty arguments.

usage: stream_tests.py NODESCOPE DATA_DIR SCRATCH_DIR {stdout-errors|stdin|empty-args}
Prints each failing case; exits 1 if any failed."""
import os
import signal
import subprocess
import sys

nodescope, data, scratch, suite = sys.argv[1:5]
os.makedirs(scratch, exist_ok=True)
clean = os.path.join(data, "clean.json")
failures = []


def run(args, stdout=subprocess.PIPE, stdin=None, pass_fds=(), close_stdout=False,
        ignore_sigpipe=False):
    def before():
        if ignore_sigpipe:
            signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        else:
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        if close_stdout:
            os.close(1)
    p = subprocess.run([nodescope] + args, stdout=stdout, stderr=subprocess.PIPE, stdin=stdin,
                       preexec_fn=before, pass_fds=pass_fds)
    out = p.stdout.decode(errors="replace") if isinstance(p.stdout, bytes) else ""
    return p.returncode, out, p.stderr.decode(errors="replace")


def expect(case, got_rc, want_rc, text, want_in):
    rc_ok = got_rc == want_rc
    text_ok = want_in in text
    if not (rc_ok and text_ok):
        failures.append(f"{case}: exit {got_rc} (want {want_rc}); "
                        f"want {want_in!r} in {text.strip()!r}")


commands = {
    "check": ["check", clean],
    "check --json": ["check", "--json", clean],
    "nodes": ["nodes", clean],
    "nodes --csv": ["nodes", "--csv", clean],
    "plot": ["plot", clean, "-o", os.path.join(scratch, "stream.svg")],
}

if suite == "stdout-errors":
    for name, args in commands.items():
        word = args[0]
        with open("/dev/full", "w") as full:
            rc, _, err = run(args, stdout=full)
        expect(f"{name} > /dev/full", rc, 2, err, f"nodescope {word}: writing the output")
        rc, _, err = run(args, stdout=None, close_stdout=True)
        expect(f"{name} >&-", rc, 2, err, f"nodescope {word}: writing the output")
        r, w = os.pipe()
        os.close(r)  # no reader: a write gets EPIPE once SIGPIPE is ignored
        rc, _, err = run(args, stdout=w, ignore_sigpipe=True)
        os.close(w)
        expect(f"{name} | (closed), SIGPIPE ignored", rc, 2, err,
               f"nodescope {word}: writing the output")
elif suite == "stdin":
    for name, args, want in [
            ("check -", ["check", "-"], "verdict                         clean"),
            ("nodes -", ["nodes", "-"], "graph 1 (graph-0f182548): 6 nodes, 5 replays"),
            ("nodes A --diff -", ["nodes", clean, "--diff", "-"], "graph 1: the same nodes in A and B"),
            ("plot -", ["plot", "-", "-o", os.path.join(scratch, "stdin.svg")], "wrote ")]:
        with open(clean, "rb") as f:
            rc, out, err = run(args, stdin=f)
        expect(name + " < clean.json", rc, 0, out, want)
    with open(clean, "rb") as f:
        rc, out, err = run(["check", "-", "-"], stdin=f)
    expect("check - -", rc, 2, err, "can be read only once")
elif suite == "empty-args":
    for name, args, want in [
            ("check ''", ["check", ""], "must not be empty"),
            ("nodes ''", ["nodes", ""], "must not be empty"),
            ("nodes --diff ''", ["nodes", clean, "--diff", ""], "--diff: must not be empty"),
            ("plot ''", ["plot", "", "-o", os.path.join(scratch, "empty.svg")], "must not be empty")]:
        rc, out, err = run(args)
        expect(name, rc, 2, err, want)
else:
    sys.exit(f"unknown suite {suite}")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
