"""GPU test of issue 28's graph feature matrix: every case of graph_matrix (tests/gpu/
graph_matrix.cu: node types, changes, capture modes, launches) traced by `nodescope run` in full
mode and sampled (--sample 4), each checked against the manifest the program prints:

- full mode: every expected record present, counted per label (kernel name, or copy/fill size):
  expected == found, so a lost record is never silent;
- sampled mode: the records group by correlation into whole replays of the manifest (conditional
  bodies and device-launched work included); a part of a replay, or a record no replay owns, fails;
  the kept replays == the launches the header says it traced;
- keys: node id >> 32 == graph id; no key names two labels; each label has the keys expected (1
  unless the manifest says more; a changed kernel's new label shares no key with the old one);
- records without keys are at most what the header counts as withheld (under its reasons);
- a kernel CUPTI names by what its node ran before a change (the manifest's stale_names: a
  conditional body's kernel swapped by an exec update) is counted as what ran, and only if those
  records carry no key and are counted withheld as conditional_body_changed;
- `nodescope check` exits 0 and says clean.

Writes a Markdown table (case, mode, expected, found, keyed, withheld, check, result, seconds) to
--table. Each run has 60 s; none starts after --budget s (540), so the matrix ends within 10 min.
`--self-test` runs the same evaluation on a hand-made trace (testdata/graph_matrix_trace.json) and
mutations of it that must fail: no GPU needed (ctest graph_matrix_checker)."""
import argparse
import collections
import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import signal
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_common import SKIP, Checker, gpu_events, gpu_present  # noqa: E402

SAMPLE_EVERY = 4
OUR_KERNELS = ("k<", "kp<", "setc<", "reset<", "down<", "launcher<", "expect_flag<", "tick<")


def label_of(e):
    """A record's label as the manifest writes it: the kernel's name without "void " and
    arguments ("k<3>"), or "memcpy:BYTES" / "memset:BYTES"."""
    if e["cat"] == "kernel":
        name = e["name"]
        if name.startswith("void "):
            name = name[5:]
        return name.split("(")[0]
    kind = "memcpy" if e["cat"] == "gpu_memcpy" else "memset"
    return f"{kind}:{e['args'].get('bytes')}"


def parse_manifest(stdout):
    """The last "manifest {...}" line of the program's output, or None."""
    found = None
    for line in stdout.splitlines():
        if line.startswith("manifest "):
            found = json.loads(line[len("manifest "):])
    return found


def withheld_of(trace):
    w = trace.get("nodescope", {}).get("attribution", {}).get("withheld", {})
    return {k: v for k, v in w.items() if v}


def describe_withheld(w):
    if not w:
        return "0"
    return f"{sum(w.values())} (" + ", ".join(f"{k}: {v}" for k, v in sorted(w.items())) + ")"


