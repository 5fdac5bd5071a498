#!/usr/bin/env python3
"""Issue 29: nodescope's AMD backend under the hazards the simulator models (sim_hip.cc): plain
launches whose packets another thread's doorbell processes, ROCr's overflow path (its async
thread), HIP's worker thread, and AMD_DIRECT_DISPATCH=0; with user ranges (roctx "r<t>") open.

For each configuration (threads x GPU_MAX_HW_QUEUES x plain launches mixed in or not, ranges open,
SIM_SEED per seed) it runs `nodescope run --backend rocm -- sim_program threadsN` and checks:
  - 0 wrong keys: a key holds one kernel, a kernel has one key, and a key's ordinal is its node;
  - 0 wrong range links: every kernel with a correlation id is linked to an API call made on its
    own launching thread (the thread that opened range r<t>), so no range gets another thread's
    work: that is what a device span of a range is built from (annotations.h);
  - 0 wrong range spans: each device span of r<t> lies within the extent of thread t's own kernels
    on its (device, queue);
and prints the keyed share per configuration. With --negative it runs the plain recipe
(plain_recipe_tool) on each hazard alone and requires it to alias (or, for
AMD_DIRECT_DISPATCH=0, to key nothing, silently) where the hazard bites.
Prints "hazard checks: all passed" when every check passed.
"""
import argparse
import collections
import itertools
import json
import os
import re
import subprocess
import tempfile
import time

from sim_checks import Checker

p = argparse.ArgumentParser()
p.add_argument("--nodescope", required=True)
p.add_argument("--program", required=True)
p.add_argument("--sim-lib-dir", required=True)
p.add_argument("--tool", help="plain_recipe_tool, for --negative")
p.add_argument("--threads", default="1,2,4,8,16")
p.add_argument("--queues", default="4,8,16")
p.add_argument("--plain", default="0,1")
p.add_argument("--seeds", type=int, default=5)
p.add_argument("--async-percent", default="0.3")
p.add_argument("--worker-percent", default="3")
p.add_argument("--negative", action="store_true")
p.add_argument("--table", help="write the keyed-share table (markdown) here")
args = p.parse_args()
tmp = tempfile.mkdtemp(prefix="nodescope_hazards_")
checker = Checker("hazard")
check = checker.check


def env_for(q, seed, plain, extra=None):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    for k in ("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION", "AMD_DIRECT_DISPATCH", "ROCP_TOOL_LIBRARIES"):
        env.pop(k, None)
    env.update({"GPU_MAX_HW_QUEUES": str(q), "SIM_SEED": str(seed), "SIM_MIX_PLAIN": str(plain),
                "SIM_RANGES": "1", "SIM_ASYNC_PERCENT": args.async_percent,
                "SIM_WORKER_PERCENT": args.worker_percent if plain else "0"})
    env.update(extra or {})
    return env


