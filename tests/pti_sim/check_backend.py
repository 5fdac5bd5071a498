"""The Intel backend end to end against the simulated PTI, no GPU: `nodescope run --backend xpu -o
t.json -- PROGRAM ARGS` (PTI found by name on the loader path, the tool preloaded by the launcher),
then `nodescope check t.json`, then the program's ground truth (its `truth` lines). Cases:
  ranges, ranges_v1  pti_sim_ranges_program (PTI 1.0.0 / 0.17.0 layouts): every operation on its
                     device, one trace stream per SYCL queue, one device span per (device, stream,
                     range) bounded by the first start / last end of the range's work (plus the
                     writer's widening), nested spans inside their parent, none for work outside
  scenarios          pti_sim_program copies / kinds / all (v2 and v1): kernels, copies, fills
                     counted against the program's totals; kernels never before their API call
  refused            pti_sim_program all with NODESCOPE_MAX_BUFFERS=2: refusals counted, valid trace
  graphs             pti_sim_program graph / graph_visit / graph with urEnqueueGraphExp / v1 layout:
                     600 keyed, 6 keys x 100, 0 aliased, 0 wrong; graph_threads (two threads, two
                     graphs at once; also with 20 us submission calls, which overlap): 0 wrong keys,
                     keyed + withheld (header) = every graph kernel;
                     graph_handoff (recorded on one thread, submitted from another): 0 keyed, all
                     withheld; NODESCOPE_DISABLE_GRAPH_ATTRIBUTION=1: 0 keyed, mode disabled
  exit               pti_sim_ranges_program exit, --exit-runs times: a complete, valid trace each
  midrun             pti_sim_program exit_midrun and sigint_midrun (graphs replayed from two
                     threads without end), --exit-runs times each: a complete, valid trace, 0 wrong
  noprobe            no PTI on the loader path: refused, saying so
  second_tool        pti_sim_program second_tool (another PTI user sets its callbacks mid-run, as
                     PyTorch's profiler would): a valid trace of the work before, none after, the
                     buffers taken counted (pti_buffers_not_returned) and warned about
Prints one line per case and "pti backend: all checks passed" at the end."""
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
p.add_argument("--ranges-program", required=True)
p.add_argument("--sim-lib-dir", required=True)
p.add_argument("--cases",
               default="ranges,ranges_v1,scenarios,refused,graphs,exit,midrun,noprobe,second_tool")
p.add_argument("--exit-runs", type=int, default=20)
args = p.parse_args()
tmp = tempfile.mkdtemp(prefix="nodescope_pti_")
failures = []
NS = 1e-3  # one nanosecond in the trace's microseconds


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(command, out, env_extra=None, on_path=True):
    env = dict(os.environ)
    if on_path:
        env["LD_LIBRARY_PATH"] = args.sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    env.update(env_extra or {})
    # `--backend xpu` preloads libnodescope_xpu.so; in a sanitizer build that library comes before
    # the ASan runtime in the program's library list, which ASan refuses unless told it is fine
    # (the simulator's contract tests do the same, tests/pti_sim/CMakeLists.txt).
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "verify_asan_link_order=0"
    return subprocess.run([args.nodescope, "run", "--backend", "xpu", "-o", out, "--", *command],
                          env=env, capture_output=True, text=True, timeout=120)


def nodescope_check(out):
    r = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def load(out):
    with open(out) as f:
        return json.load(f)


