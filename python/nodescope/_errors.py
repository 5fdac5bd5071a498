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


class TraceWarning(UserWarning):
    """A trace that was read, but whose figures need care: aliased node keys (figures mixing
    different nodes), nodes past the limits left out, percentiles from a sample of replays."""


# base/status.h's StatusCode values.
_BY_CODE = {1: InvalidArgumentError, 2: TraceNotFoundError, 6: TraceError, 8: TraceNotFoundError}


def from_status(code, name, message):
    """The exception for a C++ Status (called by the extension)."""
    return _BY_CODE.get(code, Error)(message, name)
