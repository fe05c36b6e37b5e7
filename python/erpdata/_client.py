"""The synchronous client: the core describes each request, httpx sends it."""

from __future__ import annotations

import logging
import os
import random
import time
import weakref
from types import TracebackType
from typing import Optional, Union

import httpx

from ._core import Config, Request, RetryPolicy
from ._errors import ErpError, InvalidInputError
from ._kinds import DuesKind
from ._models import Dues, Id, Table

__all__ = ["Client"]

DEFAULT_TIMEOUT = 30.0
"""Seconds; also what ``timeout=None`` means."""


class _RedactHttpxLog(logging.Filter):
    """httpx logs every request's URL at INFO level; for a GET-form table
    fetch that URL holds the token. Passes those lines through the core's
    redaction for every config that has sent a GET-form fetch."""

    def __init__(self) -> None:
        super().__init__()
        self.configs: weakref.WeakSet[Config] = weakref.WeakSet()

    def filter(self, record: logging.LogRecord) -> bool:
        configs = list(self.configs)
        if configs:
            text = record.getMessage()
            for config in configs:
                text = config.redact(text)
            record.msg, record.args = text, None
        return True


_HTTPX_LOG_FILTER = _RedactHttpxLog()
logging.getLogger("httpx").addFilter(_HTTPX_LOG_FILTER)


def _setting(value: Optional[Id], env: str) -> Optional[Id]:
    """An explicit argument wins; else the environment variable, if set."""
    return value if value is not None else os.environ.get(env)


def _transport_kind(exc: httpx.HTTPError) -> str:
    """The core's name for an httpx failure (httpx knows the socket, the
    core decides what happens next)."""
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, (httpx.ConnectError, httpx.ProxyError)):
        return "connect"
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
        return "reset"
    return "other"


class Client:
    """A synchronous client for the cloud ERP data interface.

    Arguments left as ``None`` come from the environment:
    ``ERPDATA_BASE_URL``, ``ERPDATA_PROJECT``, ``ERPDATA_ACCESS_TOKEN``,
    ``ERPDATA_PROJECT_FOLDER``, ``ERPDATA_COMPANY_ID``, ``ERPDATA_YEAR_ID``.
    A base URL is required; the token is required for table fetches and
    plain ``http`` with a token is refused except to loopback hosts.

    ``timeout`` is in seconds, for each of connect, read, write and pool
    wait (httpx's meaning), and applies to every request, also through a
    caller's ``http_client``. ``None`` means the default, 30 s: there is
    deliberately no way to wait forever.

    ``max_retries`` bounds the retries of connection failures, timeouts
    and 429/502/503/504 answers (exponential backoff with jitter,
    ``Retry-After`` honoured up to 30 s); both operations are reads, so a
    retry changes nothing on the server.

    ``http_client`` is used as given (its proxy, CA bundle and limits
    apply) and is not closed by this client; without it the client makes
    its own, closed by :meth:`close` or on leaving a ``with`` block.
    Redirects are followed only within the configured origin (at most 5);
    one to another origin or from https to http raises ``HttpStatusError``
    naming the target, and the token is never sent there.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        project: Optional[str] = None,
        access_token: Optional[str] = None,
        project_folder: Optional[str] = None,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        base_url = base_url if base_url is not None else os.environ.get("ERPDATA_BASE_URL")
        if base_url is None:
            raise InvalidInputError(
                "invalid base_url: not given; pass base_url or set ERPDATA_BASE_URL",
                field="base_url",
                reason="not given; pass base_url or set ERPDATA_BASE_URL",
            )
        # The core validates everything; it runs before an httpx client is
        # made so an invalid setting leaks no connection pool.
        self._config = Config(
            base_url,
            project=os.environ.get("ERPDATA_PROJECT") if project is None else project,
            access_token=(
                os.environ.get("ERPDATA_ACCESS_TOKEN") if access_token is None else access_token
            ),
            project_folder=(
                os.environ.get("ERPDATA_PROJECT_FOLDER") if project_folder is None else project_folder
            ),
            company_id=_setting(company_id, "ERPDATA_COMPANY_ID"),
            year_id=_setting(year_id, "ERPDATA_YEAR_ID"),
        )
        self._timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)
        self._retry = RetryPolicy(max_retries)
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(
            timeout=self._timeout, follow_redirects=False
        )

    # -- the operations ------------------------------------------------------

    def dues(self, acid: Id, kind: Union[DuesKind, str]) -> Dues:
        """Outstanding dues of account ``acid``: ``kind`` is
        ``DuesKind.RECEIPT`` / ``DuesKind.PAYMENT`` or those names in any
        case."""
        kind_name = kind.value if isinstance(kind, DuesKind) else kind
        request = self._config.dues_request(acid, kind_name)
        status, body = self._send(request)
        return self._config.parse_dues(acid, kind_name, status, body)

    def receivables(self, acid: Id) -> Dues:
        """What customer ``acid`` owes (``type=RECEIPT``)."""
        return self.dues(acid, DuesKind.RECEIPT)

    def payables(self, acid: Id) -> Dues:
        """What is owed to supplier ``acid`` (``type=PAYMENT``)."""
        return self.dues(acid, DuesKind.PAYMENT)

    def table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        method: str = "POST",
    ) -> Table:
        """Every row of ERP table ``name``; company and year default to the
        client's. ``method="GET"`` puts the token in the URL (the service
        allows it); the default POST keeps it in the body."""
        request = self._config.table_request(name, company_id, year_id, method)
        if request.url != request.display_url:
            _HTTPX_LOG_FILTER.configs.add(self._config)
        status, body = self._send(request)
        return self._config.parse_table(status, body)

    # -- transport -----------------------------------------------------------

    @property
    def max_retries(self) -> int:
        return self._retry.max_retries

    def _send(self, request: Request) -> tuple[int, bytes]:
        """Sends ``request``, following the core's retry and redirect
        decisions; returns the final status and body for the core to parse."""
        retries = hops = 0
        while True:
            error: Optional[ErpError] = None
            try:
                response = self._http.request(
                    request.method,
                    request.url,
                    headers=request.headers,
                    content=request.body or None,
                    timeout=self._timeout,
                    follow_redirects=False,
                )
            except httpx.HTTPError as exc:
                kind = _transport_kind(exc)
                error = self._config.transport_error(kind, f"{type(exc).__name__}: {exc}")
                delay = self._retry.decide(retries, transport=kind, random=random.random())
            if error is not None:
                if delay is None:
                    # Raised outside the `except` so the httpx exception is
                    # neither the cause nor the context: it holds the
                    # request, whose URL may hold the token.
                    raise error from None
                time.sleep(delay)
                retries += 1
                continue
            status = response.status_code
            redirected = self._config.follow_redirect(
                request, status, response.headers.get("location"), hops
            )
            if redirected is not None:
                request, hops = redirected, hops + 1
                continue
            delay = self._retry.decide(
                retries,
                status=status,
                retry_after=response.headers.get("retry-after"),
                random=random.random(),
                now=time.time(),
            )
            if delay is None:
                return status, response.content
            time.sleep(delay)
            retries += 1

    # -- lifecycle -----------------------------------------------------------

    def close(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client(base_url={self._config.base_url!r}, project={self._config.project!r})"
