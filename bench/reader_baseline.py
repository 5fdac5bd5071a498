#!/usr/bin/env python3
"""The naive baseline for bench/reader_bench.cc: Python's json.load of a trace and a walk over its
events (counting those with graph keys). Usage: reader_baseline.py TRACE [RUNS]"""
import json
import os
import statistics
import sys
import time


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        with open(path, "rb") as f:
            doc = json.load(f)
        events = keyed = 0
        for event in doc["traceEvents"]:
            events += 1
            args = event.get("args")
            if args and "graph id" in args and "graph node id" in args:
                keyed += 1
        times.append(time.perf_counter() - start)
        del doc
    median = statistics.median(times)
    print(f"python {sys.version.split()[0]} json.load + walk: median {median:.2f} s of {runs}, "
          f"{os.path.getsize(path) / median / 1e6:.1f} MB/s, {events} events, {keyed} keyed")


if __name__ == "__main__":
    main()
