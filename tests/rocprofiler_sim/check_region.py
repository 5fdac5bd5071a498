#!/usr/bin/env python3
"""In-process sessions on the AMD backend over the simulated rocprofiler-sdk, no GPU and no
`nodescope run` (what Python's profile() does): sim_region_program's cases (region_program.cc) and
the traces they write. Each trace passes `nodescope check`; its graph kernels carry keys, as many
as the program expects; kernels launched outside every session (out_*) are absent. A session asked
for after the runtime initialized without the tool is refused, naming ROCP_TOOL_LIBRARIES; with it
set, the session traces. A session left open at exit is finished by an exit hook after the SDK
finalized, without hanging. A streaming session writes its parts from its own thread, every
graph kernel in one of them. Prints "region checks: all passed" when every check passed."""
import collections
import json
import os
import subprocess
import tempfile

from sim_checks import Checker, parse_args, sim_env

args = parse_args({"flag": "--tool", "required": True})
checker = Checker("region")
check = checker.check
env = sim_env(args.sim_lib_dir)
env.pop("ROCP_TOOL_LIBRARIES", None)
env.pop("NODESCOPE_ROOT_PID", None)


def run(case, folder, extra_env=None):
    e = dict(env, **(extra_env or {}))
    try:
        r = subprocess.run([args.program, case, folder], env=e, capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        check(False, f"{case}: finished within 60 s (it hung)")
        return None
    check(r.returncode == 0, f"{case}: exit {r.returncode}" +
          ("" if r.returncode == 0 else f": {r.stderr[-400:]}"))
    return r


def check_trace(case, folder, file, graph_kernels, names_in):
    path = os.path.join(folder, file)
    if not os.path.exists(path):
        check(False, f"{case}: {file} written")
        return
    c = subprocess.run([args.nodescope, "check", path], capture_output=True, text=True)
    clean = c.returncode == 0 and "verdict                         clean" in c.stdout
    check(clean, f"{case}: nodescope check {file} clean" +
          ("" if clean else f": {c.stdout[-300:]}{c.stderr[-300:]}"))
    with open(path) as f:
        t = json.load(f)
    kernels = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]
    keyed = [e for e in kernels if "graph id" in e.get("args", {})]
    names = collections.Counter(e["name"] for e in kernels)
    check(len(keyed) == graph_kernels,
          f"{case}: {file} holds {graph_kernels} graph kernels with keys ({len(keyed)})")
    check(len({(e["args"]["graph id"], e["args"]["graph node id"]) for e in keyed}) == 4,
          f"{case}: {file}: one key per node of the chain")
    outside = sorted(n for n in names if not n.startswith("in_"))
    check(not outside, f"{case}: {file}: no kernel launched outside the session ({outside})")
    for n in names_in:
        check(names[n] >= 1, f"{case}: {file}: {n} traced, with its name")


with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "early")
    os.mkdir(folder)
    r = run("early", folder)
    if r:
        check("expect first.json graph_kernels=12" in r.stdout, "early: first session written")
        check_trace("early", folder, "first.json", 12, ["in_g0", "in_direct"])
        check_trace("early", folder, "capture.json", 12, ["in_g3", "in_direct"])
        check_trace("early", folder, "second.json", 8, ["in_g0", "in_second"])
        with open(os.path.join(folder, "capture.json")) as f:
            window = json.load(f)["nodescope"].get("window", {})
        check(window.get("capture") == 1, f"early: capture.json is capture 1 ({window})")

    folder = os.path.join(tmp, "late")
    os.mkdir(folder)
    r = run("late", folder)
    if r:
        refused = [line for line in r.stdout.splitlines() if line.startswith("refused: ")]
        check(len(refused) == 1 and "ROCP_TOOL_LIBRARIES=" in refused[0] and
              "libnodescope_rocm.so" in refused[0] and "before the program's first HIP call" in
              refused[0], f"late: refused, saying how to fix it ({refused})")
        check(not os.listdir(folder), "late: nothing written when refused")
    r = run("late", folder, {"ROCP_TOOL_LIBRARIES": args.tool})
    if r:
        check("refused" not in r.stdout, f"late with ROCP_TOOL_LIBRARIES: not refused ({r.stdout})")
        check_trace("late+env", folder, "late.json", 12, ["in_g0", "in_g3"])

    folder = os.path.join(tmp, "exit")
    os.mkdir(folder)
    r = run("exit_open", folder)
    if r:
        check_trace("exit_open", folder, "exit.json", 12, ["in_g0"])
        captures = [f for f in os.listdir(folder) if f.startswith("exit.capture-")]
        check(len(captures) >= 1, f"exit_open: periodic captures written ({len(captures)})")
        bad = [f for f in captures if subprocess.run(
            [args.nodescope, "check", os.path.join(folder, f)], capture_output=True).returncode]
        check(not bad, f"exit_open: every capture passes nodescope check ({bad})")

    folder = os.path.join(tmp, "stream")
    os.mkdir(folder)
    r = run("stream", folder)
    if r:
        files = sorted(f for f in os.listdir(folder) if f.startswith("stream.part-"))
        check(len(files) >= 2, f"stream: parts written by the session's thread ({files})")
        keyed, parts = 0, set()
        for f in files + ["stream.json"]:
            path = os.path.join(folder, f)
            if not os.path.exists(path):
                check(False, f"stream: {f} written")
                continue
            c = subprocess.run([args.nodescope, "check", path], capture_output=True, text=True)
            check(c.returncode == 0, f"stream: nodescope check {f}" +
                  ("" if c.returncode == 0 else f": {c.stdout[-300:]}"))
            with open(path) as fp:
                t = json.load(fp)
            parts.add(t["nodescope"].get("window", {}).get("part"))
            keyed += sum(1 for e in t["traceEvents"]
                         if e.get("cat") == "kernel" and "graph id" in e.get("args", {}))
        check(keyed == 120, f"stream: 120 graph kernels with keys across the parts ({keyed})")
        check(parts == set(range(1, len(files) + 2)),
              f"stream: parts numbered 1..{len(files) + 1}, the trace the last ({sorted(parts)})")

checker.finish()
