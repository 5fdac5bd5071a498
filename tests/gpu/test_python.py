"""GPU test: tracing from Python (issue 26). Installs ./python into a fresh venv the way a user
would (pip, no package index), runs its pytest suite there, then torch programs under
nodescope.profile():
  graph     a training step (MLP + optimizer) captured in a torch.cuda.CUDAGraph (before the
            session, then inside it) and replayed inside profile(output=...), a nodescope.range
            around the replays: keyed nodes, `check` clean, the range on the device timeline;
            ring= and capture() mid-run;
  compile   a torch.compile(mode="reduce-overhead") model run several times inside profile();
  conflict  profile() while torch.profiler traces CUDA: ProfilerConflictError, no crash;
  exit      scripts that exit (sys.exit(3), end of script) with a session open: a complete trace;
  run       `nodescope run` of a script importing nodescope before CUDA: traced, its range in
            the run's trace, profile() refused as already traced.
The build reads CMAKE_ARGS and CMAKE_PREFIX_PATH from the environment (where simdjson, CLI11...
live when they are not the system's). Skipped (77) without a GPU or torch with CUDA."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

from gpu_common import Checker, gpu_events, load, require_python, setup

args, tmp = setup()
require_python("import torch; assert torch.cuda.is_available()", "torch with CUDA")
c = Checker("gpu_python")
root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# The package, installed as a user would: a venv that sees this Python's torch and pandas.
venv = os.path.join(tmp, "venv")
subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
py = os.path.join(venv, "bin", "python")
if sys.prefix != sys.base_prefix:
    # This Python is itself a venv (the GPU machine's /opt/torch/.venv): a venv made from it sees
    # the base interpreter's packages, not this one's, so its site-packages are named in a .pth.
    import site
    here = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(here, "parent_venv.pth"), "w") as f:
        f.write("\n".join(site.getsitepackages()) + "\n")
env = dict(os.environ)
if "CUDAToolkit_ROOT" not in env and os.path.exists("/usr/local/cuda/bin/nvcc"):
    env["CUDAToolkit_ROOT"] = "/usr/local/cuda"  # the CUDA backend needs CUPTI's headers
    env["PATH"] = "/usr/local/cuda/bin:" + env.get("PATH", "")
print("CMAKE_ARGS:", env.get("CMAKE_ARGS", ""), "| CMAKE_PREFIX_PATH:",
      env.get("CMAKE_PREFIX_PATH", ""))
r = subprocess.run([py, "-c", "import setuptools, pybind11; print(pybind11.__version__)"],
                   capture_output=True, text=True)
c.check(r.returncode == 0, "setuptools and pybind11 importable in the venv (from this Python's "
        f"site-packages; no package index is used): {r.stdout.strip()} {r.stderr[-300:]}")
# A build folder left by another machine's install would not match this one.
shutil.rmtree(os.path.join(root, "python", "build"), ignore_errors=True)
t0 = time.monotonic()
r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                    os.path.join(root, "python")], capture_output=True, text=True, env=env,
                   timeout=1200)
install_s = time.monotonic() - t0
print(r.stdout[-3000:], r.stderr[-6000:])
c.check(r.returncode == 0, f"pip install ./python ({install_s:.0f} s, "
        f"CMAKE_BUILD_PARALLEL_LEVEL={env.get('CMAKE_BUILD_PARALLEL_LEVEL', 'all cores')})")
if r.returncode != 0:
    c.finish()
r = subprocess.run([py, "-c", "import nodescope, os; d = os.path.dirname(nodescope.__file__); "
                    "print(' '.join(sorted(os.listdir(os.path.join(d, 'lib')))))"],
                   capture_output=True, text=True, cwd=tmp)
print("nodescope/lib:", r.stdout.strip(), r.stderr[-2000:])
c.check("libnodescope.so" in r.stdout.split() and "libnodescope_cuda.so" in r.stdout.split(),
        "the package holds libnodescope.so and the CUDA backend (CUPTI found at build time)")

# The package's own tests (CPU side, and the simulated AMD backend where it is built).
if subprocess.run([py, "-c", "import pytest"], capture_output=True).returncode == 0:
    r = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
                        os.path.join(root, "python", "tests"), os.path.join(root, "python", "tests")],
                       capture_output=True, text=True, cwd=tmp, timeout=900,
                       env=dict(env, NODESCOPE_CLI=args.nodescope))
    print(r.stdout[-4000:], r.stderr[-3000:])
    c.check(r.returncode == 0, "pytest python/tests passes in the venv")
else:
    print("note: pytest is not installed here: python/tests not run")


def run_script(name, body, expect_rc=0):
    """Runs `body` with the venv's Python, from tmp (so the installed package is imported);
    returns the JSON its last stdout line holds, or None."""
    path = os.path.join(tmp, f"{name}.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(body))
    t = time.monotonic()
    r = subprocess.run([py, path], capture_output=True, text=True, cwd=tmp, timeout=900, env=env)
    print(f"--- {name} ({time.monotonic() - t:.0f} s, exit {r.returncode})")
    print(r.stdout[-3000:], r.stderr[-5000:])
    c.check(r.returncode == expect_rc, f"{name}: exits {expect_rc} (got {r.returncode})")
    lines = r.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None


# Shared by the scripts: the trace's keyed nodes and check, as nodescope.load reads them.
REPORT = """
import json
def report(t, **extra):
    nodes, check = t.nodes(), t.check()
    kernels = t.kernels()
    print(json.dumps(dict(
        nodes=len(nodes), keyed=int(((nodes.graph_id >= 0) & (nodes.node_id >= 0)).sum()),
        graphs=int(nodes.graph_id.nunique()), clean=bool(check["clean"]),
        replays_min=int(nodes.replays.min()) if len(nodes) else 0,
        verdict=check["verdict"], kernels=int((kernels.cat == "kernel").sum()),
        graph_kernels=int((kernels.graph_id >= 0).sum()), **extra)))
