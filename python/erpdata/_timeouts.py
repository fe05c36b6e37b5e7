"""How long a call may take: finite by default, never unbounded. The
defaults and the accepted range are the core's (``erpdata._core``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

from ._core import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    check_timeout,
)

__all__ = ["Timeout", "TimeoutTypes", "DEFAULT_TIMEOUT", "resolve_timeout"]


@dataclass(frozen=True)
class Timeout:
    """Time limits of one call, in seconds.

    ``total`` (default 300 s) bounds the whole call: every attempt, the
    waits between them and reading the whole answer (for
    :meth:`Client.stream_table`, the time spent waiting for the answer and
    its body, not the time the caller takes between batches, so a slow
    consumer is not cut off while a body that never ends is). ``connect``
    (default 10 s) bounds opening a connection, ``read`` (default 30 s)
    each wait for the next bytes of an answer (and for sending a
    request). Each is capped by what is left of ``total``.

    Every limit must be a number of seconds above 0 and at most a day
    (86,400 s): there is deliberately no way to wait forever. The core
    checks them; a wrong one raises ``InvalidInputError`` naming field
    ``timeout`` and the limit.
    """

    total: float = DEFAULT_TOTAL_TIMEOUT
    connect: float = DEFAULT_CONNECT_TIMEOUT
    read: float = DEFAULT_READ_TIMEOUT

    def __post_init__(self) -> None:
        values = []
        for name in ("total", "connect", "read"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                from ._checks import invalid, shown

                invalid("timeout", f"{name} must be a number of seconds, got {shown(value)}")
            values.append(_seconds(value))
        check_timeout(*values)
        for name, value in zip(("total", "connect", "read"), values):
            object.__setattr__(self, name, value)


def _seconds(value: int | float) -> float:
    """``value`` as a float (an int too large for one is infinite)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


TimeoutTypes = Union[float, int, Timeout, None]
"""What ``timeout=`` accepts: seconds for the whole call, a
:class:`Timeout`, or ``None`` for the default."""

DEFAULT_TIMEOUT = Timeout()
"""300 s for a whole call, 10 s to connect, 30 s between bytes (the core's
``DEFAULT_TOTAL_TIMEOUT``, ``DEFAULT_CONNECT_TIMEOUT``,
``DEFAULT_READ_TIMEOUT``)."""


def resolve_timeout(value: TimeoutTypes, default: Timeout = DEFAULT_TIMEOUT) -> Timeout:
    """``None`` is ``default``; a number is the total, also capping connect
    and read."""
    if value is None:
        return default
    if isinstance(value, Timeout):
        return value
    total = Timeout(total=value).total  # validates
    return Timeout(total=total, connect=min(default.connect, total), read=min(default.read, total))