def judge(path):
    with open(path) as f:
        t = json.load(f)
    ev = t["traceEvents"]
    kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
    api_tid = {e["args"]["correlation"]: e["tid"] for e in ev
               if e.get("ph") == "X" and e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset")
               and "correlation" in e.get("args", {})}
    range_tid = {e["name"]: e["tid"] for e in ev if e.get("cat") == "user_annotation"}
    names = collections.defaultdict(set)
    keys_of = collections.defaultdict(set)
    graph_kernels = keyed = 0
    wrong_links = 0
    hull = {}  # (thread index, pid, tid) -> [start, end] of its kernels
    for e in kernels:
        m = re.match(r"t(\d+)_(n|p)(\d+)$", e["name"])
        if not m:
            continue
        thread, kind, node = int(m.group(1)), m.group(2), int(m.group(3))
        graph_kernels += kind == "n"
        h = hull.setdefault((thread, e["pid"], e["tid"]), [e["ts"], e["ts"] + e["dur"]])
        h[0] = min(h[0], e["ts"])
        h[1] = max(h[1], e["ts"] + e["dur"])
        a = e.get("args", {})
        if "graph id" in a:
            keyed += 1
            key = (a["graph id"], a["graph node id"])
            names[key].add(e["name"])
            keys_of[e["name"]].add(key)
            if kind != "n" or (a["graph node id"] & 0xFFFFFFFF) != node:
                wrong_links += 0  # counted as a wrong key below
                names[key].add("<ordinal %d>" % (a["graph node id"] & 0xFFFFFFFF))
        c = a.get("correlation", 0)
        if c and c in api_tid and range_tid.get(f"r{thread}") is not None:
            if api_tid[c] != range_tid[f"r{thread}"]:
                wrong_links += 1
    wrong_keys = sum(1 for k, v in names.items()
                     if len(v) > 1 or any(len(keys_of[n]) > 1 for n in v))
    wrong_spans = 0
    for e in ev:
        if e.get("cat") != "gpu_user_annotation":
            continue
        m = re.match(r"r(\d+)$", e["name"])
        if not m:
            continue
        h = hull.get((int(m.group(1)), e["pid"], e["tid"]))
        pad = 0.01  # the writer widens spans by a few ns (DeviceSpanPads)
        if h is None or e["ts"] < h[0] - pad or e["ts"] + e["dur"] > h[1] + pad:
            wrong_spans += 1
    ns = t.get("nodescope", {})
    counters = ns.get("counters", ns)
    return dict(graph_kernels=graph_kernels, keyed=keyed, wrong_keys=wrong_keys,
                wrong_links=wrong_links, wrong_spans=wrong_spans, counters=counters,
                withheld=ns.get("attribution", {}).get("withheld", {}), warnings=ns)


def traced(n, q, seed, plain, extra=None):
    out = os.path.join(tmp, f"t{n}_q{q}_p{plain}_s{seed}.json")
    r = subprocess.run([args.nodescope, "run", "--backend", "rocm", "-o", out, "--",
                        args.program, f"threads{n}"], env=env_for(q, seed, plain, extra),
                       capture_output=True, text=True, timeout=180)
    check(r.returncode == 0 and os.path.exists(out),
          f"threads{n} q{q} plain{plain} seed{seed}: run exited {r.returncode}: {r.stderr[-400:]}")
    if not os.path.exists(out):
        return None, r
    return judge(out), r


def grid():
    rows = []
    started = time.time()
    for n, q, plain in itertools.product(map(int, args.threads.split(",")),
                                         map(int, args.queues.split(",")),
                                         map(int, args.plain.split(","))):
        shares, worst = [], dict(wrong_keys=0, wrong_links=0, wrong_spans=0)
        for seed in range(1, args.seeds + 1):
            s, r = traced(n, q, seed, plain)
            if s is None:
                continue
            what = f"threads{n} q{q} plain{plain} seed{seed}"
            check(s["graph_kernels"] == 600 * n,
                  f"{what}: {s['graph_kernels']} graph kernels == {600 * n}")
            for k in worst:
                worst[k] = max(worst[k], s[k])
                check(s[k] == 0, f"{what}: {k}={s[k]}")
            shares.append(s["keyed"] / max(1, s["graph_kernels"]))
        if shares:
            rows.append((n, q, plain, min(shares), sum(shares) / len(shares), max(shares), worst))
            print(f"threads={n:<2} queues={q:<2} plain={plain} keyed min/mean/max="
                  f"{min(shares):.3f}/{sum(shares) / len(shares):.3f}/{max(shares):.3f} "
                  f"wrong keys/links/spans={worst['wrong_keys']}/{worst['wrong_links']}/"
                  f"{worst['wrong_spans']}", flush=True)
    elapsed = time.time() - started
    print(f"grid: {len(rows)} configurations x {args.seeds} seeds in {elapsed:.0f} s")
    if args.table:
        with open(args.table, "w") as f:
            f.write("| threads | GPU_MAX_HW_QUEUES | plain launches | keyed share min / mean / max |"
                    " wrong keys / links / spans |\n|---|---|---|---|---|\n")
            for n, q, plain, lo, mean, hi, w in rows:
                f.write(f"| {n} | {q} | {'mixed in' if plain else 'none'} | "
                        f"{lo:.3f} / {mean:.3f} / {hi:.3f} | "
                        f"{w['wrong_keys']} / {w['wrong_links']} / {w['wrong_spans']} |\n")


