#!/usr/bin/env python3
"""Bounded memory and capture on demand end to end, no GPU (issue 14): the rocprofiler backend on
the simulated SDK, `nodescope run --backend rocm` over `sim_program loop_<ms>` (a service replaying
graphs from 2 threads), and the PTI backend over its simulator for the ring alone.

  ring      --ring 20000 --capture-every 1s: a capture by `nodescope capture PID`, one by SIGUSR2,
            periodic ones; every file (and the trace at exit) passes `nodescope check`, says its
            window policy, and `nodes --diff` compares two captures.
  notraced  `nodescope capture` of a process nodescope does not trace: a clear error, exit 1, and
            that process goes on (it is never signalled).
  stream    --stream 5000: parts <trace>.part-<n>.json then the trace, each valid, numbered in
            order, no kernel in two files.
  stream_keys  --stream over sim_program loop_2500 (rocm) and pti_sim_program graph_loop_4500
            (xpu), and each in full: the parts hold back what a later batch or flush decides, so
            together they key what a trace does: 0 undecided_at_capture, keyed + withheld = every
            graph kernel, none in two files or lost, 0 wrong keys (the fractions printed).
  exits     --ring 5000 over sim_program sigint_midrun and exit_midrun: the window is written on
            SIGINT and on exit() mid-run, valid.
  pti_ring  --backend xpu --ring 10000 over sim_program graph 5000: the window kept, the rest
            counted as ring_released, the trace valid.
  pti_captures  --backend xpu --ring 2s --capture-every 1s over pti_sim_program graph_loop_4500
            (two threads replaying two graphs): every capture passes `nodescope check`, the later
            ones carry graph keys (the fraction printed), 0 wrong or aliased keys against the
            simulator's nodes, no provisional key written, and every kernel keyed in a capture
            has the same key in the trace at exit when it is still in its window.
Prints "window checks: all passed" when every check passed.
"""
import glob
import json
import os
import re
import signal
import subprocess
import tempfile
import time

from sim_checks import Checker, parse_args, sim_env

args = parse_args({"flag": "--pti-program"}, {"flag": "--pti-lib-dir"})
checker = Checker("window")
check = checker.check


def env_for(lib_dir):
    env = sim_env(lib_dir)
    # `--backend xpu` preloads libnodescope_xpu.so, which in a sanitizer build comes before the
    # ASan runtime in the program's library list: ASan refuses that unless told it is fine (as in
    # tests/pti_sim/check_backend.py). Harmless for the rocm runs and outside sanitizer builds.
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "verify_asan_link_order=0"
    return env


def nodescope(*argv):
    return subprocess.run([args.nodescope, *argv], capture_output=True, text=True, timeout=120)


def header(path):
    with open(path) as f:
        return json.load(f)


def kernels(doc):
    # A kernel's identity: its absolute start (each file's "ts" counts from its own
    # baseTimeNanoseconds), name, launch (correlation) and node. (ts, name) alone let two
    # replays of a kernel in different files, at the same offset from their bases, pass for one
    # kernel written twice.
    base = doc.get("baseTimeNanoseconds", 0)
    return [(base + round(e["ts"] * 1000), e["name"], e["args"].get("correlation"),
             e["args"].get("graph node id"))
            for e in doc["traceEvents"] if e.get("cat") == "kernel"]