def events(t, *cats):
    return [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") in cats]


def no_kernel_before_launch(t):
    launch = {e["args"]["correlation"]: e["ts"] for e in events(t, "cuda_runtime")}
    late = [e for e in events(t, "kernel", "gpu_memcpy", "gpu_memset")
            if e["args"]["correlation"] in launch and e["ts"] < launch[e["args"]["correlation"]]]
    missing = [e for e in events(t, "kernel", "gpu_memcpy", "gpu_memset")
               if e["args"]["correlation"] not in launch]
    return len(late), len(missing)


def case_ranges(version):
    out = os.path.join(tmp, "ranges_%s.json" % version)
    r = run([args.ranges_program], out, {"SIM_PTI_VERSION": version})
    if not check(r.returncode == 0, "ranges %s: run failed: %s" % (version, r.stderr[-500:])):
        return
    ok, text = nodescope_check(out)
    check(ok, "ranges %s: nodescope check failed:\n%s" % (version, text))
    t = load(out)
    truth = [dict(kv.split("=", 1) for kv in line.split()[1:])
             for line in r.stdout.splitlines() if line.startswith("truth op=")]
    gpu = events(t, "kernel", "gpu_memcpy", "gpu_memset")
    by_name = {e["name"]: e for e in events(t, "kernel")}
    lanes = {}  # SYCL queue -> trace (device, stream)
    work = collections.defaultdict(list)  # (range, device, stream) -> [(start, end)]
    outside = collections.defaultdict(list)  # (device, stream) -> work of no range
    for op in truth:
        kind = op["op"].rsplit("_", 1)[0]
        if kind == "fill":
            e = next(x for x in gpu if x["cat"] == "gpu_memset")
        elif kind == "copy":
            e = next(x for x in gpu if x["cat"] == "gpu_memcpy")
        else:
            e = by_name.get(op["op"])
        if not check(e is not None, "ranges %s: %s not in the trace" % (version, op["op"])):
            continue
        lane = (e["pid"], e["tid"])
        check(e["args"]["device"] == int(op["device"]) and e["pid"] == int(op["device"]),
              "ranges %s: %s on device %s, expected %s" % (version, op["op"], e["pid"],
                                                           op["device"]))
        check(lanes.setdefault(op["queue"], lane) == lane,
              "ranges %s: queue %s on two streams" % (version, op["queue"]))
        for rng in filter(None, op["ranges"].split(",")):
            work[(rng, *lane)].append((e["ts"], e["ts"] + e["dur"]))
        if not op["ranges"]:
            outside[lane].append((e["ts"], e["ts"] + e["dur"]))
    check(len(set(lanes.values())) == len(lanes) == 3,
          "ranges %s: %d queues on %d streams, expected 3" % (version, len(lanes),
                                                             len(set(lanes.values()))))
    check(len(gpu) == len(truth), "ranges %s: %d GPU events, truth %d" % (version, len(gpu),
                                                                          len(truth)))
    spans = events(t, "gpu_user_annotation")
    got = collections.Counter((s["name"], s["pid"], s["tid"]) for s in spans)
    check(set(got) == set(work) and all(v == 1 for v in got.values()),
          "ranges %s: spans %s, expected one per %s" % (version, dict(got), sorted(work)))
    for s in spans:
        w = work.get((s["name"], s["pid"], s["tid"]))
        if not w:
            continue
        pad = s["args"]["widened (ns)"] * NS
        first, last = min(a for a, _ in w), max(b for _, b in w)
        check(abs(s["ts"] + pad - first) < 0.6 * NS and
              abs(s["ts"] + s["dur"] - pad - last) < 1.6 * NS,
              "ranges %s: span %s on %s bounds %.3f..%.3f, work %.3f..%.3f" %
              (version, s["name"], (s["pid"], s["tid"]), s["ts"], s["ts"] + s["dur"], first,
               last))
        for a, b in outside[(s["pid"], s["tid"])]:
            # Against the exact extent: the writer's widening may reach into back-to-back work.
            check(b <= first + 0.6 * NS or a >= last - 0.6 * NS,
                  "ranges %s: work outside any range inside span %s" % (version, s["name"]))
    inner = [s for s in spans if s["name"] == "inner"]
    step = {(s["pid"], s["tid"]): s for s in spans if s["name"] == "step"}
    for s in inner:
        parent = step.get((s["pid"], s["tid"]))
        check(parent is not None and parent["ts"] < s["ts"] and
              parent["ts"] + parent["dur"] > s["ts"] + s["dur"],
              "ranges %s: inner not strictly inside step on its stream" % version)
    late, missing = no_kernel_before_launch(t)
    check(late == 0 and missing == 0, "ranges %s: %d GPU events before their API call, %d "
          "without one" % (version, late, missing))
    print("ranges %s: %d GPU events on %d streams, %d spans (%s), %d before launch" %
          (version, len(gpu), len(lanes), len(spans),
           ", ".join("%s x%d" % (n, c) for n, c in
                     sorted(collections.Counter(s["name"] for s in spans).items())), late))


def case_scenarios():
    for scenario, version in (("copies", "1.0.0"), ("kinds", "1.0.0"), ("all", "1.0.0"),
                              ("all", "0.17.0")):
        out = os.path.join(tmp, "%s_%s.json" % (scenario, version))
        r = run([args.program, scenario], out, {"SIM_PTI_VERSION": version})
        name = "%s %s" % (scenario, version)
        if not check(r.returncode == 0, "%s: run failed: %s" % (name, r.stderr[-500:])):
            continue
        ok, text = nodescope_check(out)
        check(ok, "%s: nodescope check failed:\n%s" % (name, text))
        m = re.search(r"truth kernels=(\d+) copies=(\d+) fills=(\d+)", r.stdout)
        t = load(out)
        got = (len(events(t, "kernel")), len(events(t, "gpu_memcpy")),
               len(events(t, "gpu_memset")))
        want = tuple(int(x) for x in m.groups()) if m else None
        check(got == want, "%s: kernels/copies/fills %s, truth %s" % (name, got, want))
        late, missing = no_kernel_before_launch(t)
        check(late == 0, "%s: %d GPU events before their API call" % (name, late))
        g = graph_keys(t)
        check(g["wrong"] == 0 and g["aliased"] == 0,
              "%s: %d wrong, %d aliased graph keys" % (name, g["wrong"], g["aliased"]))
        drops = t["nodescope"]["dropped_records"]["total"]
        check(drops == 0, "%s: %d records dropped" % (name, drops))
        print("%s: kernels/copies/fills %s (truth %s), %d before launch, %d drops" %
              (name, got, want, late, drops))


def graph_keys(t):
    """Graph keys against the simulator's ground truth: a node is its graph's prefix, its kernel
    name and its duration (unique per node of a graph, sim_program.cc). Wrong: a key that ran two
    nodes; aliased: a node under two keys."""
    keyed = [e for e in events(t, "kernel") if "graph id" in e.get("args", {})]
    nodes = collections.defaultdict(set)  # key -> nodes
    keys = collections.defaultdict(set)  # node -> keys
    occ = collections.Counter()
    for e in keyed:
        key = (e["args"]["graph id"], e["args"]["graph node id"])
        node = (e["name"], round(e["dur"] * 1000 / 500))  # durations 500 ns apart
        nodes[key].add(node)
        keys[node].add(key)
        occ[key] += 1
    graph_of = collections.defaultdict(set)  # graph id -> prefixes
    for (graph, _), ns in nodes.items():
        graph_of[graph] |= {n.split("_")[0] for n, _ in ns}
    wrong = sum(1 for v in nodes.values() if len(v) > 1)
    wrong += sum(1 for v in graph_of.values() if len(v) > 1)
    aliased = sum(1 for v in keys.values() if len(v) > 1)
    attribution = t.get("nodescope", {}).get("attribution", {})
    return dict(keyed=len(keyed), keys=len(nodes), occ=occ, wrong=wrong, aliased=aliased,
                mode=attribution.get("mode"),
                withheld=sum(attribution.get("withheld", {}).values()),
                graph_kernels=sum(1 for e in events(t, "kernel") if "_" in e["name"] and
                                  e["name"].split("_")[-1] in ("root", "branch", "join", "tail")))


def case_graphs():
    runs = (("graph", ["graph"], {}), ("graph_visit", ["graph_visit"], {}),
            ("graph_api", ["graph"], {"SIM_SYCL_GRAPH_API": "graph"}),
            ("graph_v1", ["graph"], {"SIM_PTI_VERSION": "0.17.0"}),
            ("graph_threads", ["graph_threads"], {}),
            # Submission calls of 20 us, as real ones take: two threads replaying overlap often.
            ("graph_threads_slow", ["graph_threads"], {"SIM_SYCL_SUBMIT_NS": "20000"}),
            ("graph_handoff", ["graph_handoff"], {}),
            ("graph_off", ["graph"], {"NODESCOPE_DISABLE_GRAPH_ATTRIBUTION": "1"}))
    for name, command, env in runs:
        out = os.path.join(tmp, name + ".json")
        r = run([args.program, *command], out, env)
        if not check(r.returncode == 0, "%s: run failed: %s" % (name, r.stderr[-500:])):
            continue
        ok, text = nodescope_check(out)
        check(ok, "%s: nodescope check failed:\n%s" % (name, text))
        t = load(out)
        g = graph_keys(t)
        check(g["wrong"] == 0 and g["aliased"] == 0,
              "%s: %d wrong, %d aliased graph keys" % (name, g["wrong"], g["aliased"]))
        late, _ = no_kernel_before_launch(t)
        check(late == 0, "%s: %d kernels before their API call" % (name, late))
        counts = sorted(collections.Counter(g["occ"].values()).items())
        if name in ("graph", "graph_visit", "graph_api", "graph_v1"):
            check(g["keyed"] == 600 and g["keys"] == 6 and set(g["occ"].values()) == {100}
                  and g["withheld"] == 0 and g["mode"] == "submission_matched",
                  "%s: %d keyed, %d keys, occurrences %s, %d withheld, mode %s" %
                  (name, g["keyed"], g["keys"], counts, g["withheld"], g["mode"]))
            # Each replay's kernels link to its own submission call.
            calls = {e["args"]["correlation"]: e["name"] for e in events(t, "cuda_runtime")}
            linked = collections.Counter(calls.get(e["args"]["correlation"])
                                         for e in events(t, "kernel"))
            want = "urEnqueueGraphExp" if name == "graph_api" else "urEnqueueCommandBufferExp"
            check(linked == {want: 600}, "%s: kernels linked to %s" % (name, dict(linked)))
            check(len({e["args"]["correlation"] for e in events(t, "kernel")}) == 100,
                  "%s: one correlation per replay" % name)
        elif name.startswith("graph_threads"):
            # Overlapping submission calls withhold; with 20 us calls nearly every replay
            # overlaps one of the other thread's (what is withheld must show in the header).
            some = g["withheld"] > 0 if name.endswith("slow") else g["keyed"] > 0
            check(g["keyed"] + g["withheld"] == g["graph_kernels"] == 1200 and some
                  and g["keys"] <= 12,
                  "%s: %d keyed + %d withheld, %d graph kernels, %d keys" %
                  (name, g["keyed"], g["withheld"], g["graph_kernels"], g["keys"]))
        elif name == "graph_handoff":
            check(g["keyed"] == 0 and g["withheld"] == 600,
                  "%s: %d keyed, %d withheld" % (name, g["keyed"], g["withheld"]))
        else:
            check(g["keyed"] == 0 and g["mode"] == "disabled",
                  "%s: %d keyed, mode %s" % (name, g["keyed"], g["mode"]))
        print("%s: %d of %d graph kernels keyed (%.1f%%), %d keys (occurrences: count %s), "
              "%d withheld, %d wrong, %d aliased, mode %s" %
              (name, g["keyed"], g["graph_kernels"],
               100.0 * g["keyed"] / max(1, g["graph_kernels"]), g["keys"], counts,
               g["withheld"], g["wrong"], g["aliased"], g["mode"]))


def case_midrun():
    for which in ("exit_midrun", "sigint_midrun"):
        complete = 0
        keyed = 0
        for i in range(args.exit_runs):
            out = os.path.join(tmp, "%s_%d.json" % (which, i))
            r = run([args.program, which], out)
            ok = os.path.exists(out) and nodescope_check(out)[0]
            if ok:
                t = load(out)
                g = graph_keys(t)
                ok = (len(events(t, "kernel")) > 0 and g["wrong"] == 0 and g["aliased"] == 0
                      and g["mode"] == "submission_matched")
                keyed += g["keyed"]
            complete += ok
            check(ok, "%s run %d: a complete, valid trace (rc %d): %s" %
                  (which, i, r.returncode, r.stderr[-300:]))
        print("%s: %d/%d complete, valid traces (%d graph kernels keyed in all)" %
              (which, complete, args.exit_runs, keyed))


def case_second_tool():
    out = os.path.join(tmp, "second_tool.json")
    r = run([args.program, "second_tool"], out, {"NODESCOPE_BUFFER_SIZE_MB": "1"})
    if not check(r.returncode == 0, "second_tool: run failed: %s" % r.stderr[-500:]):
        return
    ok, text = nodescope_check(out)
    check(ok, "second_tool: nodescope check failed:\n%s" % text)
    t = load(out)
    names = collections.Counter(e["name"] for e in events(t, "kernel"))
    counters = t["nodescope"]
    taken = counters.get("pti_buffers_not_returned", 0)
    warned = "never came back" in r.stderr
    m = re.search(r"second tool: received (\d+) buffers", r.stdout)
    check(names["before_takeover"] > 0 and names["after_takeover"] == 0 and taken > 0 and warned
          and m and int(m.group(1)) == taken,
          "second_tool: kernels %s, %d buffers not returned, warned %s, second tool got %s" %
          (dict(names), taken, warned, m and m.group(1)))
    print("second_tool: %d of 10000 kernels before the takeover kept, %d after; %d buffers taken "
          "by the other tool (it counted %s), warned %s" %
          (names["before_takeover"], names["after_takeover"], taken, m and m.group(1), warned))


def case_refused():
    # Two buffers in flight for a program recording from several threads: requests are refused,
    # PTI drops what finds no buffer (it only logs); the trace stays valid and says so.
    out = os.path.join(tmp, "refused.json")
    r = run([args.program, "all"], out, {"NODESCOPE_MAX_BUFFERS": "2"})
    if not check(r.returncode == 0, "refused: run failed: %s" % r.stderr[-500:]):
        return
    ok, text = nodescope_check(out)
    check(ok, "refused: nodescope check failed:\n%s" % text)
    t = load(out)
    refused = t["nodescope"]["dropped_records"]["buffers_refused"]
    m = re.search(r"truth kernels=(\d+)", r.stdout)
    kernels = len(events(t, "kernel"))
    check(refused > 0 and m and kernels < int(m.group(1)),
          "refused: %d refusals, %d of %s kernels" % (refused, kernels, m and m.group(1)))
    print("refused: %d buffer requests refused, %d of %s kernels kept, check %s" %
          (refused, kernels, m and m.group(1), "ok" if ok else "failed"))


def case_exit():
    complete = 0
    for i in range(args.exit_runs):
        out = os.path.join(tmp, "exit_%d.json" % i)
        r = run([args.ranges_program, "exit"], out)
        ok = r.returncode == 0 and os.path.exists(out) and nodescope_check(out)[0]
        if ok:
            t = load(out)
            # Queues a and b were waited on (9 operations); c and the pending kernel never were.
            ok = len(events(t, "kernel", "gpu_memcpy", "gpu_memset")) == 9
        complete += ok
    check(complete == args.exit_runs, "exit: %d/%d complete traces" % (complete, args.exit_runs))
    print("exit: %d/%d complete traces" % (complete, args.exit_runs))


def case_noprobe():
    out = os.path.join(tmp, "noprobe.json")
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    r = subprocess.run([args.nodescope, "run", "--backend", "xpu", "-o", out, "--", "true"],
                       env=env, capture_output=True, text=True, timeout=60)
    check(r.returncode != 0 and "libpti_view.so.1" in r.stderr,
          "noprobe: rc %d, stderr %s" % (r.returncode, r.stderr[-300:]))
    print("noprobe: rc %d, says %s" % (r.returncode, "libpti_view.so.1" in r.stderr))


def case_graph_range():
    """Issue 29: a range open while a graph is finalized ("built"), 5 replays withheld (submitted
    from another thread), 5 proven inside "replays". PTI gives every replay's kernels the append
    call's correlation id: a range's device spans must cover only work proven under it, so
    "built" gets none and "replays" covers only the keyed kernels."""
    out = os.path.join(tmp, "graph_range.json")
    r = run([args.ranges_program, "graph_range"], out)
    if not check(r.returncode == 0, "graph_range: run failed: %s" % r.stderr[-500:]):
        return
    ok, text = nodescope_check(out)
    check(ok, "graph_range: nodescope check failed:\n%s" % text)
    t = load(out)
    kernels = [e for e in events(t, "kernel") if e["name"].startswith("gr_")]
    keyed = [e for e in kernels if "graph id" in e.get("args", {})]
    spans = collections.defaultdict(list)
    for e in events(t, "gpu_user_annotation"):
        spans[e["name"]].append(e)
    check(len(kernels) == 30 and len(keyed) == 15,
          "graph_range: 30 graph kernels, the 15 of the finalizing thread keyed (%d, %d)"
          % (len(kernels), len(keyed)))
    check(not spans.get("built"), "graph_range: no device span of the range open at finalize "
          "(%d)" % len(spans.get("built", [])))
    if keyed and spans.get("replays"):
        lo = min(e["ts"] for e in keyed)
        hi = max(e["ts"] + e["dur"] for e in keyed)
        check(all(lo - 0.01 <= s["ts"] and s["ts"] + s["dur"] <= hi + 0.01
                  for s in spans["replays"]),
              "graph_range: the replays range's spans cover only the keyed kernels")
    check(bool(spans.get("replays")), "graph_range: the proven replays have their range's span")
    print("graph_range: %d kernels, %d keyed, device spans %s"
          % (len(kernels), len(keyed), {k: len(v) for k, v in spans.items()}))


for case in args.cases.split(","):
    {"ranges": lambda: case_ranges("1.0.0"), "ranges_v1": lambda: case_ranges("0.17.0"),
     "scenarios": case_scenarios, "refused": case_refused, "exit": case_exit,
     "noprobe": case_noprobe, "graphs": case_graphs, "midrun": case_midrun,
     "second_tool": case_second_tool, "graph_range": case_graph_range}[case]()
if failures:
    print("pti backend: %d checks failed" % len(failures))
    sys.exit(1)
print("pti backend: all checks passed")
