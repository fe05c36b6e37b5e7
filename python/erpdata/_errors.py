"""The exceptions erpdata raises, one class per kind of core error.

The native module fills these in; every message is the core's text, with
the access token already redacted. Attributes mirror the core's fields.
"""

from __future__ import annotations

import builtins
from typing import Any

__all__ = [
    "ErpError",
    "InvalidInputError",
    "TransportError",
    "TimeoutError",
    "HttpStatusError",
    "ServiceError",
    "DecodeError",
]


class ErpError(Exception):
    """Base class of every erpdata error.

    ``rows_received`` is set when a streamed table answer failed part-way:
    how many complete rows had arrived (``None`` otherwise).
    """

    rows_received: int | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        # The subclasses take keyword-only attributes, which the default
        # pickling (``cls(*args)``) would drop; restore them from __dict__.
        return (self.__class__, self.args[:1], self.__dict__)


class InvalidInputError(ErpError, ValueError):
    """An argument or setting was rejected before anything was sent.

    ``field`` names the argument (``acid``, ``table``, ``base_url``, ...),
    ``reason`` says what is wrong with it.
    """

    def __init__(self, msg: str, /, *, field: str = "", reason: str = "") -> None:
        super().__init__(msg)
        self.field = field
        self.reason = reason


class TransportError(ErpError):
    """The request did not complete: connection refused or reset, TLS, ...

    ``kind`` is ``"connect"``, ``"timeout"``, ``"reset"`` or ``"other"``;
    ``message`` is the HTTP library's message, with the token redacted.
    """

    def __init__(self, msg: str, /, *, kind: str = "other", message: str = "") -> None:
        super().__init__(msg)
        self.kind = kind
        self.message = message


class TimeoutError(TransportError, builtins.TimeoutError):  # noqa: A001
    """A connect, read or write deadline passed.

    Also a builtin ``TimeoutError``, so generic timeout handling catches it.
    """


class HttpStatusError(ErpError):
    """The service answered with an HTTP status outside 2xx (3xx included:
    redirects are not followed). ``excerpt`` is the start of the body."""

    def __init__(self, msg: str, /, *, status_code: int = 0, excerpt: str = "") -> None:
        super().__init__(msg)
        self.status_code = status_code
        self.excerpt = excerpt


class ServiceError(ErpError):
    """The service answered JSON whose ``status`` is not ``success``
    (for example an invalid access token). ``message`` is the service's."""

    def __init__(self, msg: str, /, *, status: str = "", message: str = "") -> None:
        super().__init__(msg)
        self.status = status
        self.message = message


class DecodeError(ErpError):
    """The answer was not of the documented shape: HTML, truncated or
    invalid JSON, an unexpected structure. ``excerpt`` is the body's start."""

    def __init__(self, msg: str, /, *, reason: str = "", excerpt: str = "") -> None:
        super().__init__(msg)
        self.reason = reason
        self.excerpt = excerpt
