"""nodescope.profile and nodescope.range over the simulated rocprofiler-sdk (tests/rocprofiler_sim,
built in the CLI's build folder): real sessions on the CPU. Each case runs a script in its own
process (simhip.py drives the simulated runtime), as a session and the SDK are per process.

The library: $NODESCOPE_SIM_LIB, else lib/rocprofiler-sim/librocprofiler-sdk.so.1 of the build
the CLI fixture names (scripts/python_test.sh builds it)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import nodescope

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def sim_lib(cli):
    path = os.environ.get("NODESCOPE_SIM_LIB") or os.path.join(
        os.path.dirname(os.path.dirname(cli)), "lib", "rocprofiler-sim", "librocprofiler-sdk.so.1")
    if not os.path.isfile(path):
        pytest.skip(f"no simulated rocprofiler-sdk at {path} (build target rocprofiler_sim)")
    return path


# The package's AMD backend library: named in ROCP_TOOL_LIBRARIES, the SDK loads it as a tool when
# the runtime initializes (dormant until a session starts), as a program that used the GPU before
# profile() needs (README, "From Python").
TOOL = os.path.join(os.path.dirname(nodescope.__file__), "lib", "libnodescope_rocm.so")


def run_script(sim_lib, tmp_path, body, argv=(), prefix=(), env_extra=None, tool=True,
               prelude=True, timeout=120):
    """Runs `body` in a fresh Python, after a prelude (the sim loaded and, unless `prelude` is
    False, three kernels, a stream and a chain graph: the runtime initialized); `tool`: with
    ROCP_TOOL_LIBRARIES naming the package's AMD backend. Returns the CompletedProcess."""
    script = tmp_path / "script.py"
    head = textwrap.dedent("""\
        import json, os, sys
        sys.path.insert(0, {here!r})
        from simhip import Sim
        sim = Sim()
        import nodescope
        """).format(here=HERE)
    if prelude:
        head += textwrap.dedent("""\
            k = sim.kernels("k_a", "k_b", "k_c")
            s = sim.stream()
            g = sim.chain_graph(k)
            """)
    script.write_text(head + textwrap.dedent(body))
    env = dict(os.environ, NODESCOPE_SIM_LIB=sim_lib,
               LD_LIBRARY_PATH=os.path.dirname(sim_lib) + ":" + os.environ.get("LD_LIBRARY_PATH",
                                                                                 ""))
    for var in ("NODESCOPE_RING", "NODESCOPE_SAMPLE", "NODESCOPE_OUTPUT", "NODESCOPE_ROOT_PID",
                "ROCP_TOOL_LIBRARIES"):
        env.pop(var, None)
    if tool:
        env["ROCP_TOOL_LIBRARIES"] = TOOL
    env.update(env_extra or {})
    return subprocess.run([*prefix, sys.executable, str(script), *argv], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=tmp_path)


def events(path, cat):
    with open(path) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("cat") == cat]


# --- Under `nodescope run --backend rocm`: the package shares the run's libnodescope.so. --------

