"""Checks of the arguments that never reach the wire (retries, batch
sizes, callbacks, the caller's httpx client): each wrong one is an
``InvalidInputError`` naming it, raised before anything is sent. Values
that do go on the wire are checked by the core."""

from __future__ import annotations

import datetime
from typing import Any, NoReturn

from . import _core
from ._errors import InvalidInputError

__all__ = [
    "MAX_BATCH_ROWS",
    "counted",
    "invalid",
    "shown",
    "check_batch_rows",
    "check_concurrency",
    "check_flag",
    "check_http_client",
    "check_max_retries",
    "check_max_retry_after",
    "check_progress",
]

MAX_BATCH_ROWS = _core.MAX_BATCH_ROWS
"""Most rows a batch may be asked to hold (the core's limit, 1,048,576)."""


def shown(value: object, limit: int = 40) -> str:
    """``value`` for an error message: its ``repr``, cut to ``limit``
    characters (a huge string or number must not make a huge message, and
    an int of over 4300 digits has no ``repr`` at all)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` for a message or a repr: "1 row", "1,250 rows"."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def invalid(field: str, reason: str) -> NoReturn:
    raise InvalidInputError(f"invalid {field}: {reason}", field=field, reason=reason)


def check_batch_rows(batch_rows: int) -> int:
    """``batch_rows`` if it is an ``int`` the core accepts (1 to
    1,048,576: ``MIN_BATCH_ROWS`` to ``MAX_BATCH_ROWS``)."""
    return _core.check_batch_rows(batch_rows)


def check_concurrency(concurrency: int) -> int:
    """``concurrency`` if the core accepts it (1 to ``MAX_CONCURRENCY``, 256)."""
    return _core.check_concurrency(concurrency)


def check_max_retries(max_retries: int) -> int:
    """``max_retries`` if it is an ``int`` the core accepts (0 to
    ``MAX_RETRIES``, 10)."""
    return _core.check_max_retries(max_retries)


def check_max_retry_after(max_retry_after: float) -> float:
    """``max_retry_after`` in seconds if it is a number the core accepts (0
    to ``MAX_TIMEOUT``, a day)."""
    return _core.check_max_retry_after(max_retry_after)


def check_flag(field: str, value: bool) -> bool:
    """``value`` if it is a ``bool``."""
    if not isinstance(value, bool):
        invalid(field, f"must be True or False, got {type(value).__name__}")
    return value


def check_progress(progress: Any) -> None:
    """``progress`` must be ``None``, a ``bool`` or callable."""
    if progress is not None and not isinstance(progress, bool) and not callable(progress):
        invalid(
            "progress", f"must be True, False, None or a callable, got {type(progress).__name__}"
        )


def check_http_client(http_client: Any, expected: type) -> None:
    """``http_client`` must be ``None`` or an instance of ``expected``."""
    if http_client is not None and not isinstance(http_client, expected):
        invalid(
            "http_client",
            f"must be an {expected.__module__}.{expected.__qualname__} or None, "
            f"got {type(http_client).__name__}",
        )


def iso_date(field: str, value: object) -> str:
    """A date argument as the core takes it: a ``datetime.date`` as its ISO
    text, a ``str`` as given (the core checks it is a calendar date). A
    ``datetime.datetime`` is refused: it is a ``date`` with a time the
    service would not see."""
    if isinstance(value, datetime.datetime):
        invalid(field, f"must be a date, not a datetime ({value.isoformat()}); pass value.date()")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str):
        return value
    invalid(field, f"must be a datetime.date or 'YYYY-MM-DD' text, got {shown(value)}")
