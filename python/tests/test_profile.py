"""nodescope.profile and nodescope.range on the CPU, no GPU or vendor runtime needed: options
checked (types here, values by the library, which names the key), errors chosen by the
library's status code, ranges as context managers and decorators, the message handler, fork.
Sessions that trace are in test_profile_sim.py (the simulated rocprofiler-sdk)."""
import logging
import os
import subprocess
import sys
import threading

import pytest

import nodescope
from nodescope import _tracing


@pytest.mark.parametrize("kwargs, key", [
    (dict(sample=0), "sample"),
    (dict(sample_burst=99), "sample_burst"),
    (dict(ring="lots"), "ring"),
    (dict(max_buffers=1), "max_buffers"),
    (dict(max_events="many"), "max_events"),
    (dict(buffer_size_mb=5000), "buffer_size_mb"),
    (dict(stream=1000), "stream"),            # parts are named after output=: none given
    (dict(capture_every="60s"), "capture_every"),
    (dict(stream="lots", output="t.json"), "stream"),
    (dict(metrics="nope:x"), "metrics"),
    (dict(metrics_series=0), "metrics_series"),
])
def test_bad_option_values_raise_invalid_argument_naming_the_key(kwargs, key):
    with pytest.raises(nodescope.InvalidArgumentError) as e:
        with nodescope.profile(**kwargs):
            pytest.fail("a session started with a bad option")
    assert key in str(e.value)
    assert e.value.code == "INVALID_ARGUMENT"
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize("kwargs", [dict(sample=1.5), dict(ring=[1]), dict(sample=True),
                                    dict(backend=3), dict(disable_graph_attribution="yes")])
def test_bad_option_types_raise_type_error_naming_the_key(kwargs):
    key = next(iter(kwargs))
    with pytest.raises(TypeError, match=f"profile\\(\\): {key} must be"):
        nodescope.profile(**kwargs)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError):
        nodescope.profile(smaple=10)  # noqa -- the typo is the point


def test_separator_in_a_value_is_refused_before_the_library_sees_it():
    with pytest.raises(nodescope.InvalidArgumentError, match="ring="):
        nodescope.profile(ring="64k;sample=2")
    with pytest.raises(nodescope.InvalidArgumentError, match="output="):
        nodescope.profile("a;b.json", stream=10)
    nodescope.profile("a;b.json")  # the path reaches the library only with stream/capture_every


def test_output_is_passed_with_stream_and_capture_every():
    assert nodescope.profile("t.json", stream="10k").options == "stream=10k;output=t.json"
    assert nodescope.profile("t.json", capture_every=60).options == "capture_every=60s;output=t.json"
    assert nodescope.profile("t.json", ring="1M").options == "ring=1M"


def test_metrics_is_passed_as_written_or_as_a_port():
    assert nodescope.profile(metrics=9400).options == "metrics=9400"
    assert (nodescope.profile(metrics="0.0.0.0:9400", metrics_series=50).options ==
            "metrics=0.0.0.0:9400;metrics_series=50")
    with pytest.raises(TypeError, match="metrics must be"):
        nodescope.profile(metrics=9400.0)


def test_options_are_mapped_to_the_c_api_string():
    p = nodescope.profile("t.json", backend="rocm", sample=10, sample_burst="2", ring="64k",
                          max_events=100, disable_graph_attribution=True)
    assert p.options == ("backend=rocm;sample=10;sample_burst=2;ring=64k;max_events=100;"
                         "disable_graph_attribution=1")
    assert p.output == "t.json" and not p.running


def test_unknown_backend_is_an_invalid_argument():
    with pytest.raises(nodescope.InvalidArgumentError, match="no backend named 'bogus'"):
        nodescope.profile(backend="bogus").start()


def test_backend_without_its_runtime_raises_no_device_error():
    # No rocprofiler-sdk in this process or on the loader path: the library says so.
    if "rocprofiler-sim" in os.environ.get("LD_LIBRARY_PATH", ""):
        pytest.skip("the simulated rocprofiler-sdk is on the loader path")
    with pytest.raises(nodescope.NoDeviceError, match="rocprofiler-sdk") as e:
        with nodescope.profile(backend="rocm"):
            pass
    assert e.value.code == "UNAVAILABLE" and isinstance(e.value, nodescope.Error)


def _gpu_present():
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value


def test_default_backend_without_a_gpu_raises_no_device_error():
    """On a machine without a GPU (CI), the default backend (CUDA's when the package has it)
    says there is no driver or device: not CUPTI's bare CUPTI_ERROR_UNKNOWN."""
    if _gpu_present() or "rocprofiler-sim" in os.environ.get("LD_LIBRARY_PATH", ""):
        pytest.skip("a GPU (or the simulated runtime) is here")
    with pytest.raises(nodescope.NoDeviceError) as e:
        nodescope.profile().start()
    assert e.value.code == "UNAVAILABLE"
    assert "driver" in str(e.value) or "device" in str(e.value) or "rocprofiler" in str(e.value)


