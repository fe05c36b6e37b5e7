"""Progress of long downloads through ``tqdm.auto`` (a widget in notebooks,
a bar on terminals): shown only once a download has taken
:data:`AFTER_SECONDS` or :data:`AFTER_BYTES`, only where someone watches
(a terminal or a notebook kernel), and never with ``progress=False``."""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any, Callable, Union

AFTER_SECONDS = 1.0
"""A download shows progress once it has taken this long..."""
AFTER_BYTES = 16 << 20
"""...or received this many bytes."""

ProgressArg = Union[bool, Callable[[int, int], None], None]
"""``None``: automatic; ``True``: always a bar; ``False``: never; or a
callable given (bytes received, rows decoded)."""


def interactive() -> bool:
    """Whether someone watches: a notebook kernel (an IPython shell with a
    kernel, not merely ipykernel imported), or stderr on a terminal."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)()
    if getattr(shell, "kernel", None) is not None:
        return True
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class Bar:
    """A (bytes, rows) callback drawing a tqdm bar, lazily: nothing at all
    until the thresholds are passed (``eager`` draws from the start)."""

    def __init__(self, desc: str, *, eager: bool) -> None:
        self._desc = desc
        self._eager = eager
        self._start = time.monotonic()
        self._bar: Any = None
        self._seen = 0
        self._tqdm: Any = None
        try:
            self._tqdm = importlib.import_module("tqdm.auto").tqdm
        except ImportError:
            self._tqdm = None

    def __call__(self, received: int, rows: int) -> None:
        if self._tqdm is None:
            return
        if self._bar is None:
            late = time.monotonic() - self._start >= AFTER_SECONDS or received >= AFTER_BYTES
            if not (self._eager or late):
                return
            self._bar = self._tqdm(
                desc=self._desc, unit="B", unit_scale=True, unit_divisor=1024, leave=True
            )
        self._bar.update(received - self._seen)
        self._seen = received
        self._bar.set_postfix(rows=f"{rows:,}", refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def callback(progress: ProgressArg, desc: str) -> Callable[[int, int], None] | None:
    """What a download reports to: the caller's callable, a :class:`Bar`,
    or nothing."""
    if progress is None:
        return Bar(desc, eager=False) if interactive() else None
    if progress is True:
        return Bar(desc, eager=True)
    if progress is False:
        return None
    return progress


def close(reporter: Callable[[int, int], None] | None) -> None:
    """Ends a bar :func:`callback` made (a caller's callable is left be)."""
    if isinstance(reporter, Bar):
        reporter.close()