def start_service(out, ms, *flags):
    p = subprocess.Popen([args.nodescope, "run", "--backend", "rocm", *flags, "-o", out, "--",
                          args.program, f"loop_{ms}"], env=env_for(args.sim_lib_dir),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    check(line.startswith("pid "), f"the service printed its pid ({line.strip()!r})")
    return p, int(line.split()[1]) if line.startswith("pid ") else 0


def ring(tmp):
    out = os.path.join(tmp, "ring.json")
    p, pid = start_service(out, 4500, "--ring", "20000", "--capture-every", "1s")
    time.sleep(1.5)
    r = nodescope("capture", str(pid))
    path = r.stdout.strip()
    check(r.returncode == 0 and os.path.exists(path),
          f"nodescope capture {pid}: {path} ({r.stderr.strip()})")
    os.kill(pid, signal.SIGUSR2)
    _, err = p.communicate(timeout=120)
    check(p.returncode == 0, f"the service ran to its end (exit {p.returncode}): {err[-400:]}")
    captures = sorted(glob.glob(os.path.join(tmp, "ring.capture-*.json")))
    # One by command, one by signal, at least two periodic (4.5 s, every 1 s).
    check(len(captures) >= 4, f"{len(captures)} captures written: {captures}")
    for f in captures + [out]:
        c = nodescope("check", f)
        check(c.returncode == 0, f"nodescope check {os.path.basename(f)}: exit {c.returncode}")
        w = header(f)["nodescope"].get("window", {})
        check(w.get("policy") == "ring:events=20000", f"{os.path.basename(f)} window {w}")
    numbers = sorted(header(f)["nodescope"]["window"]["capture"] for f in captures)
    check(numbers == list(range(1, len(captures) + 1)), f"captures numbered in order: {numbers}")
    last = header(out)["nodescope"]["window"]
    check(last["ring_released"] > 0, f"the ring released records by the end: {last}")
    check(header(out)["nodescope"]["dropped_records"]["total"] == 0, "nothing dropped")
    d = nodescope("nodes", "--diff", captures[0], captures[-1])
    check(d.returncode == 0 and "4 matched" in d.stdout,
          f"nodes --diff between two captures: exit {d.returncode}")
    print(d.stdout[:600])


def notraced():
    sleeper = subprocess.Popen(["sleep", "30"])
    r = nodescope("capture", str(sleeper.pid))
    check(r.returncode == 1 and "is not traced by nodescope" in r.stderr,
          f"capture of an untraced process: exit {r.returncode}: {r.stderr.strip()}")
    check(sleeper.poll() is None, "the untraced process goes on")
    sleeper.kill()
    sleeper.wait()


def stream(tmp):
    out = os.path.join(tmp, "stream.json")
    p, _ = start_service(out, 3000, "--stream", "5000")
    _, err = p.communicate(timeout=120)
    check(p.returncode == 0, f"the streamed service ran to its end: {err[-400:]}")
    parts = sorted(glob.glob(os.path.join(tmp, "stream.part-*.json")),
                   key=lambda f: header(f)["nodescope"]["window"]["part"])
    check(len(parts) >= 1, f"{len(parts)} parts written before the end")
    seen, duplicates = set(), 0
    for n, f in enumerate(parts + [out], start=1):
        c = nodescope("check", f)
        check(c.returncode == 0, f"nodescope check {os.path.basename(f)}: exit {c.returncode}")
        doc = header(f)
        check(doc["nodescope"]["window"]["part"] == n, f"{os.path.basename(f)} is part {n}")
        for k in kernels(doc):
            duplicates += k in seen
            seen.add(k)
    check(duplicates == 0, f"no kernel in two files ({len(seen)} kernels, {duplicates} twice)")


def exits(tmp):
    for case in ("sigint_midrun", "exit_midrun"):
        out = os.path.join(tmp, f"{case}.json")
        r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "--ring", "5000", "-o", out,
                            "--", args.program, case], env=env_for(args.sim_lib_dir),
                           capture_output=True, text=True, timeout=120)
        check(os.path.exists(out), f"{case}: the ring's window written ({r.stderr[-300:]})")
        if os.path.exists(out):
            c = nodescope("check", out)
            check(c.returncode == 0, f"{case}: nodescope check exit {c.returncode}")
            w = header(out)["nodescope"].get("window", {})
            check(w.get("policy") == "ring:events=5000", f"{case}: window {w}")


def pti_ring(tmp):
    out = os.path.join(tmp, "pti.json")
    r = subprocess.run([args.nodescope, "run", "--backend", "xpu", "--ring", "10000", "-o", out,
                        "--", args.pti_program, "graph", "5000"], env=env_for(args.pti_lib_dir),
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"pti ring run: exit {r.returncode}: {r.stderr[-400:]}")
    if not os.path.exists(out):
        check(False, "pti ring trace written")
        return
    c = nodescope("check", out)
    check(c.returncode == 0, f"nodescope check pti ring trace: exit {c.returncode}")
    doc = header(out)
    w = doc["nodescope"].get("window", {})
    check(w.get("ring_released", 0) > 0, f"pti ring released records: {w}")
    check(len(kernels(doc)) < 5000 * 6, f"pti ring kept a window: {len(kernels(doc))} kernels")
    keyed = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel" and "graph id" in e["args"])
    check(keyed > 0, f"pti ring: graph kernels of the window keyed at the end ({keyed})")


