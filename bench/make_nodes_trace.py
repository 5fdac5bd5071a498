#!/usr/bin/env python3
"""Writes a Chrome-trace JSON of GRAPHS graphs of NODES kernel nodes each, every graph replayed
REPLAYS times (one cudaGraphLaunch per replay, its kernels one after the other on one stream),
plus one eager kernel per replay, for timing `nodescope nodes` against `nodescope check` on a
trace with many nodes (bench/nodes_vs_check.sh). Durations carry noise (a deterministic LCG), so
sorting or selecting them is real work.

  bench/make_nodes_trace.py GRAPHS NODES REPLAYS [--dag] > trace.json

With --dag each graph's DAG, a chain of its nodes, is written too ("nodescopeGraphs",
docs/TRACE-DAG.md), so `nodes` computes the critical path; the events are the same.
"""

import sys


def main():
    graphs, nodes, replays = (int(a) for a in sys.argv[1:4])
    dag = "--dag" in sys.argv[4:]
    out = sys.stdout
    out.write('{\n  "schemaVersion": 1,\n  "baseTimeNanoseconds": 1700000000000000000,\n')
    if dag:
        out.write('  "nodescopeGraphs": [\n')
        for g in range(graphs):
            graph = 2 + g
            ids = [(graph << 32) | k for k in range(nodes)]
            node_list = ",".join(f'[{i},"kernel",0]' for i in ids)
            edge_list = ",".join(f'[{a},{b},"full"]' for a, b in zip(ids, ids[1:]))
            out.write(('    ' if g == 0 else ',\n    ') +
                      f'{{"graph id":{graph},"device":0,"complete":true,"nodes":[{node_list}],'
                      f'"edges":[{edge_list}],"renamed":[]}}')
        out.write('\n  ],\n')
    out.write('  "traceEvents": [\n')
    state = 12345
    ts = 1000.0
    corr = 100
    first = True
    for replay in range(replays):
        for g in range(graphs):
            graph = 2 + g
            corr += 1
            lines = ['{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1000,'
                     f'"tid":1000,"ts":{ts - 5:.3f},"dur":4.000,"args":{{"correlation":{corr}}}}}']
            for k in range(nodes):
                state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
                dur = 2.0 + (k % 7) + (state >> 40) / float(1 << 24)
                lines.append(
                    f'{{"ph":"X","cat":"kernel","name":"kernel_{k % 97}_g{g % 13}","pid":0,'
                    f'"tid":7,"ts":{ts:.3f},"dur":{dur:.3f},"args":{{"device":0,"stream":7,'
                    f'"correlation":{corr},"graph id":{graph},'
                    f'"graph node id":{(graph << 32) | k}}}}}')
                ts += dur + 1.0
            ts += 3.0
            out.write(('' if first else ',\n') + ',\n'.join(lines))
            first = False
        out.write(',\n{"ph":"X","cat":"kernel","name":"eager_elementwise","pid":0,"tid":7,'
                  f'"ts":{ts:.3f},"dur":7.500,"args":{{"device":0,"stream":7,"correlation":0}}}}')
        ts += 10.0
    out.write('\n  ],\n  "traceName": ""\n}\n')


if __name__ == "__main__":
    main()
