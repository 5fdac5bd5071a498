#!/usr/bin/env python3
"""Writes the `nodes` overview fixtures: 12 one-shot graphs (3 us each), one heavy graph (gemm
100 us + relu 20 us, captured under the range "decode", 10 replays) and eager work outside
graphs (400 launches of an elementwise kernel, 2 us each; one 7 us copy), in graph-id order
12 one-shot graphs first: the order that used to bury the heavy graph.

Usage: make_overview_fixture.py BASE > FILE
  overview_mixed.json:        BASE 0   (graph ids 1..12, heavy 13)
  overview_mixed_ids.json:    BASE 500 (the same graphs under ids 501..513: another run)
"""
import json
import sys

base = int(sys.argv[1]) if len(sys.argv) > 1 else 0
events = [
    {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
]
corr = 1


def kernel(cat, name, ts, dur, correlation, graph=None, ordinal=0, scope=None):
    args = {"device": 0, "stream": 7, "correlation": correlation}
    if graph is not None:
        args["graph id"] = graph
        args["graph node id"] = (graph << 32) | ordinal
    if scope:
        args["scope"] = scope
    events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": ts,
                   "dur": dur, "args": args})


t = 10.0
for g in range(1, 13):
    kernel("kernel", "void init_%d(float*)" % g, t, 3.0, corr, base + g)
    corr += 1
    t += 10
for r in range(10):
    kernel("kernel", "void gemm<128>(float const*, float*)", t, 100.0, corr, base + 13, 0,
           "decode/attn")
    kernel("kernel", "void relu(float*)", t + 101, 20.0, corr, base + 13, 1, "decode/mlp")
    corr += 1
    t += 200
for i in range(400):
    kernel("kernel", "void elementwise(float*)", t, 2.0, corr)
    corr += 1
    t += 3
kernel("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", t, 7.0, corr)

json.dump({"schemaVersion": 1, "displayTimeUnit": "ms",
           "baseTimeNanoseconds": 1700000000000000000, "traceEvents": events},
          sys.stdout, separators=(",", ":"))
sys.stdout.write("\n")