def graph_key_errors(doc):
    """Keyed graph kernels against the simulator's nodes (as check_backend.py's graph checks: a
    node is its kernel name, whose prefix names its graph, and its duration, 500 ns apart between
    nodes): a key that ran two nodes, or a graph two prefixes, is wrong; a node under two keys
    aliased."""
    nodes, keys, prefixes = {}, {}, {}
    for e in doc["traceEvents"]:
        if e.get("cat") != "kernel" or "graph id" not in e.get("args", {}):
            continue
        key = (e["args"]["graph id"], e["args"]["graph node id"])
        node = (e["name"], round(e["dur"] * 1000 / 500))
        nodes.setdefault(key, set()).add(node)
        keys.setdefault(node, set()).add(key)
        prefixes.setdefault(key[0], set()).add(e["name"].split("_")[0])
    wrong = sum(1 for v in nodes.values() if len(v) > 1)
    wrong += sum(1 for v in prefixes.values() if len(v) > 1)
    return wrong, sum(1 for v in keys.values() if len(v) > 1)


def kernel_ids(doc):
    """Each kernel by name and absolute start (ns): the same record in two files."""
    base = doc.get("baseTimeNanoseconds", 0)
    return {(e["name"], round(base + e["ts"] * 1000)): e["args"].get("graph node id")
            for e in doc["traceEvents"] if e.get("cat") == "kernel"}


