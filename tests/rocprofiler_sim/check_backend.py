"""The AMD backend end to end against the simulated rocprofiler-sdk, no GPU: for each scenario of
issue 12's "Done when" table, `nodescope run --backend rocm -o t.json -- sim_program CASE` (the SDK
found by name on the loader path, the tool through ROCP_TOOL_LIBRARIES), then `nodescope check
t.json`, then the ground truth: each node of each exec runs a kernel of its own name, and
sim_program prints "expect nodes=N replays=R" per exec (version), so keys and their occurrences
are known. Prints one line per case; --hazard-table prints the multi-thread numbers only."""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

p = argparse.ArgumentParser()
p.add_argument("--nodescope", required=True)
p.add_argument("--program", required=True)
p.add_argument("--sim-lib-dir", required=True)
p.add_argument("--ranges-program", help="sim_ranges_program, for the ranges case")
p.add_argument("--cases", default="all")
p.add_argument("--midrun-runs", type=int, default=10)
p.add_argument("--hazard-runs", type=int, default=1)
p.add_argument("--queues", default="4", help="GPU_MAX_HW_QUEUES for the threadsN cases")
args = p.parse_args()
tmp = tempfile.mkdtemp(prefix="nodescope_rocm_")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(case, out, env_extra=None, backend=("--backend", "rocm"), sdk_on_path=True,
        program=None):
    env = dict(os.environ)
    if sdk_on_path:
        env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    env.pop("NODESCOPE_DISABLE_GRAPH_ATTRIBUTION", None)
    env.update(env_extra or {})
    command = ([program] + ([case] if case else [])) if program else [args.program, case]
    return subprocess.run([args.nodescope, "run", *backend, "-o", out, "--", *command],
                          env=env, capture_output=True, text=True, timeout=120)


def nodescope_check(out):
    r = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def summarize(path):
    with open(path) as f:
        t = json.load(f)
    kernels = [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]
    keyed = [e for e in kernels if "graph id" in e.get("args", {})]
    names = collections.defaultdict(set)  # key -> kernel names
    keys_of = collections.defaultdict(set)  # kernel name -> keys
    occ = collections.Counter()
    for e in keyed:
        key = (e["args"]["graph id"], e["args"]["graph node id"])
        names[key].add(e["name"])
        keys_of[e["name"]].add(key)
        occ[key] += 1
    wrong = sum(1 for k, v in names.items()
                if len(v) > 1 or any(len(keys_of[n]) > 1 for n in v))
    # sim_program names node i's kernel <prefix><i> and its packets go out in that order, so a
    # key's ordinal is the kernel's index (ordinals from 2^24 up are new node ids after a change).
    for (graph, node), v in names.items():
        ordinal = node & 0xFFFFFFFF
        m = re.search(r"(\d+)$", next(iter(v)))
        if ordinal < 1 << 24 and m and int(m.group(1)) != ordinal:
            wrong += 1
    attribution = t.get("nodescope", {}).get("attribution", {})
    return dict(kernels=len(kernels), keyed=len(keyed), graphs=len({k[0] for k in names}),
                keys=len(names), wrong=wrong, occ=occ, attribution=attribution,
                withheld=attribution.get("withheld", {}),
                counters=t.get("nodescope", {}))