"""

# (1) A training step captured in a CUDA graph, replayed inside profile(): the graph captured
# before the session (the usual way: capture once, profile a while), then inside it.
for when in ("before", "inside"):
    graph_out = os.path.join(tmp, f"graph_{when}.json")
    capture_out = os.path.join(tmp, f"graph_{when}_window.json")
    res = run_script(f"graph_{when}", REPORT + f"""
import torch, nodescope
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 256), torch.nn.ReLU(),
                            torch.nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)  # no optimizer state to allocate in capture
x = torch.randn(64, 256, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
loss_fn = torch.nn.CrossEntropyLoss()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):  # warm-up on a side stream, as torch's docs do before capture
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
torch.cuda.current_stream().wait_stream(s)
torch.cuda.synchronize()

def capture():
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return g, loss

if {when!r} == "before":
    g, loss = capture()
    torch.cuda.synchronize()
with nodescope.profile(output={graph_out!r}, ring="1M") as p:
    if {when!r} == "inside":
        g, loss = capture()
    with nodescope.range("replays"):
        for i in range(20):
            g.replay()
            if i == 9:
                torch.cuda.synchronize()
                p.capture({capture_out!r})
    torch.cuda.synchronize()
summary = p.summary()
w = nodescope.load({capture_out!r}).kernels()
report(p.trace(), summary=summary, window_graph_kernels=int((w.graph_id >= 0).sum()),
       loss=float(loss))
""")
    if res:
        c.check(res["keyed"] > 0 and res["keyed"] == res["nodes"],
                f"graph ({when}): t.nodes() rows keyed (graph_id, node_id): "
                f"{res['keyed']}/{res['nodes']}")
        c.check(res["clean"], f"graph ({when}): t.check() clean ({res['verdict']})")
        c.check(res["replays_min"] == 20 and res["graph_kernels"] == 20 * res["nodes"],
                f"graph ({when}): every node in each of the 20 replays ({res['graph_kernels']} "
                f"GPU events for {res['nodes']} nodes, fewest replays {res['replays_min']})")
        c.check(res["summary"]["graph_events"] > 0 and res["summary"]["kernels"] > 0,
                f"graph ({when}): p.summary() counts graph events ({res['summary']})")
        c.check(res["window_graph_kernels"] > 0,
                f"graph ({when}): p.capture() mid-run wrote a window with graph kernels "
                f"({res['window_graph_kernels']})")
        spans = [e for e in load(graph_out)["traceEvents"]
                 if e.get("cat") == "gpu_user_annotation"]
        c.check(any(e["name"] == "replays" for e in spans),
                f"graph ({when}): nodescope.range('replays') on the device timeline")

# (2) torch.compile(mode="reduce-overhead"): CUDA graphs made by torch, replayed by it.
res = run_script("compile", REPORT + f"""
import torch, nodescope
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.GELU(),
                            torch.nn.Linear(256, 128)).cuda().eval()