def evaluate(trace, manifest, mode, check_ok):
    """Checks one traced case. Returns (checks, row): checks a list of (ok, what), row the table's
    cells. `mode` is "full" or "sampled"; `check_ok` whether `nodescope check` was clean."""
    checks = []
    name = manifest["case"]

    def check(ok, what):
        checks.append((bool(ok), f"{name} {mode}: {what}"))

    phases = manifest["phases"]
    # Device-launched graphs (issue 28): CUPTI on Hopper gives no per-node record of them
    # (docs/cupti-notes.md). Their records may then be absent only where the header says so: no
    # per-node record came (device_graph_node_tracing 0) and the execs instantiated for device
    # launch were counted. Present, they are checked as every other record.
    device_labels = set(manifest.get("device_labels", []))
    if device_labels:
        header = trace.get("nodescope", {})
        absent = not any(label_of(e) in device_labels for e in gpu_events(trace))
        counted = header.get("device_launch_execs_created", 0) >= manifest.get("device_execs", 1)
        if absent:
            check(counted and header.get("device_graph_node_tracing", 1) == 0,
                  "the device graph's records are absent and the header counts it: "
                  f"device_launch_execs_created {header.get('device_launch_execs_created')} >= "
                  f"{manifest.get('device_execs', 1)}, device_graph_node_tracing "
                  f"{header.get('device_graph_node_tracing')}")
            phases = [dict(p, per_replay={k: v for k, v in p["per_replay"].items()
                                          if k not in device_labels}) for p in phases]
    expected_labels = set()
    for p in phases:
        expected_labels |= set(p["per_replay"])
    events = gpu_events(trace)
    records = [e for e in events if label_of(e) in expected_labels]
    found = collections.Counter(label_of(e) for e in records)
    strays = collections.Counter(label_of(e) for e in events if label_of(e) not in expected_labels
                                 and label_of(e).startswith(OUR_KERNELS))
    check(not strays, f"no kernel of the program outside the manifest ({dict(strays)})")

    w = withheld_of(trace)

    # Presence.
    if mode == "full":
        want = collections.Counter()
        for p in phases:
            for label, n in p["per_replay"].items():
                want[label] += n * p["replays"]
        # CUPTI 13.0 names a conditional body's kernel swapped by cudaGraphExecUpdate by its old
        # function (docs/graph-matrix.md): records of `ran` may come named `named`. They count
        # as `ran` only without keys and counted withheld under conditional_body_changed.
        renamed = 0
        for ran, named in manifest.get("stale_names", []):
            n = min(max(found[named] - want[named], 0), max(want[ran] - found[ran], 0))
            found[named] -= n
            found[ran] += n
            renamed += n
            keyed_named = sum(1 for e in records if label_of(e) == named and "graph id" in e["args"])
            check(keyed_named <= want[named],
                  f"{named}: keyed records at most the {want[named]} that ran it ({keyed_named}); "
                  f"the rest ran {ran}")
        if renamed:
            body_changed = w.get("conditional_body_changed", 0)
            check(renamed <= body_changed,
                  f"{renamed} records named by their node's old kernel, counted withheld as "
                  f"conditional_body_changed ({body_changed})")
        diff = {lab: (want[lab], found[lab]) for lab in sorted(want) if want[lab] != found[lab]}
        check(not diff, f"every record present: expected {sum(want.values())}, found "
              f"{sum(found.values())}" + (f"; label: (expected, found) {diff}" if diff else ""))
        expected_cell = str(sum(want.values()))
    else:
        s = trace.get("nodescope", {}).get("sampling", {})
        check(s.get("every") == SAMPLE_EVERY, f"the header says 1 launch in {SAMPLE_EVERY} ({s})")
        launches = sum(p.get("launches", p["replays"]) for p in phases)
        if not manifest.get("device_launched"):
            check(s.get("graph_launches") == launches,
                  f"every host graph launch counted: {s.get('graph_launches')} == {launches}")
        by_corr = collections.defaultdict(collections.Counter)
        orphans = 0
        for e in records:
            corr = e["args"].get("correlation", 0)
            if corr:
                by_corr[corr][label_of(e)] += 1
            else:
                orphans += 1
        # Phases running the same records (before and after a change that changes no label)
        # are one shape: a whole replay is counted against the shape, not a phase.
        shapes = {}
        for p in phases:
            shape = frozenset(p["per_replay"].items())
            shapes[shape] = shapes.get(shape, 0) + p["replays"]
        kept = collections.Counter()
        partial = []
        for corr, got in sorted(by_corr.items()):
            shape = frozenset(got.items())
            if shape in shapes:
                kept[shape] += 1
            else:
                partial.append((corr, dict(got)))
        whole = sum(kept.values())
        check(not partial, f"every kept replay whole ({whole} whole, {len(partial)} not"
              + (f"; e.g. correlation {partial[0][0]}: {partial[0][1]}" if partial else "") + ")")
        check(orphans == 0, f"every record belongs to a replay (correlation): {orphans} do not")
        # Conditional bodies (correlation 0 from CUPTI) are placed by the records; every
        # conditional here follows a kernel, so none may be withheld (README, "Conditional
        # bodies").
        body_withheld = {k: v for k, v in trace.get("nodescope", {}).items()
                         if k.startswith("sampling_body_records_withheld") and v}
        check(not body_withheld, f"no conditional body withheld ({body_withheld})")
        check(whole >= 1, f"at least one replay kept ({whole})")
        over = [(kept[shape], ran) for shape, ran in shapes.items() if kept[shape] > ran]
        check(not over, f"no phase kept more replays than it ran (kept, ran: {over})")
        traced = s.get("graph_launches_traced")
        check(whole + len(partial) == traced,
              f"replays in the trace == launches the header says it traced "
              f"({whole + len(partial)} == {traced})")
        expected_cell = (f"{whole} whole of {traced} traced launches"
                         + (f", {len(partial)} partial" if partial else ""))

    # Keys.
    keyed = [e for e in records if "graph id" in e["args"]]
    bad_pack = [e for e in keyed if e["args"]["graph node id"] >> 32 != e["args"]["graph id"]]
    check(not bad_pack, f"graph node id >> 32 == graph id ({len(bad_pack)} not)")
    labels_of_key = collections.defaultdict(set)
    keys_of_label = collections.defaultdict(set)
    for e in keyed:
        key = (e["args"]["graph id"], e["args"]["graph node id"])
        labels_of_key[key].add(label_of(e))
        keys_of_label[label_of(e)].add(key)
    shared = {k: sorted(v) for k, v in labels_of_key.items() if len(v) > 1}
    check(not shared, f"no key names two labels ({len(shared)} do"
          + (f"; e.g. {next(iter(shared.items()))}" if shared else "") + ")")
    wrong_count = {}
    for label, keys in keys_of_label.items():
        want = manifest.get("keys", {}).get(label, 1)
        ok = len(keys) == want if mode == "full" else 1 <= len(keys) <= want
        if not ok:
            wrong_count[label] = (want, len(keys))
    check(not wrong_count, f"one key per node (label: (expected, found) {wrong_count})")
    for old, new in manifest.get("changed", []):
        both = keys_of_label.get(old, set()) & keys_of_label.get(new, set())
        check(not both, f"changed {old} -> {new}: the new kernel has a new node id")

    # What is not keyed is counted.
    unkeyed = len(records) - len(keyed)
    check(unkeyed <= sum(w.values()),
          f"records without keys counted as withheld: {unkeyed} <= {describe_withheld(w)}")
    check(check_ok, "nodescope check: clean")
    passed = all(ok for ok, _ in checks)
    row = [name, mode, expected_cell, str(sum(found.values())), str(len(keyed)),
           describe_withheld(w), "clean" if check_ok else "NOT clean", "PASS" if passed else "FAIL"]
    return checks, row


