"""Shared helpers of the GPU integration tests: GPU detection (skip = exit 77), running
`nodescope run`, and loading a trace."""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

SKIP = 77


def gpu_present():
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    if cuda.cuInit(0) != 0:
        return False
    count = ctypes.c_int(0)
    return cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


def setup():
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodescope", required=True)
    parser.add_argument("--bin-dir", required=True)
    args = parser.parse_args()
    if not gpu_present():
        print("SKIP: no CUDA GPU on this machine")
        sys.exit(SKIP)
    return args, tempfile.mkdtemp(prefix="nodescope-gpu-")


def require_python(code, what):
    """Skips the test (exit 77) unless `code` runs in this Python: e.g. torch with CUDA."""
    if subprocess.run([sys.executable, "-c", code], capture_output=True).returncode != 0:
        print(f"SKIP: {what} is not installed")
        sys.exit(SKIP)


def example(name):
    """The path of examples/NAME."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", name)


def run_traced(args, out, program_args, **kw):
    cmd = [args.nodescope, "run", "-o", out, "--"] + program_args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def load(path):
    with open(path) as f:
        return json.load(f)


class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = 0
        self.passes = 0

    def check(self, cond, what):
        if cond:
            self.passes += 1
            print(f"  ok   {what}")
        else:
            self.failures += 1
            print(f"  FAIL {what}")

    def finish(self):
        print(f"{self.name}: {self.passes} passed, {self.failures} failed")
        sys.exit(1 if self.failures else 0)


def gpu_events(trace, cats=("kernel", "gpu_memcpy", "gpu_memset")):
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") in cats]