fn = torch.compile(model, mode="reduce-overhead")
x = torch.randn(32, 128, device="cuda")
with torch.no_grad():
    with nodescope.profile(output={os.path.join(tmp, "compile.json")!r}) as p:
        for _ in range(12):
            out = fn(x)
        torch.cuda.synchronize()
report(p.trace(), summary=p.summary())
""")
if res:
    c.check(res["keyed"] > 0, f"compile: keyed nodes ({res['keyed']} of {res['nodes']})")
    c.check(res["clean"], f"compile: t.check() clean ({res['verdict']})")

# (3) torch.profiler already traces CUDA: a clear ProfilerConflictError, and the program goes on.
res = run_script("conflict", """
import json, torch, nodescope
x = torch.randn(256, 256, device="cuda")
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
result = {"raised": None, "message": ""}
with torch.profiler.profile(activities=acts) as prof:
    (x @ x).sum().item()
    try:
        with nodescope.profile():
            (x @ x).sum().item()
    except nodescope.Error as e:
        result = {"raised": type(e).__name__, "message": str(e)}
    (x @ x).sum().item()
result["torch_events"] = len(prof.events())
torch.cuda.synchronize()
print(json.dumps(result))
""")
if res:
    c.check(res["raised"] == "ProfilerConflictError",
            f"conflict: profile() under torch.profiler raises ProfilerConflictError "
            f"(got {res['raised']}: {res['message']})")
    c.check("another CUPTI client" in res["message"] and "torch.profiler" in res["message"],
            "conflict: the message names the cause")
    c.check(res["torch_events"] > 0, "conflict: torch.profiler still works after")

# (4) Exit with a session open: the atexit hook writes a complete trace.
for how, tail, rc in (("sys_exit", "sys.exit(3)", 3), ("end", "pass", 0)):
    out = os.path.join(tmp, f"exit_{how}.json")
    run_script(f"exit_{how}", f"""
import sys, torch, nodescope
x = torch.randn(512, 512, device="cuda")
nodescope.profile(output={out!r}).start()
for _ in range(50):
    x = torch.tanh(x @ x)
{tail}
""", expect_rc=rc)
    try:
        kernels = gpu_events(load(out), ("kernel",))
        c.check(len(kernels) >= 100, f"exit ({how}): the trace is complete ({len(kernels)} kernels)")
        r = subprocess.run([py, "-c", f"import nodescope; print(len(nodescope.load({out!r})"
                            ".kernels()))"], capture_output=True, text=True, cwd=tmp)
        c.check(r.returncode == 0 and int(r.stdout or 0) >= 100,
                f"exit ({how}): nodescope.load reads it ({r.stdout.strip()} rows) {r.stderr[-500:]}")
    except (OSError, ValueError) as e:
        c.check(False, f"exit ({how}): trace readable ({e})")

# (5) Under `nodescope run`, `import nodescope` before the first CUDA call: the package uses the
# run's libnodescope.so (else the run's backend would find the package's copy and refuse it):
# the range lands in the run's trace, and profile() says the process is already traced.
out = os.path.join(tmp, "under_run.json")
script = os.path.join(tmp, "under_run.py")
with open(script, "w") as f:
    f.write(textwrap.dedent("""
        import nodescope
        import torch
        x = torch.randn(256, 256, device="cuda")
        try:
            nodescope.profile().start()
            print("profile started")
        except nodescope.ProfilerConflictError as e:
            print("conflict:", e)
        with nodescope.range("under_run"):
            for _ in range(10):
                x = torch.tanh(x @ x)
        torch.cuda.synchronize()
        """))
r = subprocess.run([args.nodescope, "run", "-o", out, "--", py, script], capture_output=True,
                   text=True, cwd=tmp, timeout=300, env=env)
print("--- under_run", r.returncode, r.stdout[-2000:], r.stderr[-3000:])
c.check(r.returncode == 0, f"under nodescope run: exit 0, traced (got {r.returncode})")
c.check("conflict: this process is already traced as a whole" in r.stdout,
        "under nodescope run: profile() raises ProfilerConflictError")
try:
    spans = [e for e in load(out)["traceEvents"] if e.get("cat") == "gpu_user_annotation"]
    c.check(any(e["name"] == "under_run" for e in spans),
            "under nodescope run: nodescope.range() is in the run's trace, on the device")
except (OSError, ValueError) as e:
    c.check(False, f"under nodescope run: trace readable ({e})")

print(f"pip install time: {install_s:.0f} s")
c.finish()
