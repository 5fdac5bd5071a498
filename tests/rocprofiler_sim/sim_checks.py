"""What the end-to-end check scripts on the simulated runtime share: their arguments, a checker
that prints `ok:`/`FAIL:` lines and ends with "<what> checks: all passed" (the line CTest looks
for), and the environment a traced run gets (the simulator's libraries first, no inherited
NODESCOPE_* window settings)."""
import argparse
import os
import sys

# The range scripts' size: how many ranges the service pushes.
RANGES = {"flag": "--ranges", "type": int, "default": 4_000_000}


def parse_args(*extra):
    """--nodescope, --program and --sim-lib-dir, then `extra` (argparse.add_argument keyword
    dicts with a "flag" key, as RANGES)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodescope", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--sim-lib-dir", required=True)
    for e in extra:
        e = dict(e)
        parser.add_argument(e.pop("flag"), **e)
    return parser.parse_args()


class Checker:
    def __init__(self, what):
        self.what = what
        self.failures = []

    def check(self, cond, what):
        print(("ok:   " if cond else "FAIL: ") + what)
        if not cond:
            self.failures.append(what)

    def finish(self):
        if self.failures:
            print(f"{len(self.failures)} {self.what} checks failed")
            sys.exit(1)
        print(f"{self.what} checks: all passed")


def sim_env(sim_lib_dir):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = sim_lib_dir + ":" + env.get("LD_LIBRARY_PATH", "")
    for v in ("NODESCOPE_RING", "NODESCOPE_STREAM", "NODESCOPE_CAPTURE_EVERY", "NODESCOPE_OUTPUT"):
        env.pop(v, None)
    return env