PLAIN = re.compile(r"plain-recipe: keys=(\d+) aliased=(\d+) dispatches=(\d+) untagged=(\d+)")


def plain_recipe(n, q, plain, extra, seed=1):
    env = env_for(q, seed, plain, extra)
    env["ROCP_TOOL_LIBRARIES"] = args.tool
    r = subprocess.run([args.program, f"threads{n}"], env=env, capture_output=True, text=True,
                       timeout=180)
    m = PLAIN.search(r.stderr)
    check(r.returncode == 0 and m, f"plain recipe threads{n}: {r.stderr[-300:]}")
    return tuple(map(int, m.groups())) if m else (0, 0, 0, 0)


def negative():
    """Each hazard alone (the others off), where the plain recipe must fail, then nodescope on the
    same configuration must not."""
    base = {"SIM_ASYNC_PERCENT": "0", "SIM_WORKER_PERCENT": "0", "SIM_HAZARD_PERCENT": "0"}
    cases = [
        # name, threads, queues, plain, env, what the plain recipe must show
        ("plain_launch_doorbell", 4, 4, 1, {"SIM_HAZARD_PERCENT": "1.5"}, "aliased"),
        ("rocr_async_overflow", 2, 8, 0, {"SIM_ASYNC_PERCENT": "2"}, "aliased"),
        # (the worker processes graph packets left pending: the doorbell hazard's batching on)
        ("hip_worker_thread", 4, 4, 1, {"SIM_WORKER_PERCENT": "50", "SIM_HAZARD_PERCENT": "1.5"},
         "aliased"),
        ("direct_dispatch_off", 2, 8, 1, {"AMD_DIRECT_DISPATCH": "0"}, "no keys"),
    ]
    for name, n, q, plain, extra, want in cases:
        env = dict(base, **extra)
        aliased_runs = []
        for seed in (1, 2, 3):
            keys, aliased, dispatches, untagged = plain_recipe(n, q, plain, env, seed)
            aliased_runs.append((keys, aliased, untagged))
        if want == "aliased":
            check(all(a > 0 for _, a, _ in aliased_runs),
                  f"negative {name}: the plain recipe aliases in every run ({aliased_runs})")
        else:
            check(all(k == 0 for k, _, _ in aliased_runs),
                  f"negative {name}: the plain recipe keys nothing ({aliased_runs})")
        s, r = traced(n, q, 1, plain, env)
        if s is None:
            continue
        check(s["wrong_keys"] == 0 and s["wrong_links"] == 0 and s["wrong_spans"] == 0,
              f"{name}: nodescope wrong keys/links/spans {s['wrong_keys']}/{s['wrong_links']}/"
              f"{s['wrong_spans']}")
        if name == "direct_dispatch_off":
            check("AMD_DIRECT_DISPATCH=0" in r.stderr, f"{name}: warned on stderr")
            check(s["counters"].get("amd_direct_dispatch_off") == 1, f"{name}: header counter")
        if name in ("rocr_async_overflow", "hip_worker_thread", "direct_dispatch_off"):
            check(s["counters"].get("dispatches_from_threads_without_launch", 0) > 0 and
                  "no launch open" in r.stderr,
                  f"{name}: submission from a thread without launch counted and warned")
        print(f"negative {name:22} plain recipe keys/aliased/untagged={aliased_runs} "
              f"nodescope keyed={s['keyed']}/{s['graph_kernels']} "
              f"withheld={ {k: v for k, v in s['withheld'].items() if v} }", flush=True)


if args.negative:
    negative()
else:
    grid()
checker.finish()
