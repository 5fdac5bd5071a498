"""The simulated ROCm runtime (tests/rocprofiler_sim: librocprofiler-sdk.so holds the SDK and the
simhip* "HIP" calls) driven from Python through ctypes, for the tracing tests: a few kernels, a
stream, a chain graph replayed. Imported by the scripts test_profile_sim.py runs in subprocesses
(a session and the SDK are per process)."""
import ctypes
import os

P = ctypes.c_void_p


class Sim:
    def __init__(self, path=None):
        path = path or os.environ["NODESCOPE_SIM_LIB"]
        # RTLD_GLOBAL: the SDK's entry points are found in the process, as the real SDK's are.
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        self.lib.simhipLaunchKernel.argtypes = [P, P]
        self.lib.simhipGraphLaunch.argtypes = [P, P]
        self.lib.simhipStreamSynchronize.argtypes = [P]
        self.lib.simhipGraphAddKernelNode.argtypes = [ctypes.POINTER(P), P, ctypes.POINTER(P),
                                                      ctypes.c_size_t, P]

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed: {rc}")

    def kernels(self, *names):
        arr = (ctypes.c_char_p * len(names))(*[n.encode() for n in names])
        out = (P * len(names))()
        self.check(self.lib.simhipModuleLoad(arr, len(names), out), "simhipModuleLoad")
        return [P(f) for f in out]

    def stream(self):
        s = P()
        self.check(self.lib.simhipStreamCreate(ctypes.byref(s)), "simhipStreamCreate")
        return s

    def chain_graph(self, functions):
        """An instantiated graph of the kernels in a chain."""
        g = P()
        self.check(self.lib.simhipGraphCreate(ctypes.byref(g)), "simhipGraphCreate")
        prev = None
        for f in functions:
            n = P()
            deps = (P * 1)(prev) if prev is not None else None
            self.check(self.lib.simhipGraphAddKernelNode(ctypes.byref(n), g, deps,
                                                          1 if prev is not None else 0, f),
                       "simhipGraphAddKernelNode")
            prev = n
        e = P()
        self.check(self.lib.simhipGraphInstantiate(ctypes.byref(e), g), "simhipGraphInstantiate")
        return e

    def launch(self, function, stream, n=1):
        for _ in range(n):
            self.check(self.lib.simhipLaunchKernel(function, stream), "simhipLaunchKernel")

    def replay(self, exec_, stream, n=1):
        for _ in range(n):
            self.check(self.lib.simhipGraphLaunch(exec_, stream), "simhipGraphLaunch")

    def sync(self, stream):
        self.check(self.lib.simhipStreamSynchronize(stream), "simhipStreamSynchronize")