def test_methods_out_of_order_raise_error():
    p = nodescope.profile()
    for call in (p.stop, p.summary, p.trace, lambda: p.capture("x.json"), p.write):
        with pytest.raises(nodescope.Error, match="profile\\(\\)"):
            call()


def test_session_error_mapping():
    from nodescope._errors import session_error

    e = session_error("ALREADY_EXISTS: cuptiSubscribe: another CUPTI client is already attached")
    assert type(e) is nodescope.ProfilerConflictError and e.code == "ALREADY_EXISTS"
    assert str(e) == "cuptiSubscribe: another CUPTI client is already attached"
    assert type(session_error("UNAVAILABLE: no GPU")) is nodescope.NoDeviceError
    assert type(session_error("INTERNAL: boom")) is nodescope.Error
    assert session_error("no code here").code == "UNKNOWN"


def test_range_outside_a_session_is_harmless():
    with nodescope.range("outside") as r:
        assert r.name == "outside"
    t = nodescope.range("t")
    with t:
        with t:  # the same object nests: push, push, pop, pop
            pass


def test_range_as_a_decorator_keeps_the_function():
    @nodescope.range("step")
    def step(x, *, y=1):
        """doc"""
        return x + y

    assert step(1, y=2) == 3
    assert step.__name__ == "step" and step.__doc__ == "doc"


def test_range_pops_when_the_block_raises():
    with pytest.raises(KeyError):
        with nodescope.range("raises"):
            raise KeyError("x")


def test_range_name_must_be_str():
    with pytest.raises(TypeError):
        nodescope.range(b"bytes")


def test_ranges_on_many_threads():
    def work():
        for i in range(1000):
            with nodescope.range(f"r{i % 7}"):
                pass

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_messages_go_to_warnings_and_logging(caplog):
    with pytest.warns(nodescope.NodescopeWarning, match=r"something odd \[odd_id\]"):
        _tracing._on_message(2, "odd_id", "something odd")
    with caplog.at_level(logging.DEBUG, logger="nodescope"):
        _tracing._on_message(3, "err_id", "it failed")
        _tracing._on_message(1, "note_id", "a note")
    levels = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "nodescope"]
    assert (logging.ERROR, "it failed [err_id]") in levels
    assert (logging.INFO, "a note [note_id]") in levels


def test_messages_from_a_native_thread(caplog):
    """The extension's handler on a thread Python never saw (as a vendor's): it takes the GIL."""
    from nodescope import _tracing_ext

    with pytest.warns(nodescope.NodescopeWarning, match=r"from C \[native_id\]"):
        _tracing_ext._message_from_native_thread(2, "native_id", "from C")
    with caplog.at_level(logging.INFO, logger="nodescope"):
        _tracing_ext._message_from_native_thread(1, "note_id", "a note from C")
    assert any(r.getMessage() == "a note from C [note_id]" for r in caplog.records)


def test_warning_from_another_thread_then_exit():
    """A message handled on another thread reaches warnings; the process then exits 0 with no
    hang (the exit hook removes the handler). In a subprocess: it exercises interpreter exit."""
    code = r"""
import threading, warnings, nodescope
got = []
warnings.showwarning = lambda message, category, *a, **k: got.append((category.__name__, str(message)))
t = threading.Thread(target=lambda: nodescope._tracing._on_message(2, "t_id", "from a thread"))
t.start(); t.join()
assert got == [("NodescopeWarning", "from a thread [t_id]")], got
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_fork_child_does_not_inherit_a_session():
    p = nodescope.profile()
    p._state = "running"  # a session as the parent holds one, without a backend

    class FakeSession:
        owned = True
        abandoned = False

        def abandon(self):
            FakeSession.abandoned = True

    p._session = FakeSession()
    with _tracing._active_lock:
        _tracing._active.add(p)
    try:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the handle is dropped, and its methods say why
            ok = FakeSession.abandoned and p._state == "forked" and not _tracing._active
            try:
                p.stop()
                ok = False
            except nodescope.Error as e:
                ok = ok and "parent process" in str(e)
            os.write(w, b"1" if ok else b"0")
            os._exit(0)
        os.close(w)
        assert os.read(r, 1) == b"1"
        os.waitpid(pid, 0)
        assert p._state == "running" and not FakeSession.abandoned  # the parent's is untouched
    finally:
        with _tracing._active_lock:
            _tracing._active.discard(p)


def test_no_warning_on_import():
    r = subprocess.run([sys.executable, "-W", "error", "-c", "import nodescope"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_public_names():
    for name in ("profile", "range", "NodescopeWarning", "NoDeviceError", "ProfilerConflictError",
                 "InvalidArgumentError", "Error"):
        assert name in nodescope.__all__ and hasattr(nodescope, name)
    assert issubclass(nodescope.NodescopeWarning, UserWarning)
    assert issubclass(nodescope.ProfilerConflictError, nodescope.Error)
    assert not issubclass(nodescope.NoDeviceError, nodescope.InvalidArgumentError)