def pti_captures(tmp):
    out = os.path.join(tmp, "pticap.json")
    r = subprocess.run([args.nodescope, "run", "--backend", "xpu", "--ring", "2s",
                        "--capture-every", "1s", "-o", out, "--", args.pti_program,
                        "graph_loop_4500"], env=env_for(args.pti_lib_dir),
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"pti captures run: exit {r.returncode}: {r.stderr[-400:]}")
    captures = sorted(glob.glob(os.path.join(tmp, "pticap.capture-*.json")),
                      key=lambda f: header(f)["nodescope"]["window"]["capture"])
    check(len(captures) >= 3, f"pti: {len(captures)} captures written")
    if not os.path.exists(out):
        check(False, "pti captures: the trace at exit written")
        return
    final_keys = kernel_ids(header(out))
    compared = 0
    keyed_later = 0
    for f in captures + [out]:
        name = os.path.basename(f)
        c = nodescope("check", f)
        check(c.returncode == 0, f"nodescope check {name}: exit {c.returncode}")
        doc = header(f)
        graph = [e for e in doc["traceEvents"]
                 if e.get("cat") == "kernel" and e["name"].startswith("lp")]
        keyed = [e for e in graph if "graph id" in e["args"]]
        provisional = sum(1 for e in graph if e["args"].get("graph id", 0) >= 0xfffffffe)
        withheld = dict(doc["nodescope"]["attribution"].get("withheld", {}))
        wrong, aliased = graph_key_errors(doc)
        print(f"      {name}: {len(keyed)} of {len(graph)} graph kernels keyed "
              f"({100.0 * len(keyed) / max(1, len(graph)):.1f} %), "
              f"undecided_at_capture {withheld.get('undecided_at_capture', 0)}, "
              f"submission_unproven {withheld.get('submission_unproven', 0)}")
        check(wrong == 0 and aliased == 0 and provisional == 0,
              f"{name}: {wrong} wrong, {aliased} aliased, {provisional} provisional keys")
        if f != out and doc["nodescope"]["window"]["capture"] >= 2:
            keyed_later += len(keyed)
            check(len(keyed) > len(graph) // 4, f"{name}: graph keys in a capture ({len(keyed)})")
        if f != out:
            # A key given in a capture is final: the same at exit where the kernel is still held.
            ids = kernel_ids(doc)
            held = [(k, v) for k, v in ids.items() if v is not None and k in final_keys]
            differ = sum(1 for k, v in held if final_keys[k] != v)
            compared += len(held)
            check(differ == 0, f"{name}: {differ} of {len(held)} keys still held at exit differ "
                  "from the trace at exit")
    check(keyed_later > 0, f"pti captures carry graph keys ({keyed_later})")
    check(compared > 0, f"keys of the captures compared with the trace at exit ({compared})")


def streamed_keys(tmp, backend, program, lib_dir, size, prefix, per_replay):
    """Streams `program` with --stream `size`, then runs it again in full; returns what the parts
    together keyed and what the full trace keyed, and checks the parts (see stream_keys)."""
    results = {}
    for mode in ("stream", "full"):
        out = os.path.join(tmp, f"{backend}_{mode}.json")
        flags = ["--stream", str(size)] if mode == "stream" else []
        r = subprocess.run([args.nodescope, "run", "--backend", backend, *flags, "-o", out, "--",
                            *program], env=env_for(lib_dir), capture_output=True, text=True,
                           timeout=120)
        check(r.returncode == 0 and os.path.exists(out),
              f"{backend} {mode} run: exit {r.returncode}: {r.stderr[-300:]}")
        if not os.path.exists(out):
            return None
        base = out[:-len(".json")]
        parts = sorted(glob.glob(base + ".part-*.json"),
                       key=lambda f: header(f)["nodescope"]["window"]["part"])
        files = parts + [out]
        # "loop: N replays of 4 kernels" (rocm), "graph_loop: A + B replays" (xpu).
        m = re.search(r"loop: (\d+)(?: \+ (\d+))? replays", r.stdout)
        replays = int(m.group(1)) + int(m.group(2) or 0) if m else -1
        seen, twice, graph, keyed, undecided = set(), 0, 0, 0, 0
        merged = {"traceEvents": []}
        for f in files:
            doc = header(f)
            withheld = dict(doc["nodescope"]["attribution"].get("withheld", {}))
            undecided += withheld.get("undecided_at_capture", 0)
            base_ns = doc.get("baseTimeNanoseconds", 0)
            for e in doc["traceEvents"]:
                if e.get("cat") != "kernel" or not e["name"].startswith(prefix):
                    continue
                k = (e["name"], round(base_ns + e["ts"] * 1000))
                twice += k in seen
                seen.add(k)
                graph += 1
                if "graph id" in e["args"]:
                    keyed += 1
                    merged["traceEvents"].append(e)
        final = dict(header(out)["nodescope"]["attribution"].get("withheld", {}))
        withheld = sum(v for k, v in final.items() if k != "undecided_at_capture")
        wrong, aliased = graph_key_errors(merged)
        print(f"      {backend} {mode}: {len(parts)} parts + the trace, {keyed} of {graph} graph "
              f"kernels keyed ({100.0 * keyed / max(1, graph):.1f} %), withheld {withheld}, "
              f"undecided_at_capture {undecided}, {replays} replays; withheld by reason "
              f"{ {k: v for k, v in final.items() if v} }")
        check(wrong == 0 and aliased == 0, f"{backend} {mode}: {wrong} wrong, {aliased} aliased")
        check(twice == 0, f"{backend} {mode}: no kernel in two files ({twice})")
        check(graph == replays * per_replay,
              f"{backend} {mode}: no kernel lost ({graph} of {replays} x {per_replay})")
        check(keyed + withheld + undecided == graph,
              f"{backend} {mode}: keyed + withheld + undecided = every graph kernel "
              f"({keyed} + {withheld} + {undecided} of {graph})")
        if mode == "stream":
            check(len(parts) >= 2, f"{backend}: {len(parts)} parts written before the end")
            check(undecided == 0, f"{backend}: the parts key what a later batch decides "
                  f"({undecided} written undecided)")
        results[mode] = (keyed, graph)
    return results


def stream_keys(tmp):
    """--stream: a part holds back the records whose key a later batch (rocprofiler) or flush (PTI)
    decides and writes them in a later part, so the parts together key every graph kernel the
    trace does: 0 undecided_at_capture, keyed + withheld = every graph kernel, none in two files,
    none lost (against the replays the program made), 0 wrong keys; the full run for comparison."""
    streamed_keys(tmp, "rocm", [args.program, "loop_2500"], args.sim_lib_dir, 2000, "loop", 4)
    if args.pti_program:
        streamed_keys(tmp, "xpu", [args.pti_program, "graph_loop_4500"], args.pti_lib_dir, 5000,
                      "lp", 6)


with tempfile.TemporaryDirectory() as tmp:
    ring(tmp)
    notraced()
    stream(tmp)
    stream_keys(tmp)
    exits(tmp)
    if args.pti_program:
        pti_ring(tmp)
        pti_captures(tmp)
checker.finish()