def test_range_and_profile_under_nodescope_run(cli, sim_lib, tmp_path):
    out = tmp_path / "run.json"
    r = run_script(sim_lib, tmp_path, """
        try:
            nodescope.profile().start()
            print("started")
        except nodescope.ProfilerConflictError as e:
            print("conflict:", e)

        @nodescope.range("step")
        def step():
            sim.replay(g, s, 2)

        with nodescope.range("replays"):
            sim.replay(g, s, 10)
        step()
        sim.sync(s)
        """, prefix=(cli, "run", "--backend", "rocm", "-o", str(out), "--"), tool=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "conflict: this process is already traced as a whole by `nodescope run`" in r.stdout
    spans = [e["name"] for e in events(out, "gpu_user_annotation")]
    assert spans.count("replays") == 1 and spans.count("step") == 1, spans
    t = nodescope.load(str(out))
    nodes = t.nodes()
    assert len(nodes) == 3 and (nodes.replays == 12).all()
    assert t.check()["clean"]


# --- In-process sessions on the simulated AMD backend. ------------------------------------------

@pytest.fixture(scope="module")
def in_process(sim_lib):
    return sim_lib


def test_profile_before_the_runtime_needs_no_tool_variable(in_process, tmp_path):
    """profile() before the first GPU call registers the backend with the SDK itself."""
    out = tmp_path / "early.json"
    r = run_script(in_process, tmp_path, f"""
        with nodescope.profile(output={str(out)!r}, backend="rocm"):
            k = sim.kernels("k_a", "k_b", "k_c")
            s = sim.stream()
            sim.replay(sim.chain_graph(k), s, 4)
            sim.sync(s)
        """, tool=False, prelude=False)
    assert r.returncode == 0, r.stdout + r.stderr
    t = nodescope.load(str(out))
    assert len(t.kernels()) == 12 and t.check()["clean"] and len(t.nodes()) == 3


def test_after_the_runtime_without_the_tool_is_a_clear_error(in_process, tmp_path):
    r = run_script(in_process, tmp_path, """
        try:
            nodescope.profile(backend="rocm").start()
        except nodescope.Error as e:
            print(e.code, e)
        """, tool=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("FAILED_PRECONDITION ") and "ROCP_TOOL_LIBRARIES=" + TOOL in r.stdout


def test_profile_writes_keyed_trace_with_ranges(in_process, tmp_path):
    out = tmp_path / "p.json"
    r = run_script(in_process, tmp_path, f"""
        sim.replay(g, s, 3)  # before the session: not in it
        sim.sync(s)
        with nodescope.profile(output={str(out)!r}, backend="rocm") as p:
            with nodescope.range("replays"):
                sim.replay(g, s, 10)
            sim.launch(k[0], s, 4)
            sim.sync(s)
        print(json.dumps(p.summary()))
        t = p.trace()
        print(json.dumps(dict(nodes=len(t.nodes()), clean=t.check()["clean"])))
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    summary, traced = (json.loads(line) for line in r.stdout.strip().splitlines()[-2:])
    assert summary["kernels"] == 34 and summary["graph_events"] == 30, summary
    assert traced == {"nodes": 3, "clean": True}
    assert [e["name"] for e in events(out, "gpu_user_annotation")] == ["replays"]
    nodes = nodescope.load(str(out)).nodes()
    assert (nodes.replays == 10).all() and (nodes.graph_id >= 0).all()


def test_ring_capture_while_running(in_process, tmp_path):
    out, window = tmp_path / "ring.json", tmp_path / "window.json"
    r = run_script(in_process, tmp_path, f"""
        with nodescope.profile(output={str(out)!r}, backend="rocm", ring="8k") as p:
            sim.replay(g, s, 5)
            sim.sync(s)
            assert p.capture({str(window)!r}) == {str(window)!r}
            sim.replay(g, s, 5)
            sim.sync(s)
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    with open(window) as f:
        w = json.load(f)
    assert w["nodescope"]["window"]["capture"] == 1 and w["nodescope"]["window"]["policy"] \
        .startswith("ring:")
    assert len(events(window, "kernel")) == 15
    assert len(events(out, "kernel")) == 30
    assert nodescope.load(str(window)).check()["clean"]


def test_trace_without_output_uses_a_temporary_file(in_process, tmp_path):
    r = run_script(in_process, tmp_path, """
        p = nodescope.profile(backend="rocm").start()
        sim.replay(g, s, 2)
        sim.sync(s)
        p.stop()
        t = p.trace()
        print(json.dumps(dict(path=p.path, kernels=len(t.kernels()))))
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["kernels"] == 6 and os.path.isfile(got["path"])
    os.unlink(got["path"])


@pytest.mark.parametrize("ending, rc", [("sys.exit(3)", 3), ("pass", 0),
                                        ("raise SystemExit(0)", 0),
                                        ("raise RuntimeError('uncaught')", 1)])
def test_exit_with_a_session_open_writes_a_complete_trace(in_process, tmp_path, ending, rc):
    out = tmp_path / "exit.json"
    r = run_script(in_process, tmp_path, f"""
        nodescope.profile(output={str(out)!r}, backend="rocm").start()
        with nodescope.range("open"):
            sim.replay(g, s, 7)
        {ending}
        """)
    assert r.returncode == rc, r.stdout + r.stderr
    t = nodescope.load(str(out))
    assert len(t.kernels()) == 21 and t.check()["clean"]
    assert "open" in [e["name"] for e in events(out, "gpu_user_annotation")]


def test_second_session_at_once_is_refused(in_process, tmp_path):
    r = run_script(in_process, tmp_path, """
        with nodescope.profile(backend="rocm"):
            try:
                nodescope.profile(backend="rocm").start()
                print("second started")
            except nodescope.Error as e:
                print(type(e).__name__, e)
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("ProfilerConflictError "), r.stdout
    assert "already active" in r.stdout


def test_library_warning_reaches_python(in_process, tmp_path):
    """A real warning of the AMD backend: graphs launched from as many threads as there are
    hardware queues (GPU_MAX_HW_QUEUES=1, one thread) says launches may share queues."""
    r = run_script(in_process, tmp_path, """
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with nodescope.profile(backend="rocm"):
                sim.replay(g, s, 3)
                sim.sync(s)
        got = [(w.category.__name__, str(w.message)) for w in caught]
        print(json.dumps(got))
        """, env_extra={"GPU_MAX_HW_QUEUES": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert any(c == "NodescopeWarning" and "shared_hardware_queues" in m for c, m in got), got


def test_range_decorator_on_threads(in_process, tmp_path):
    out = tmp_path / "threads.json"
    r = run_script(in_process, tmp_path, f"""
        import threading
        @nodescope.range("work")
        def work(stream):
            sim.replay(g, stream, 2)
            sim.sync(stream)
        streams = [sim.stream() for _ in range(3)]
        with nodescope.profile(output={str(out)!r}, backend="rocm"):
            ts = [threading.Thread(target=work, args=(st,)) for st in streams]
            for t in ts: t.start()
            for t in ts: t.join()
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    cpu = [e for e in events(out, "user_annotation") if e["name"] == "work"]
    assert len(cpu) == 3 and len({e["tid"] for e in cpu}) == 3
    assert len([e for e in events(out, "gpu_user_annotation") if e["name"] == "work"]) == 3


def test_stream_writes_parts_and_the_last_part_at_stop(in_process, tmp_path):
    out = tmp_path / "s.json"
    r = run_script(in_process, tmp_path, f"""
        import time
        with nodescope.profile(output={str(out)!r}, backend="rocm", stream=100) as p:
            for _ in range(10):
                sim.replay(g, s, 10)
                sim.sync(s)
                time.sleep(0.05)
        print(json.dumps(p.summary()))
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    parts = sorted(tmp_path.glob("s.part-*.json"))
    assert parts, "no part written while running"
    total = 0
    for f in parts + [out]:
        t = nodescope.load(str(f))
        assert t.check()["clean"], f
        total += len(t.kernels())
    assert total == 300  # each kernel in exactly one file
    with open(out) as f:
        window = json.load(f)["nodescope"]["window"]
    assert window["policy"] == "stream:events=100" and window["part"] == len(parts) + 1


def test_capture_every_writes_captures_while_running(in_process, tmp_path):
    out = tmp_path / "c.json"
    r = run_script(in_process, tmp_path, f"""
        import time
        with nodescope.profile(output={str(out)!r}, backend="rocm", capture_every="100ms"):
            sim.replay(g, s, 10)
            sim.sync(s)
            time.sleep(0.6)
        """)
    assert r.returncode == 0, r.stdout + r.stderr
    captures = sorted(tmp_path.glob("c.capture-*.json"))
    assert len(captures) >= 2, captures
    assert all(len(nodescope.load(str(f)).kernels()) == 30 for f in captures)
    assert len(nodescope.load(str(out)).kernels()) == 30


def test_exit_with_periodic_captures_running(in_process, tmp_path):
    """The session's own capture thread is running when the script ends: the exit hook stops it
    and writes the trace, without hanging."""
    out = tmp_path / "x.json"
    r = run_script(in_process, tmp_path, f"""
        import time
        nodescope.profile(output={str(out)!r}, backend="rocm", capture_every="20ms").start()
        for _ in range(5):
            sim.replay(g, s, 2)
            time.sleep(0.02)
        sys.exit(0)
        """, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(nodescope.load(str(out)).kernels()) == 30
    for f in tmp_path.glob("x.capture-*.json"):
        assert nodescope.load(str(f)).check()["clean"], f


# --- profile(metrics=...): /metrics served by the session (NODESCOPE_METRICS). ------------------

def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _counts(text):
    """{(graph, node): count} of the nodescope_node_duration_seconds_count samples of a scrape."""
    import re

    out = {}
    for m in re.finditer(r'^nodescope_node_duration_seconds_count\{graph="([^"]*)",node="([^"]*)"'
                         r'[^}]*\} (\S+)$', text, re.M):
        out[(m.group(1), m.group(2))] = int(float(m.group(3)))
    return out


def test_profile_metrics_served_over_http(in_process, cli, tmp_path):
    """Scraped while tracing and after stop(): the final counts are those `nodes --json` reads in
    the trace written; OpenMetrics when asked for."""
    port = _free_port()
    out = tmp_path / "m.json"
    r = run_script(in_process, tmp_path, f"""
        import time, urllib.request
        url = "http://127.0.0.1:{port}/metrics"
        with nodescope.profile({str(out)!r}, backend="rocm", metrics={port}) as p:
            for _ in range(10):
                sim.replay(g, s, 5)
                sim.sync(s)
                time.sleep(0.05)
            time.sleep(1.5)  # a graph shows once a replay of it closed (a second after its end)
            during = urllib.request.urlopen(url, timeout=5).read().decode()
        after = urllib.request.urlopen(url, timeout=5).read().decode()
        om = urllib.request.urlopen(urllib.request.Request(
            url, headers={{"Accept": "application/openmetrics-text"}}), timeout=5)
        print(json.dumps(dict(during=during, after=after, om_type=om.headers["Content-Type"],
                              om_end=om.read().decode().endswith("# EOF\\n"))))
        """, env_extra={"NODESCOPE_METRICS_INTERVAL_MS": "100"})
    assert r.returncode == 0, r.stdout + r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert "nodescope_node_duration_seconds_bucket" in got["during"]
    assert got["om_type"].startswith("application/openmetrics-text") and got["om_end"]
    nodes = json.loads(subprocess.run([cli, "nodes", "--json", "--top", "0", "--rows", "0",
                                       str(out)], check=True, capture_output=True,
                                      text=True).stdout)
    want = {(gr["name"], str(n["node_id"] & 0xffffffff)): n["replays"]
            for gr in nodes["graphs"] for n in gr["nodes"]}
    assert want and _counts(got["after"]) == want
    assert all(n == 50 for n in want.values())
    assert all(got_n <= want[k] for k, got_n in _counts(got["during"]).items())


def test_profile_metrics_port_taken_raises_and_traces_nothing(in_process, tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = run_script(in_process, tmp_path, f"""
            p = nodescope.profile(backend="rocm", metrics="127.0.0.1:{port}")
            try:
                p.start()
            except nodescope.Error as e:
                print("refused:", e, "running" if p.running else "not running")
            """)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "refused:" in r.stdout and "Address already in use" in r.stdout, r.stdout
    assert "not running" in r.stdout


def test_profile_metrics_at_fork_and_exit(in_process, tmp_path):
    """A child forked while the session serves never serves: it closes the inherited listening
    socket, so once the parent frees its session the port is free though the child still runs.
    The parent then exits with a second session serving and never stopped: no hang."""
    port, port2 = _free_port(), _free_port()
    r = run_script(in_process, tmp_path, f"""
        import gc, socket, time, urllib.request
        p = nodescope.profile(backend="rocm", metrics={port}).start()
        sim.replay(g, s, 3)
        sim.sync(s)
        child = os.fork()
        if child == 0:
            time.sleep(3)
            os._exit(0)
        print("scrape", len(urllib.request.urlopen("http://127.0.0.1:{port}/metrics",
                                                   timeout=5).read()) > 0)
        p.stop()
        del p
        gc.collect()
        with socket.socket() as again:  # TIME_WAIT of the scrape aside, no one listens on it:
            again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            again.bind(("127.0.0.1", {port}))
            again.listen()  # the child holds no copy of the socket
        print("port free while the child runs", os.waitpid(child, os.WNOHANG)[0] == 0)
        os.waitpid(child, 0)
        nodescope.profile(backend="rocm", metrics={port2}).start()
        sim.replay(g, s, 3)
        sys.exit(0)
        """, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "scrape True" in r.stdout and "port free while the child runs True" in r.stdout, r.stdout
