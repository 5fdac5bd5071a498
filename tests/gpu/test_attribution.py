"""GPU test: every graph case traced by `nodescope run` has no aliased key and every node id
occurs exactly as often as its exec was replayed; for the cases of issue 11 (execs updated in
place), the graph ids, keys and new node ids are exactly what the program prints (one graph id
per exec for its whole life; a new node id only where a node's kernel changed). The exec-update
case is also traced with attribution off, to show what CUPTI's own ids do."""
import collections
import os
import subprocess

from gpu_common import Checker, gpu_events, load, run_traced, setup

args, tmp = setup()
c = Checker("gpu_attribution")
prog = os.path.join(args.bin_dir, "graph_cases")
cases = ["chain", "linear", "fanout4", "fanout2", "update", "setparams", "reinstantiate",
         "threads1", "threads2", "threads4", "threads8", "threads16", "copies",
         "update_every_step", "swap_every_10th", "setparams2", "args_every_replay",
         "enable_toggle", "child", "while"]
NEW_ORDINALS = 1 << 24  # node ordinals at or above this are node ids issued by nodescope


def keyed(trace):
    return [e for e in gpu_events(trace) if "graph id" in e["args"]]


def summarize(trace):
    events = keyed(trace)
    names = collections.defaultdict(set)
    occurrences = collections.Counter()
    for e in events:
        key = (e["args"]["graph id"], e["args"]["graph node id"])
        names[key].add(e["name"])
        occurrences[key] += 1
    aliased = sum(1 for v in names.values() if len(v) > 1)
    graphs = len({k[0] for k in names})
    new = sum(1 for k in names if k[1] & 0xFFFFFFFF >= NEW_ORDINALS)
    return events, graphs, len(names), aliased, occurrences, new


has_check = subprocess.run([args.nodescope, "check", "--help"], capture_output=True).returncode == 0
for case in cases:
    out = os.path.join(tmp, f"{case}.json")
    r = run_traced(args, out, [prog, case])
    if r.returncode != 0:
        c.check(False, f"{case}: program ran ({r.returncode}): {r.stderr[-400:]}")
        continue
    expected = collections.Counter()
    totals = None  # {"graphs": G, "keys": K, "new": M} where the case prints them
    for line in r.stdout.splitlines():
        if line.startswith("expect"):
            f = {k: int(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
            if "graphs" in f:
                totals = f
            else:
                expected[f["replays"]] += f["nodes"]
    t = load(out)
    events, graphs, keys, aliased, occ, new = summarize(t)
    got = collections.Counter(occ.values())
    attribution = t["nodescope"].get("attribution", {})
    withheld = attribution.get("withheld", {})
    print(f"{case:17} events={len(events):6} graph_ids={graphs:3} keys={keys:4} new={new} "
          f"aliased={aliased} withheld={sum(withheld.values())} "
          f"per-key={dict(sorted(got.items()))}")
    c.check(aliased == 0, f"{case}: no aliased key")
    c.check(all(e['args']['graph node id'] >> 32 == e['args']['graph id'] for e in events),
            f"{case}: node >> 32 == graph id")
    c.check(all(e['args']['graph node id'] < 1 << 53 for e in events),
            f"{case}: every key below 2^53 (exact in every JSON reader)")
    if totals is not None:
        c.check((graphs, keys, new) == (totals["graphs"], totals["keys"], totals["new"]),
                f"{case}: graph ids, keys, new node ids ({graphs}, {keys}, {new}) == expected "
                f"({totals['graphs']}, {totals['keys']}, {totals['new']})")
        c.check(attribution.get("new_node_ids") == new,
                f"{case}: header new_node_ids {attribution.get('new_node_ids')} == {new}")
    # Occurrences per key: as many keys with R occurrences as nodes replayed R times.
    want = collections.Counter()
    for replays, nodes in expected.items():
        want[replays] += nodes
    c.check(got == want, f"{case}: per-key occurrences {dict(got)} == expected {dict(want)}")
    c.check(sum(withheld.values()) == 0, f"{case}: nothing withheld ({withheld})")
    if has_check:
        chk = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
        c.check(chk.returncode == 0, f"{case}: nodescope check exits 0")
        if case == "update":
            print(chk.stdout)

# What CUPTI's own ids do on the update case (attribution off): the aliasing we fix.
out = os.path.join(tmp, "update-native.json")
r = run_traced(args, out, [prog, "update"], env={**os.environ,
                                                 "NODESCOPE_DISABLE_GRAPH_ATTRIBUTION": "1"})
events, graphs, keys, aliased, occ, new = summarize(load(out))
print(f"update, attribution off: graph_ids={graphs} keys={keys} aliased={aliased}")
c.check(load(out)["nodescope"]["attribution"]["mode"] == "disabled", "off switch is recorded")
if has_check:
    chk = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
    print(chk.stdout)
    c.check(chk.returncode == (1 if aliased else 0), "nodescope check flags CUPTI's aliasing")
c.finish()
