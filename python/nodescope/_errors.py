"""nodescope's exceptions: every failure of the C++ library arrives as one of these."""
import re

_OFFSET = re.compile(r": byte (\d+)\b")


class Error(Exception):
    """A nodescope failure. ``code`` is the C++ status code's name, ``message`` its text."""

    def __init__(self, message, code="UNKNOWN"):
        super().__init__(message)
        self.message = message
        self.code = code


class TraceError(Error):
    """A trace that cannot be read: malformed, truncated, refused. ``offset`` is the byte where
    the reader stopped (of the decompressed text for a gzip trace), or None."""

    def __init__(self, message, code="DATA_LOSS"):
        super().__init__(message, code)
        m = _OFFSET.search(message)
        self.offset = int(m.group(1)) if m else None


class TraceNotFoundError(Error, FileNotFoundError):
    """The trace file (or directory) does not exist or cannot be opened."""


class InvalidArgumentError(Error, ValueError):
    """A bad argument: an unknown option, an empty list of traces."""


class NodescopeWarning(UserWarning):
    """A warning of the nodescope library (records dropped, a vendor quirk...), as it would
    print on stderr; ``id`` in the message's brackets is its stable id."""


class TraceWarning(NodescopeWarning):
    """A trace that was read, but whose figures need care: aliased node keys (figures mixing
    different nodes), nodes past the limits left out, percentiles from a sample of replays."""


# base/status.h's StatusCode values.
_BY_CODE = {1: InvalidArgumentError, 2: TraceNotFoundError, 6: TraceError, 8: TraceNotFoundError}


def from_status(code, name, message):
    """The exception for a C++ Status (called by the extension)."""
    return _BY_CODE.get(code, Error)(message, name)


# The tracing side (nodescope.profile): the C API reports a failure as "CODE_NAME: message"
# (nodescope_last_error()); the code picks the class, the whole text is the message.


class ProfilerConflictError(Error):
    """Another profiler holds the GPU's tracing interface: another CUPTI client (torch.profiler,
    Nsight Systems, Nsight Compute) or a whole-process ``nodescope run``, or a nodescope session
    already running in this process."""


class NoDeviceError(Error):
    """No GPU, driver or vendor runtime to trace, or no backend library that can load here."""





_SESSION_BY_NAME = {
    "INVALID_ARGUMENT": InvalidArgumentError,
    "NOT_FOUND": InvalidArgumentError,  # backend= names no backend of this build
    "UNAVAILABLE": NoDeviceError,
    "ALREADY_EXISTS": ProfilerConflictError,
}


def session_error(text):
    """The exception for a failed session call: ``text`` is nodescope_last_error(), "CODE: message";
    the exception's message is the library's, its ``code`` the code's name."""
    name, sep, message = text.partition(": ")
    if not sep or not name.replace("_", "").isupper():
        name, message = "UNKNOWN", text
    return _SESSION_BY_NAME.get(name, Error)(message, name)
