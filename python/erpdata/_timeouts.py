"""How long a call may take: finite by default, never unbounded."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

__all__ = ["Timeout", "TimeoutTypes", "DEFAULT_TIMEOUT", "resolve_timeout"]


@dataclass(frozen=True)
class Timeout:
    """Time limits of one call, in seconds.

    ``total`` bounds the whole call: every attempt, the waits between
    retries and reading the whole answer (for :meth:`Client.stream_table`,
    the time spent waiting for the answer and its body, not the time the
    caller takes between batches, so a slow consumer is not cut off while
    a body that never ends is). ``connect`` bounds opening a
    connection, ``read`` the wait for the next bytes of an answer (and
    for sending a request). Each is capped by what is left of ``total``.

    Every limit must be a finite positive number: there is deliberately
    no way to wait forever.
    """

    total: float = 300.0
    connect: float = 10.0
    read: float = 30.0

    def __post_init__(self) -> None:
        for name in ("total", "connect", "read"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not _finite(value)
                or value <= 0
            ):
                from ._checks import shown
                from ._errors import InvalidInputError

                reason = f"{name} must be a finite number of seconds above 0, got {shown(value)}"
                raise InvalidInputError(
                    f"invalid timeout: {reason}", field="timeout", reason=reason
                )
            object.__setattr__(self, name, float(value))


def _finite(value: int | float) -> bool:
    """Whether ``value`` is a finite float (an int too large for a float
    is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


TimeoutTypes = Union[float, int, Timeout, None]
"""What ``timeout=`` accepts: seconds for the whole call, a
:class:`Timeout`, or ``None`` for the default."""

DEFAULT_TIMEOUT = Timeout()
"""300 s for a whole call, 10 s to connect, 30 s between bytes."""


def resolve_timeout(value: TimeoutTypes, default: Timeout = DEFAULT_TIMEOUT) -> Timeout:
    """``None`` is ``default``; a number is the total, also capping connect
    and read."""
    if value is None:
        return default
    if isinstance(value, Timeout):
        return value
    total = Timeout(total=value).total  # validates
    return Timeout(total=total, connect=min(default.connect, total), read=min(default.read, total))