def write_table(path, rows, note):
    lines = [note, "",
             "| case | mode | expected | found | keyed | withheld (reason) | check | result | s |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_bounded(cmd, timeout):
    """(returncode, stdout, stderr) of cmd, or None when it ran past `timeout` s: then its whole
    process group (nodescope and the traced program) is killed, so no orphan keeps the GPU."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None


def run_matrix(args, c):
    """Runs the cases, each check through Checker `c`; returns the table's rows."""
    tmp = tempfile.mkdtemp(prefix="nodescope-matrix-")
    program = os.path.join(args.bin_dir, "graph_matrix")
    cases = subprocess.run([program, "--list"], capture_output=True, text=True,
                           check=True).stdout.split()
    if args.cases:
        cases = [case for case in cases if case in args.cases.split(",")]
    rows = []
    began = time.monotonic()
    for case in cases:
        for mode in args.modes.split(","):
            row_start = time.monotonic()
            if row_start - began > args.budget:
                c.check(False, f"{case} {mode}: run within the matrix's {args.budget} s")
                rows.append([case, mode, "", "", "", "", "", "FAIL (not run: time budget)", ""])
                continue
            out = os.path.join(tmp, f"{case}-{mode}.json")
            sample = ([] if mode == "full"
                      else ["--sample", str(SAMPLE_EVERY), "--sample-burst", "1"])
            cmd = [args.nodescope, "run", "-o", out, *sample, "--", program, case,
                   str(args.replays)]
            r = run_bounded(cmd, 60)
            if r is None:
                c.check(False, f"{case} {mode}: ran within 60 s")
                rows.append([case, mode, "", "", "", "", "", "FAIL (timeout)", "60"])
                continue
            rc, stdout, stderr = r
            manifest = parse_manifest(stdout)
            seconds = f"{time.monotonic() - row_start:.1f}"
            if rc != 0 or manifest is None:
                c.check(False, f"{case} {mode}: the program ran and printed its manifest (exit "
                        f"{rc}): {stderr.strip()[-300:]}")
                rows.append([case, mode, "", "", "", "", "", f"FAIL (exit {rc})", seconds])
                continue
            if manifest.get("skipped"):
                print(f"  skip {case} {mode}: {manifest['skipped']}")
                rows.append([case, mode, "", "", "", "", "", "SKIP: " + manifest["skipped"],
                             seconds])
                continue
            try:
                with open(out) as f:
                    trace = json.load(f)
            except (OSError, ValueError) as e:
                c.check(False, f"{case} {mode}: the trace is readable ({e})")
                rows.append([case, mode, "", "", "", "", "", "FAIL (no trace)", seconds])
                continue
            chk = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
            check_ok = chk.returncode == 0 and "clean" in chk.stdout
            checks, row = evaluate(trace, manifest, mode, check_ok)
            for ok, what in checks:
                c.check(ok, what)
            rows.append(row + [seconds])
    total = time.monotonic() - began
    print(f"matrix: {len(rows)} runs in {total:.0f} s")
    if args.table:
        write_table(args.table, rows, f"graph_matrix: {len(cases)} cases, {args.replays} replays "
                    f"per phase, sampled = --sample {SAMPLE_EVERY} --sample-burst 1; "
                    f"{len(rows)} runs in {total:.0f} s.")
        print(f"table written to {args.table}")
    return rows


def self_test(args):
    """The evaluation on a hand-made trace and mutations of it; each must pass or fail as said."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
    with open(os.path.join(here, "graph_matrix_trace.json")) as f:
        base = json.load(f)
    with open(os.path.join(here, "graph_matrix_manifest.txt")) as f:
        manifest = parse_manifest(f.read())
    c = Checker("graph_matrix_checker")
    c.check(manifest is not None and manifest["case"] == "fixture", "the fixture's manifest parses")
    if args.nodescope:
        chk = subprocess.run([args.nodescope, "check", os.path.join(here,
                                                                     "graph_matrix_trace.json")],
                             capture_output=True, text=True)
        c.check(chk.returncode == 0 and "clean" in chk.stdout,
                f"nodescope check says the fixture is clean (exit {chk.returncode})")

    def kernels(t, label):
        return [e for e in t["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"
                and label_of(e) == label]

    def sampled(t, drop_corr=(), traced=None):
        t = copy.deepcopy(t)
        t["traceEvents"] = [e for e in t["traceEvents"]
                            if e.get("args", {}).get("correlation") not in drop_corr]
        kept = len({e["args"]["correlation"] for e in gpu_events(t)})
        t["nodescope"]["sampling"] = {"every": SAMPLE_EVERY, "unit": "launch", "burst": 1,
                                      "graph_launches": 4,
                                      "graph_launches_traced": kept if traced is None else traced}
        return t

    def expect(t, mode, should_pass, what, check_ok=True):
        checks, row = evaluate(t, manifest, mode, check_ok)
        failed = [w for ok, w in checks if not ok]
        c.check((not failed) == should_pass,
                f"{what}: {'passes' if should_pass else 'fails'}"
                + (f" ({failed[0]})" if failed else f" ({len(checks)} checks ok)"))
        return row

    expect(base, "full", True, "the full trace as recorded")
    t = copy.deepcopy(base)
    t["traceEvents"].remove(kernels(t, "setc<0>")[0])
    expect(t, "full", False, "a lost record (a conditional body's setter)")
    t = copy.deepcopy(base)
    for e in kernels(t, "k<5>"):
        e["args"]["graph node id"] = kernels(t, "k<1>")[0]["args"]["graph node id"]
    expect(t, "full", False, "a swapped kernel keeping its old node id")
    t = copy.deepcopy(base)
    kernels(t, "k<0>")[1]["args"]["graph node id"] += 100
    expect(t, "full", False, "one node with two keys")
    t = copy.deepcopy(base)
    kernels(t, "k<0>")[0]["args"]["graph id"] = 7
    expect(t, "full", False, "a node id not packing its graph id")
    t = copy.deepcopy(base)
    e = kernels(t, "k<2>")[0]
    del e["args"]["graph id"], e["args"]["graph node id"]
    expect(t, "full", False, "an unkeyed record the header does not count")
    t["nodescope"]["attribution"]["withheld"]["submission_unproven"] = 1
    row = expect(t, "full", True, "an unkeyed record counted as withheld")
    c.check(row[5] == "1 (submission_unproven: 1)", f"the table names the reason ({row[5]})")
    t = copy.deepcopy(base)
    stray = copy.deepcopy(kernels(t, "k<0>")[0])
    stray["name"] = "void k<9>(float*)"
    t["traceEvents"].append(stray)
    expect(t, "full", False, "a kernel of the program the manifest does not name")
    expect(base, "full", False, "nodescope check not clean", check_ok=False)
    # CUPTI's stale body names: k<5>'s records named k<1>, as it did for an updated IF body.
    stale = copy.deepcopy(base)
    renamed = kernels(stale, "k<5>")
    for e in renamed:
        e["name"] = "void k<1>(float*)"
    saved = manifest.get("stale_names")
    manifest["stale_names"] = [["k<5>", "k<1>"]]
    expect(stale, "full", False, "stale names: the renamed records keep keys")
    for e in renamed:
        del e["args"]["graph id"], e["args"]["graph node id"]
    expect(stale, "full", False, "stale names: unkeyed, not counted")
    stale["nodescope"]["attribution"]["withheld"]["submission_unproven"] = len(renamed)
    expect(stale, "full", False, "stale names: counted under another reason")
    stale["nodescope"]["attribution"]["withheld"] = {"conditional_body_changed": len(renamed)}
    expect(stale, "full", True, "stale names: unkeyed, counted as conditional_body_changed")
    manifest["stale_names"] = saved or []
    expect(stale, "full", False, "stale names the manifest does not allow")
    row = expect(base, "full", True, "the table row")
    c.check(row == ["fixture", "full", "20", "20", "20", "0", "clean", "PASS"], f"row {row}")

    # Sampled: replays are correlations 11..14 (two before the swap, two after).
    expect(sampled(base, drop_corr=(12, 13)), "sampled", True, "sampled: two whole replays kept")
    expect(sampled(base, drop_corr=(12, 13), traced=3), "sampled", False,
           "sampled: a traced launch whose records are all lost")
    t = sampled(base, drop_corr=(12, 13))
    t["traceEvents"].remove(kernels(t, "k<1>")[0])  # WHILE-style: part of a kept replay
    expect(t, "sampled", False, "sampled: a kept replay missing one record")
    t = sampled(base, drop_corr=(12, 13))
    kernels(t, "setc<0>")[0]["args"]["correlation"] = 0
    expect(t, "sampled", False, "sampled: a record no replay owns")
    t = copy.deepcopy(base)
    t["traceEvents"] += [dict(copy.deepcopy(e), args={**e["args"], "correlation": 15})
                         for e in gpu_events(t) if e["args"]["correlation"] == 11]
    expect(sampled(t), "sampled", False, "sampled: more whole replays of a phase than it ran")
    t = sampled(base, drop_corr=(12, 13))
    t["nodescope"]["sampling"]["every"] = 5
    expect(t, "sampled", False, "sampled: the header's rate is not the one asked for")
    t = sampled(base, drop_corr=(12, 13))
    t["nodescope"]["sampling_body_records_withheld_unproven"] = 2
    expect(t, "sampled", False, "sampled: conditional body records withheld")
    fake_matrix(c, here)
    c.finish()


FAKE_NODESCOPE = """import json, shutil, sys
here, argv = sys.argv[1], sys.argv[2:]
if argv[0] == "check":
    print("verdict  clean")
    sys.exit(0)
out = argv[argv.index("-o") + 1]
trace = json.load(open(here + "/graph_matrix_trace.json"))
if "--sample" in argv:  # replays 2 and 3 not kept
    trace["traceEvents"] = [e for e in trace["traceEvents"]
                            if e.get("args", {}).get("correlation") not in (12, 13)]
    trace["nodescope"]["sampling"] = {"every": int(argv[argv.index("--sample") + 1]),
                                      "graph_launches": 4, "graph_launches_traced": 2}
json.dump(trace, open(out, "w"))
case = argv[-2]
if case == "fixture":
    print(open(here + "/graph_matrix_manifest.txt").read(), end="")
elif case == "skipped":
    print('manifest {"case":"skipped","phases":[],"skipped":"needs Vulkan"}')
else:
    sys.exit(3)
"""


def fake_matrix(c, here):
    """run_matrix's loop (runs, manifests, table, skips, failures) with a fake `nodescope run`
    that writes the fixture and prints its manifest, and a fake graph_matrix --list."""
    tmp = tempfile.mkdtemp(prefix="nodescope-matrix-selftest-")
    with open(os.path.join(tmp, "fake_nodescope.py"), "w") as f:
        f.write(FAKE_NODESCOPE)
    nodescope = os.path.join(tmp, "nodescope")
    program = os.path.join(tmp, "graph_matrix")
    with open(nodescope, "w") as f:
        f.write(f"#!/bin/sh\nexec {sys.executable} {tmp}/fake_nodescope.py {here} \"$@\"\n")
    with open(program, "w") as f:
        f.write("#!/bin/sh\nprintf 'fixture\\nskipped\\nbroken\\n'\n")
    os.chmod(nodescope, 0o755)
    os.chmod(program, 0o755)
    args = argparse.Namespace(nodescope=nodescope, bin_dir=tmp, cases=None, modes="full,sampled",
                              replays=2, budget=540, table=os.path.join(tmp, "table.md"))
    inner = Checker("fake matrix")
    log = io.StringIO()
    with contextlib.redirect_stdout(log):  # its FAIL lines are expected: not shown as this test's
        rows = run_matrix(args, inner)
    lines = log.getvalue().splitlines()
    print(f"  (fake matrix ran: {sum('FAIL' in x for x in lines)} failed checks as intended, "
          f"{sum(x.startswith('  skip') for x in lines)} skips)")
    results = [(row[0], row[1], row[7].split(" ")[0].rstrip(":")) for row in rows]
    c.check(results == [("fixture", "full", "PASS"), ("fixture", "sampled", "PASS"),
                        ("skipped", "full", "SKIP"), ("skipped", "sampled", "SKIP"),
                        ("broken", "full", "FAIL"), ("broken", "sampled", "FAIL")],
            f"fake matrix: fixture passes in both modes, a skipped case skips, a program exiting "
            f"3 fails ({results})")
    c.check(inner.failures == 2 and inner.passes > 10,
            f"fake matrix: the broken case's two runs are the only failed checks "
            f"({inner.passes} passed, {inner.failures} failed)")
    with open(args.table) as f:
        table = f.read()
    c.check(table.count("\n| ") == 7 and "| fixture | sampled | 2 whole of 2 traced launches |"
            in table, "fake matrix: the table has a header and six rows")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodescope")
    parser.add_argument("--bin-dir")
    parser.add_argument("--table", help="write the Markdown results table here")
    parser.add_argument("--cases", help="comma-separated subset of `graph_matrix --list`")
    parser.add_argument("--modes", default="full,sampled")
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--budget", type=int, default=540,
                        help="seconds after which no further run starts (each then FAILs)")
    parser.add_argument("--self-test", action="store_true",
                        help="check the checker on testdata/graph_matrix_trace.json (no GPU)")
    args = parser.parse_args()
    if args.self_test:
        self_test(args)
    if not args.nodescope or not args.bin_dir:
        parser.error("--nodescope and --bin-dir are needed to run the matrix")
    if not gpu_present():
        print("SKIP: no CUDA GPU on this machine")
        sys.exit(SKIP)
    c = Checker("gpu_graph_matrix")
    run_matrix(args, c)
    c.finish()


if __name__ == "__main__":
    main()
