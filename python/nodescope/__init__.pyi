import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import pandas

_Path = Union[str, os.PathLike]

class Error(Exception):
    message: str
    code: str
    def __init__(self, message: str, code: str = ...) -> None: ...

class TraceError(Error):
    offset: Optional[int]

class TraceNotFoundError(Error, FileNotFoundError): ...
class InvalidArgumentError(Error, ValueError): ...

class Plot:
    """A picture made by Trace.plot: an SVG or HTML document."""

    text: str
    format: str  # "svg" or "html"
    left_out: Dict[str, Union[int, float]]
    def __init__(self, text: str, format: str, left_out: Dict[str, Union[int, float]]) -> None: ...
    def _repr_svg_(self) -> Optional[str]: ...
    def _repr_html_(self) -> Optional[str]: ...
    def save(self, path: _Path) -> None: ...

class Trace:
    """Traces read and checked by load(); tables computed by nodescope's C++ library."""

    paths: List[str]
    def nodes(self) -> pandas.DataFrame: ...
    def graphs(self) -> pandas.DataFrame: ...
    def kernels(self) -> pandas.DataFrame: ...
    def check(self) -> Dict[str, Any]: ...
    def diff(self, other: "Trace") -> pandas.DataFrame: ...
    def plot(
        self,
        graph: Optional[int] = ...,
        node: Union[None, int, Sequence[int]] = ...,
        heatmap: bool = ...,
        top: int = ...,
        width: int = ...,
        html: bool = ...,
    ) -> Plot: ...
    def _repr_html_(self) -> str: ...

def load(source: Union[_Path, Iterable[_Path]]) -> Trace: ...
