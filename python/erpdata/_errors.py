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

    ``kind`` names the kind of error, the same in every language:
    ``"invalid_input"``, ``"transport"``, ``"http_status"``, ``"service"``
    or ``"decode"``.

    ``retryable`` says whether the same call may pass if tried later, after
    the client's own retries gave up: a connection refused, reset or timed
    out, or the statuses that mean "try later" (429, 502, 503, 504).
    Never invalid input, a service or decode error, another status or a
    TLS certificate refused, which would fail the same way again. A job
    queue retries later what is retryable (after
    ``HttpStatusError.retry_after`` where the service said); a web service
    answers it with 503.

    An error a call ended with says where the call stood (the core's
    ``CallInfo``); each is ``None`` for an error raised before anything
    was sent:

    - ``attempts``: requests sent (the first, each retry and each redirect
      followed);
    - ``url``: the last request's URL, with the access token redacted;
    - ``rows_received``: for a table, complete rows of the failed answer
      decoded before it failed;
    - ``rows_delivered``: for a stream, rows already handed out in batches.
    """

    kind: str = "erp"
    retryable: bool

    def __init__(
        self,
        msg: str = "",
        /,
        *,
        kind: str | None = None,
        retryable: bool = False,
        attempts: int | None = None,
        url: str | None = None,
        rows_received: int | None = None,
        rows_delivered: int | None = None,
    ) -> None:
        super().__init__(msg)
        if kind is not None:
            self.kind = kind
        self.retryable = retryable
        self.attempts = attempts
        self.url = url
        self.rows_received = rows_received
        self.rows_delivered = rows_delivered

    def __reduce__(self) -> tuple[Any, ...]:
        # The subclasses take keyword-only attributes, which the default
        # pickling (``cls(*args)``) would drop; restore them from __dict__.
        return (self.__class__, self.args[:1], self.__dict__)


class InvalidInputError(ErpError, ValueError):
    """An argument or setting was rejected before anything was sent.

    ``field`` names the argument (``acid``, ``table``, ``base_url``, ...),
    ``reason`` says what is wrong with it.
    """

    kind = "invalid_input"

    def __init__(self, msg: str = "", /, *, field: str = "", reason: str = "", **call: Any) -> None:
        super().__init__(msg, **call)
        self.field = field
        self.reason = reason


class TransportError(ErpError):
    """The request did not complete: connection refused or reset, TLS, ...

    ``transport_kind`` is ``"connect"``, ``"timeout"``, ``"reset"``,
    ``"tls"`` (the server's certificate was refused: not retried) or
    ``"other"``; ``message`` is the account of the failure, with the token
    redacted.
    """

    kind = "transport"

    def __init__(
        self, msg: str = "", /, *, transport_kind: str = "other", message: str = "", **call: Any
    ) -> None:
        super().__init__(msg, **call)
        self.transport_kind = transport_kind
        self.message = message


class TimeoutError(TransportError, builtins.TimeoutError):  # noqa: A001
    """A connect, read or write deadline passed.

    Also a builtin ``TimeoutError``, so generic timeout handling catches it.
    """


class HttpStatusError(ErpError):
    """The service answered with an HTTP status outside 2xx, or with a
    redirect the client does not follow: to another origin, from https to
    http, without a ``Location``, or past the fifth (redirects within the
    origin are followed). ``excerpt`` is the start of the body, or for a
    refused redirect why it was refused.

    ``retry_after``: for a 429, 502, 503 or 504, the seconds its
    ``Retry-After`` header asked the client to wait (a date counted from
    now), else ``None``. When that was longer than the client waits, the
    call stopped at once and its message says so.
    """

    kind = "http_status"

    def __init__(
        self,
        msg: str = "",
        /,
        *,
        status_code: int = 0,
        excerpt: str = "",
        retry_after: float | None = None,
        **call: Any,
    ) -> None:
        super().__init__(msg, **call)
        self.status_code = status_code
        self.excerpt = excerpt
        self.retry_after = retry_after


class ServiceError(ErpError):
    """The service answered JSON whose ``status`` is not ``success``
    (for example an invalid access token). ``message`` is the service's."""

    kind = "service"

    def __init__(
        self, msg: str = "", /, *, status: str = "", message: str = "", **call: Any
    ) -> None:
        super().__init__(msg, **call)
        self.status = status
        self.message = message


class DecodeError(ErpError):
    """The answer was not of the documented shape: HTML, truncated or
    invalid JSON, an unexpected structure, a PHP error printed in it.
    ``excerpt`` is the text around ``excerpt_at``, the byte where the body
    stopped being the documented JSON, or (``excerpt_at`` None) the body's
    start."""

    kind = "decode"

    def __init__(
        self,
        msg: str = "",
        /,
        *,
        reason: str = "",
        excerpt: str = "",
        excerpt_at: int | None = None,
        **call: Any,
    ) -> None:
        super().__init__(msg, **call)
        self.reason = reason
        self.excerpt = excerpt
        self.excerpt_at = excerpt_at