def summarize_work(path):
    """As summarize, over kernels and copies together (graphs with copy and memset nodes): a
    node's work is known by its identity, a kernel's name and grid, a copy's name and size
    (sim_program gives each copy and memset a size of its own, and a memset runs CLR's fill blit
    kernel with a grid by size). A key is wrong if it holds two identities or an identity has two
    keys."""
    with open(path) as f:
        t = json.load(f)
    work = [e for e in t["traceEvents"]
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    ident_of = collections.defaultdict(set)
    keys_of = collections.defaultdict(set)
    occ = collections.Counter()
    keyed = 0
    for e in work:
        a = e.get("args", {})
        ident = (e["name"], tuple(a.get("grid", ())), a.get("bytes"))
        if "graph id" not in a:
            continue
        keyed += 1
        key = (a["graph id"], a["graph node id"])
        ident_of[key].add(ident)
        keys_of[ident].add(key)
        occ[key] += 1
    wrong = sum(1 for k, v in ident_of.items() if len(v) > 1 or any(len(keys_of[i]) > 1 for i in v))
    attribution = t.get("nodescope", {}).get("attribution", {})
    return dict(work=len(work), copies=sum(1 for e in work if e["cat"] == "gpu_memcpy"),
                keyed=keyed, graphs=len({k[0] for k in ident_of}), keys=len(ident_of),
                wrong=wrong, occ=occ, attribution=attribution,
                withheld=attribution.get("withheld", {}), counters=t.get("nodescope", {}))


def expected(stdout):
    want = collections.Counter()
    cross = None
    for line in stdout.splitlines():
        if line.startswith("expect nodes="):
            f = dict(kv.split("=") for kv in line.split()[1:])
            if f["replays"] != "unknown":
                want[int(f["replays"])] += int(f["nodes"])
        if line.startswith("sim cross_thread_dispatches="):
            cross = int(line.split("=")[1])
    return want, cross


def traced(case, env_extra=None, summary=summarize):
    """`case` traced and checked: its summary (None where no trace was written) and the run."""
    out = os.path.join(tmp, case + ".json")
    r = run(case, out, env_extra)
    check(r.returncode == 0, f"{case}: nodescope run exited {r.returncode}: {r.stderr[-600:]}")
    ok, text = nodescope_check(out) if os.path.exists(out) else (False, "no trace written")
    check(ok, f"{case}: nodescope check: {text[-600:]}")
    if not os.path.exists(out):
        return None, r
    return summary(out), r


def check_keys(case, s, want):
    """No wrong key in summary `s`, and as many keys seen each number of times as the program
    said (`want`, from expected())."""
    check(s["wrong"] == 0, f"{case}: no wrong key ({s['wrong']})")
    check(collections.Counter(s["occ"].values()) == want,
          f"{case}: occurrences per key {dict(collections.Counter(s['occ'].values()))} == {dict(want)}")


def single(case, graphs, keys, env_extra=None):
    s, r = traced(case, env_extra)
    if s is None:
        return
    want, _ = expected(r.stdout)
    events = sum(n * k for n, k in want.items())
    print(f"{case:10} kernels={s['kernels']} attributed={s['keyed']} graph_ids={s['graphs']} "
          f"keys={s['keys']} wrong={s['wrong']} per-key={dict(collections.Counter(s['occ'].values()))}"
          f" withheld={sum(s['withheld'].values())}")
    check(s["keyed"] == events, f"{case}: {s['keyed']} attributed == {events}")
    check(s["graphs"] == graphs, f"{case}: {s['graphs']} graph ids == {graphs}")
    check(s["keys"] == keys, f"{case}: {s['keys']} keys == {keys}")
    check_keys(case, s, want)
    check(s["attribution"].get("mode") == "reconstructed", f"{case}: mode reconstructed")


def graph_copies(case, graphs, keys, copies):
    s, r = traced(case, summary=summarize_work)
    if s is None:
        return
    want, _ = expected(r.stdout)
    events = sum(n * k for n, k in want.items())
    print(f"{case:11} work={s['work']} copies={s['copies']} attributed={s['keyed']} "
          f"graph_ids={s['graphs']} keys={s['keys']} wrong={s['wrong']} "
          f"per-key={dict(collections.Counter(s['occ'].values()))} "
          f"withheld={sum(s['withheld'].values())}")
    check(s["work"] == events and s["keyed"] == events,
          f"{case}: all {events} kernels, copies and memsets attributed ({s['keyed']}/{s['work']})")
    check(s["copies"] == copies, f"{case}: {s['copies']} copy records == {copies}")
    check(s["graphs"] == graphs and s["keys"] == keys,
          f"{case}: {s['graphs']} graph ids == {graphs}, {s['keys']} keys == {keys}")
    check_keys(case, s, want)


def ranges_traced(case):
    """sim_ranges_program `case` ("ranges": its default case) traced and checked: the trace's path
    and its JSON, None for the JSON where the trace is missing or fails `nodescope check`."""
    out = os.path.join(tmp, case + ".json")
    r = run("" if case == "ranges" else case, out, program=args.ranges_program)
    ok, text = nodescope_check(out) if os.path.exists(out) else (False, "no trace")
    check(r.returncode == 0 and ok, f"{case}: traced and checked ({r.stderr[-300:]} {text[-300:]})")
    if not ok:
        return out, None
    with open(out) as f:
        return out, json.load(f)


def scoped_kernels(ev):
    """The kernels of a trace's events, their count by (name, scope), how many are keyed, and the
    device spans by name."""
    kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
    got = collections.Counter((e["name"], e.get("args", {}).get("scope", "")) for e in kernels)
    keyed = sum(1 for e in kernels if "graph id" in e.get("args", {}))
    spans = collections.Counter(e["name"] for e in ev if e.get("cat") == "gpu_user_annotation")
    return kernels, got, keyed, spans


def copy_hazard(n, runs):
    """copythreadsN under the hazard: 0 wrong keys over kernels, copies and memsets."""
    for i in range(runs):
        case = f"copythreads{n}"
        out = os.path.join(tmp, case + ".json")
        r = run(case, out, {"GPU_MAX_HW_QUEUES": args.queues})
        ok, text = nodescope_check(out) if os.path.exists(out) else (False, "no trace written")
        check(r.returncode == 0 and ok, f"{case}: traced and checked: {r.stderr[-300:]} {text[-300:]}")
        if not ok:
            return
        s = summarize_work(out)
        _, cross = expected(r.stdout)
        total = 600 * n
        c = s["counters"].get("counters", s["counters"])
        print(f"{case:14} attributed={s['keyed']}/{total} ({100.0 * s['keyed'] / total:.1f}%) "
              f"copies={s['copies']} wrong={s['wrong']} cross_thread_dispatches={cross} "
              f"overlapped_launches withheld={c.get('overlapped_launches_withheld', 0)} "
              f"proven={c.get('overlapped_launches_proven', 0)} "
              f"reasons={ {k: v for k, v in s['withheld'].items() if v} }")
        check(s["wrong"] == 0, f"{case}: 0 wrong keys (got {s['wrong']})")
        check(s["work"] == total and s["copies"] == 200 * n,
              f"{case}: {s['work']} records == {total}, {s['copies']} copies == {200 * n}")
        if n <= 3 and args.queues == "4":
            check(s["keyed"] == total, f"{case}: 100% attributed ({s['keyed']}/{total})")


def hazard(n, runs):
    rows = []
    for i in range(runs):
        case = f"threads{n}"
        s, r = traced(case, {"GPU_MAX_HW_QUEUES": args.queues})
        if s is None:
            return
        _, cross = expected(r.stdout)
        total = 600 * n
        c = s["counters"].get("counters", s["counters"])
        wl = c.get("overlapped_launches_withheld", 0)
        rows.append((s["keyed"], total, s["wrong"], cross, wl, c.get("overlapped_launches_proven", 0),
                     s["withheld"]))
        check(s["wrong"] == 0, f"{case}: 0 wrong keys (got {s['wrong']})")
        check(s["kernels"] == total, f"{case}: {s['kernels']} kernels == {total}")
        if n <= 3 and args.queues == "4":
            check(s["keyed"] == total, f"{case}: 100% attributed ({s['keyed']}/{total})")
        if n >= int(args.queues):
            check("graphs were launched from" in r.stderr, f"{case}: hardware-queue warning")
    for keyed, total, wrong, cross, wl, pl, withheld in rows:
        reasons = {k: v for k, v in withheld.items() if v}
        print(f"threads{n:<3} attributed={keyed}/{total} ({100.0 * keyed / total:.1f}%) wrong={wrong} "
              f"cross_thread_dispatches={cross} overlapped_launches withheld={wl} proven={pl} "
              f"withheld_clean>={max(0, wl - 2 * (cross or 0))} "
              f"any_overlap_rule={total - 6 * (wl + pl)}/{total} reasons={reasons}")


cases = args.cases.split(",") if args.cases != "all" else [
    "chain32", "chain6", "fan4", "fan2", "update", "devices2", "optout", "autopick", "threads",
    "graphcopies", "copythreads", "midrun"]
for case in cases:
    if case == "chain32":
        single("chain32", 1, 32)
    elif case in ("chain6", "fan4"):
        single(case, 1, 6)
    elif case == "fan2":
        single("fan2", 1, 4)
    elif case == "update":
        single("update", 2, 12)
    elif case == "devices2":
        single("devices2", 2, 12, {"SIM_DEVICE_COUNT": "2"})
    elif case == "optout":
        s, r = traced("chain6", {"NODESCOPE_DISABLE_GRAPH_ATTRIBUTION": "1"})
        if s is not None:
            print(f"optout     kernels={s['kernels']} attributed={s['keyed']} "
                  f"mode={s['attribution'].get('mode')}")
            check(s["kernels"] == 1200 and s["keyed"] == 0, "optout: 1200 kernels, no keys")
            check(s["attribution"].get("mode") == "disabled", "optout: mode disabled")
    elif case == "ranges":
        out, t = ranges_traced("ranges")
        if t is not None:
            ev = t["traceEvents"]
            cpu = {e["name"]: e for e in ev if e.get("cat") == "user_annotation"}
            spans = collections.Counter(e["name"] for e in ev if e.get("cat") == "gpu_user_annotation")
            s = summarize(out)
            print(f"ranges     cpu ranges={sorted(cpu)} device spans={dict(spans)} "
                  f"attributed={s['keyed']}/{s['kernels']}")
            check(set(cpu) >= {"direct", "replays"}, "ranges: both CPU ranges recorded")
            check(spans["direct"] >= 1 and spans["replays"] >= 1,
                  f"ranges: both ranges on the device timeline ({dict(spans)})")
            check(s["keyed"] == 30 and s["kernels"] == 35, "ranges: 30 graph kernels keyed of 35")
    elif case == "roctx":
        # ROCTx ranges (ranges_program.cc "roctx") through the marker API's callbacks: push/pop
        # ranges on both timelines, nested as pushed; the start/stop range on the CPU timeline.
        out, t = ranges_traced("roctx")
        if t is not None:
            ev = t["traceEvents"]
            cpu = {e["name"]: e for e in ev if e.get("cat") == "user_annotation"}
            dev = collections.defaultdict(list)
            for e in ev:
                if e.get("cat") == "gpu_user_annotation":
                    dev[e["name"]].append(e)
            s = summarize(out)
            print(f"roctx      cpu ranges={sorted(cpu)} device spans="
                  f"{ {k: len(v) for k, v in sorted(dev.items())} } attributed={s['keyed']}/{s['kernels']}")

            def inside(a, b):  # a within b (us, with the writer's rounding)
                return b["ts"] - 0.002 <= a["ts"] and a["ts"] + a["dur"] <= b["ts"] + b["dur"] + 0.002

            names = {"roctx_outer", "roctx_direct", "roctx_replays", "roctx_started"}
            check(set(cpu) == names, f"roctx: the four ranges on the CPU timeline ({sorted(cpu)})")
            check(all(cpu[n]["args"].get("domain") == "roctx" for n in names & set(cpu)),
                  "roctx: CPU ranges in domain roctx")
            if names <= set(cpu):
                check(inside(cpu["roctx_direct"], cpu["roctx_outer"]) and
                      inside(cpu["roctx_replays"], cpu["roctx_outer"]) and
                      not inside(cpu["roctx_started"], cpu["roctx_outer"]),
                      "roctx: CPU nesting as pushed")
            check(sorted(dev) == ["roctx_direct", "roctx_outer", "roctx_replays"] and
                  all(len(v) == 1 for v in dev.values()),
                  f"roctx: one device span per pushed range, none for start/stop ({dict(dev)})")
            if sorted(dev) == ["roctx_direct", "roctx_outer", "roctx_replays"]:
                o, d, p_ = dev["roctx_outer"][0], dev["roctx_direct"][0], dev["roctx_replays"][0]
                check(inside(d, o) and inside(p_, o) and d["ts"] + d["dur"] <= p_["ts"],
                      "roctx: device spans nested as pushed, direct before replays")
                kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
                graph = [e for e in kernels if "graph id" in e.get("args", {})]
                check(all(inside(e, p_) for e in graph),
                      "roctx: every replayed kernel inside the roctx_replays device span")
            check(s["keyed"] == 30 and s["kernels"] == 37, "roctx: 30 graph kernels keyed of 37")
    elif case == "scopes":
        # Capture-time ranges (ranges_program.cc's Scopes()): the range open when each kernel was
        # captured is its scope on every replay of both execs, and a device span per replay;
        # nothing for nodes of an uncaptured graph (after an update) or captured outside ranges,
        # nor for a captured graph edited after capture; a graph built node by node as a chain
        # keeps its nodes' ranges, one built as a fan (run order unknown) gets none.
        _, t = ranges_traced("scopes")
        if t is not None:
            kernels, got, keyed, spans = scoped_kernels(t["traceEvents"])
            want = collections.Counter({("s_a", "outer"): 10, ("s_b", "outer/inner"): 10,
                                        ("s_c", "outer/inner"): 10, ("s_d", "outer"): 10,
                                        ("u_a", ""): 5, ("u_b", ""): 5, ("u_c", ""): 5,
                                        ("u_d", ""): 5, ("c_a", ""): 3, ("c_b", ""): 3,
                                        ("e_a", ""): 3, ("e_b", ""): 3, ("e_c", ""): 3,
                                        ("k_a", "built"): 4, ("k_b", "built/step"): 4,
                                        ("k_c", ""): 4, ("f_a", ""): 2, ("f_b", ""): 2,
                                        ("f_c", ""): 2})
            print(f"scopes     kernels={len(kernels)} keyed={keyed} (name, scope)={dict(got)} "
                  f"device spans={dict(spans)}")
            check(got == want, f"scopes: each kernel's scope on every replay ({dict(got)})")
            check(keyed == len(kernels) == 93, f"scopes: all 93 graph kernels keyed ({keyed})")
            check(spans == collections.Counter({"outer": 10, "inner": 10, "built": 4, "step": 4}),
                  f"scopes: one device span per replay and range ({dict(spans)})")
    elif case == "forked":
        # Captures forked to a second stream (ranges_program.cc's Forked()): each kernel's range
        # on every replay although the exec runs the nodes out of capture order; a kernel
        # captured under two ranges gets none and is counted.
        _, t = ranges_traced("forked")
        if t is not None:
            kernels, got, keyed, spans = scoped_kernels(t["traceEvents"])
            unscoped = t.get("nodescope", {}).get("forked_capture_launches_unscoped", 0)
            want = collections.Counter({("fk_a", "outer"): 5, ("fk_b", "outer/branch"): 5,
                                        ("fk_c", "outer/branch"): 5, ("fk_d", "outer"): 5,
                                        ("fk_e", "outer"): 5, ("am_a", ""): 6})
            print(f"forked     kernels={len(kernels)} keyed={keyed} (name, scope)={dict(got)} "
                  f"device spans={dict(spans)} unscoped launches={unscoped}")
            check(got == want, f"forked: each kernel's scope on every replay ({dict(got)})")
            check(keyed == len(kernels) == 31, f"forked: all 31 graph kernels keyed ({keyed})")
            check(spans["outer"] == 5 and spans["branch"] == 5 and not spans["x"] and not spans["y"],
                  f"forked: one device span per replay and range ({dict(spans)})")
            check(unscoped == 2, f"forked: 2 launches counted unscoped ({unscoped})")
            # The simulator runs the forked graph breadth first, as CLR does, not in capture
            # order (a, b, c, d, e): a capture-order assumption would put c's scope on d.
            ordinal = {e["name"]: e["args"]["graph node id"] & 0xFFFFFFFF for e in kernels
                       if e["name"].startswith("fk_") and "graph node id" in e.get("args", {})}
            check(ordinal == {"fk_a": 0, "fk_b": 1, "fk_d": 2, "fk_c": 3, "fk_e": 4},
                  f"forked: run order a, b, d, c, e ({ordinal})")
    elif case == "autopick":
        # No SDK on the loader path: --backend rocm says so and runs nothing.
        out = os.path.join(tmp, "nosdk.json")
        r = run("chain6", out, sdk_on_path=False)
        check(r.returncode == 125 and "no rocprofiler-sdk found" in r.stderr
              and not os.path.exists(out), f"no SDK: refused with a reason ({r.stderr[-300:]})")
        # Without --backend, where ROCm is the only runtime present, rocm is picked.
        try:
            import ctypes
            ctypes.CDLL("libcuda.so.1")
            print("autopick   skipped: a CUDA driver is present too")
        except OSError:
            out = os.path.join(tmp, "autopick.json")
            r = run("chain6", out, backend=())
            ok = r.returncode == 0 and os.path.exists(out) and summarize(out)["keyed"] == 1200
            check(ok, f"autopick: rocm picked with no --backend ({r.stderr[-300:]})")
            print(f"autopick   rocm picked without --backend: {ok}")
    elif case == "graphcopies":
        # kernel -> H2D copy -> kernel -> memset -> kernel -> D2D copy, 100 replays, an update
        # resizing the H2D copy, 100 more: 7 keys of 1 graph id (the resized copy a new node).
        graph_copies("graphcopies", 1, 7, 200)
    elif case == "copythreads":
        for n in (1, 2, 3, 4, 8, 16):
            copy_hazard(n, args.hazard_runs)
    elif case == "threads":
        for n in (1, 2, 3, 4, 8, 16):
            hazard(n, args.hazard_runs)
    elif case == "midrun":
        good = 0
        runs = 0
        for which in ("exit_midrun", "sigint_midrun"):
            for i in range(args.midrun_runs):
                runs += 1
                out = os.path.join(tmp, f"{which}{i}.json")
                r = run(which, out)
                ok = os.path.exists(out) and nodescope_check(out)[0]
                if ok:
                    s = summarize(out)
                    ok = s["kernels"] > 0 and s["wrong"] == 0
                good += ok
                check(ok, f"{which} run {i}: a complete, valid trace (rc {r.returncode}): "
                          f"{r.stderr[-300:]}")
        print(f"midrun     {good}/{runs} complete, valid traces")
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("rocprofiler backend: all checks passed")
