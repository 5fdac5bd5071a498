#!/usr/bin/env python3
"""The recipe for Python's profile() over the AMD backend, pinned: a Python process that loads
libnodescope.so and the simulated HIP runtime (lib/rocprofiler-sim/librocprofiler-sdk.so.1, whose
simhip* functions have C linkage) with ctypes, and traces a region with
nodescope_start_with_options("backend=rocm"), no `nodescope run`. Each way a Python program can
order things is run in a child interpreter (`--child MODE OUT`):

  load_then_start  runtime library loaded (ctypes, RTLD_LOCAL), session started before its
                   first call: the backend finds the SDK by its soname and registers its tool
  start_first      session started before the runtime is loaded, LD_LIBRARY_PATH naming the
                   SDK's folder: the backend loads it; without that, refused saying so
  runtime_first    session after the runtime's first call: refused, naming ROCP_TOOL_LIBRARIES;
                   with ROCP_TOOL_LIBRARIES set, traced
  open_at_exit     session left open when the interpreter exits: no hang, exit status 0

Each trace holds the 10 graph kernels (a chain of 2 replayed 5 times) with keys and the direct
launch, and passes `nodescope check`. Prints "region ctypes checks: all passed"."""
import ctypes
import json
import os
import subprocess
import sys


def child(mode, out, lib_dir, sim_lib):
    ns = ctypes.CDLL(os.path.join(lib_dir, "libnodescope.so"))
    ns.nodescope_start_with_options.restype = ctypes.c_void_p
    ns.nodescope_start_with_options.argtypes = [ctypes.c_char_p]
    ns.nodescope_last_error.restype = ctypes.c_char_p
    ns.nodescope_stop.argtypes = [ctypes.c_void_p]
    ns.nodescope_destroy.argtypes = [ctypes.c_void_p]
    ns.nodescope_write.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

    def start():
        s = ns.nodescope_start_with_options(b"backend=rocm")
        if not s:
            print("refused:", ns.nodescope_last_error().decode())
            sys.exit(0)
        return s

    s = start() if mode == "start_first" else None
    sim = ctypes.CDLL(sim_lib)
    if mode in ("load_then_start", "open_at_exit"):
        s = start()
    ptr = ctypes.c_void_p
    funcs = (ptr * 2)()
    assert sim.simhipModuleLoad((ctypes.c_char_p * 2)(b"py_k0", b"py_k1"), 2, funcs) == 0
    stream = ptr()
    assert sim.simhipStreamCreate(ctypes.byref(stream)) == 0
    if mode == "runtime_first":
        s = start()
    graph, n0, n1, exec_ = ptr(), ptr(), ptr(), ptr()
    assert sim.simhipGraphCreate(ctypes.byref(graph)) == 0
    assert sim.simhipGraphAddKernelNode(ctypes.byref(n0), graph, None, ctypes.c_size_t(0),
                                        ptr(funcs[0])) == 0
    assert sim.simhipGraphAddKernelNode(ctypes.byref(n1), graph, ctypes.byref(n0),
                                        ctypes.c_size_t(1), ptr(funcs[1])) == 0
    assert sim.simhipGraphInstantiate(ctypes.byref(exec_), graph) == 0
    for _ in range(5):
        assert sim.simhipGraphLaunch(exec_, stream) == 0
    assert sim.simhipLaunchKernel(ptr(funcs[0]), stream) == 0
    assert sim.simhipDeviceSynchronize() == 0
    if mode == "open_at_exit":
        sys.exit(0)
    assert ns.nodescope_stop(s) == 0, ns.nodescope_last_error()
    assert ns.nodescope_write(s, out.encode()) == 0, ns.nodescope_last_error()
    ns.nodescope_destroy(s)
    print("written")


def main():
    import argparse
    import tempfile
    from sim_checks import Checker

    p = argparse.ArgumentParser()
    p.add_argument("--nodescope", required=True)
    p.add_argument("--lib-dir", required=True, help="the folder of libnodescope.so")
    p.add_argument("--sim-lib-dir", required=True)
    args = p.parse_args()
    checker = Checker("region ctypes")
    check = checker.check
    sim_lib = os.path.join(args.sim_lib_dir, "librocprofiler-sdk.so.1")
    base = dict(os.environ)
    for v in ("ROCP_TOOL_LIBRARIES", "NODESCOPE_ROOT_PID", "NODESCOPE_OUTPUT", "NODESCOPE_RING",
              "NODESCOPE_STREAM", "LD_LIBRARY_PATH"):
        base.pop(v, None)

    def run(mode, out, **env):
        r = subprocess.run([sys.executable, __file__, "--child", mode, out, args.lib_dir, sim_lib],
                           env=dict(base, **env), capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"{mode} {sorted(env)}: exit {r.returncode}" +
              ("" if r.returncode == 0 else f": {r.stderr[-500:]}"))
        return r.stdout

    def traced(mode, out, stdout):
        if "written" not in stdout or not os.path.exists(out):
            check(False, f"{mode}: trace written ({stdout.strip()})")
            return
        c = subprocess.run([args.nodescope, "check", out], capture_output=True, text=True)
        check(c.returncode == 0 and "clean" in c.stdout, f"{mode}: nodescope check clean")
        with open(out) as f:
            kernels = [e for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"]
        keyed = sum("graph id" in e["args"] for e in kernels)
        check(len(kernels) == 11 and keyed == 10,
              f"{mode}: 11 kernels, 10 with graph keys ({len(kernels)}, {keyed})")

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "load_then_start.json")
        traced("load_then_start", out, run("load_then_start", out))
        out = os.path.join(tmp, "start_first.json")
        traced("start_first", out, run("start_first", out, LD_LIBRARY_PATH=args.sim_lib_dir))
        stdout = run("start_first", os.path.join(tmp, "no_path.json"))
        check("refused:" in stdout and "librocprofiler-sdk.so.1" in stdout and
              "LD_LIBRARY_PATH" in stdout, f"start_first, SDK not on the loader path: refused "
              f"saying so ({stdout.strip()})")
        stdout = run("runtime_first", os.path.join(tmp, "refused.json"))
        check("refused:" in stdout and "ROCP_TOOL_LIBRARIES=" in stdout,
              f"runtime_first: refused naming ROCP_TOOL_LIBRARIES ({stdout.strip()})")
        out = os.path.join(tmp, "runtime_first.json")
        tool = os.path.join(args.lib_dir, "libnodescope_rocm.so")
        traced("runtime_first+ROCP_TOOL_LIBRARIES", out,
               run("runtime_first", out, ROCP_TOOL_LIBRARIES=tool))
        run("open_at_exit", os.path.join(tmp, "open.json"))
    checker.finish()


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child(*sys.argv[2:])
    else:
        main()
