"""Writes graph_matrix_trace.json and graph_matrix_manifest.txt: the hand-made trace the matrix
checker's self-test reads (test_graph_matrix.py --self-test). One exec (graph id 1), 4 replays
(correlations 11..14) of k<0> -> IF { setc<0> } -> k<1> -> memset 4096 B -> k<2>; after replay 2
set-params swaps k<1> for k<5>, which gets a new node id (ordinal 2^24). Run it from this folder."""
import json

GRAPH = 1
NODE = {"k<0>": 0, "setc<0>": 1, "k<1>": 2, "memset:4096": 3, "k<2>": 4, "k<5>": 1 << 24}
NAMES = {"k<0>": "void k<0>(float*)", "setc<0>": "void setc<0>(unsigned long long, unsigned int)",
         "k<1>": "void k<1>(float*)", "k<2>": "void k<2>(float*)", "k<5>": "void k<5>(float*)"}
events = [
    {"name": "process_name", "ph": "M", "pid": 4242, "tid": 0, "args": {"name": "graph_matrix"}},
    {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
    {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
]
ts = 10.0
for replay in range(4):
    corr = 11 + replay
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 4242,
                   "tid": 4243, "ts": ts, "dur": 3.0, "args": {"cbid": 311, "correlation": corr}})
    ts += 5.0
    for label in ("k<0>", "setc<0>", "k<1>" if replay < 2 else "k<5>", "memset:4096", "k<2>"):
        args = {"device": 0, "stream": 7, "correlation": corr}
        if label.startswith("memset"):
            e = {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)"}
            args["bytes"] = 4096
        else:
            e = {"ph": "X", "cat": "kernel", "name": NAMES[label]}
        args["graph id"] = GRAPH
        args["graph node id"] = (GRAPH << 32) + NODE[label]
        e.update({"pid": 0, "tid": 7, "ts": ts, "dur": 1.5, "args": args})
        events.append(e)
        ts += 2.0
    ts += 5.0
header = {"version": "0.1.0",
          "dropped_records": {"vendor_dropped": 0, "buffers_refused": 0, "store_full": 0,
                              "unknown_records": 0, "total": 0},
          "graph_execs": 1,
          "attribution": {"mode": "native", "new_node_ids": 1, "withheld": {}}}
with open("graph_matrix_trace.json", "w") as f:
    f.write('{\n  "schemaVersion": 1,\n  "nodescope": ' + json.dumps(header, separators=(",", ":"))
            + ',\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1700000000000000000,\n'
            + '  "traceEvents": [\n  '
            + ",\n  ".join(json.dumps(e, separators=(",", ":")) for e in events) + "\n  ]\n}\n")
base = {"k<0>": 1, "setc<0>": 1, "memset:4096": 1, "k<2>": 1}
manifest = {"case": "fixture",
            "phases": [{"replays": 2, "launches": 2, "per_replay": {**base, "k<1>": 1}},
                       {"replays": 2, "launches": 2, "per_replay": {**base, "k<5>": 1}}],
            "keys": {}, "changed": [["k<1>", "k<5>"]], "covers": ["node:conditional_if"],
            "no_records": [], "device_launched": False, "skipped": ""}
with open("graph_matrix_manifest.txt", "w") as f:
    f.write("a line the program printed before\nmanifest "
            + json.dumps(manifest, separators=(",", ":")) + "\n")
