"""The synchronous client: the core describes each request and decides
retries and redirects, httpx sends, this module only carries it out."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any, Callable, Dict, List, Literal, Optional, Union, overload

import httpx

from . import _drive, _flow
from ._base import DEFAULT_BATCH_ROWS, ClientBase
from ._checks import check_batch_rows, check_http_client, check_progress
from ._kinds import DuesKind
from ._models import Dues, Id, Row, Table
from ._stream import BatchFormat, TableStream, converter
from ._timeouts import DEFAULT_TIMEOUT, TimeoutTypes

__all__ = ["Client"]


class Client(ClientBase):
    """A synchronous client for the cloud ERP data interface.

    Arguments left as ``None`` come from the environment:
    ``ERPDATA_BASE_URL``, ``ERPDATA_PROJECT``, ``ERPDATA_ACCESS_TOKEN``,
    ``ERPDATA_PROJECT_FOLDER``, ``ERPDATA_COMPANY_ID``, ``ERPDATA_YEAR_ID``.
    A base URL is required; the token is required for table fetches, and
    plain ``http`` with a token is refused except to loopback hosts
    (unless ``allow_insecure_http=True``).

    ``timeout`` is a :class:`Timeout` or a number of seconds for a whole
    call (which also caps the connect and read limits); ``None`` means the
    default (300 s a call, 10 s to connect, 30 s between bytes): there is
    deliberately no way to wait forever. Every method takes its own
    ``timeout=`` too.

    ``max_retries`` bounds the retries of connection failures, timeouts
    and 429/502/503/504 answers (exponential backoff with jitter,
    ``Retry-After`` honoured up to 30 s), as the core's policy decides;
    both operations are reads, so a retry changes nothing on the server.

    ``http_client`` is used as given (its proxy, CA bundle, limits and
    event hooks apply) and is not closed by this client; without it the
    client makes its own (httpx's environment settings such as
    ``HTTPS_PROXY`` and ``SSL_CERT_FILE`` apply), closed by :meth:`close`
    or on leaving a ``with`` block. Redirects are followed only within the
    configured origin (at most 5); one to another origin or from https to
    http raises ``HttpStatusError`` naming the target, and the token is
    never sent there.

    The client never starts an event loop, so it works inside a running
    one (a notebook). Use :class:`AsyncClient` from async code.
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
        timeout: TimeoutTypes = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        http_client: Optional[httpx.Client] = None,
        allow_insecure_http: bool = False,
    ) -> None:
        check_http_client(http_client, httpx.Client)
        super().__init__(
            base_url,
            project=project,
            access_token=access_token,
            project_folder=project_folder,
            company_id=company_id,
            year_id=year_id,
            timeout=timeout,
            max_retries=max_retries,
            allow_insecure_http=allow_insecure_http,
        )
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(follow_redirects=False)

    # -- the operations ------------------------------------------------------

    def dues(self, acid: Id, kind: Union[DuesKind, str], *, timeout: TimeoutTypes = None) -> Dues:
        """Outstanding dues of account ``acid``: ``kind`` is
        ``DuesKind.RECEIPT`` / ``DuesKind.PAYMENT`` or those names in any
        case."""
        request, kind_name = self._dues_request(acid, kind)
        status, body = _drive.run(self._http, _flow.read_body(self._call(request, timeout), self._http))
        return self._config.parse_dues(acid, kind_name, status, body)

    def receivables(self, acid: Id, *, timeout: TimeoutTypes = None) -> Dues:
        """What customer ``acid`` owes (``type=RECEIPT``)."""
        return self.dues(acid, DuesKind.RECEIPT, timeout=timeout)

    def payables(self, acid: Id, *, timeout: TimeoutTypes = None) -> Dues:
        """What is owed to supplier ``acid`` (``type=PAYMENT``)."""
        return self.dues(acid, DuesKind.PAYMENT, timeout=timeout)

    def dues_many(
        self,
        acids: Iterable[Id],
        kind: Union[DuesKind, str],
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Dict[str, Dues]:
        """The dues of many accounts, at most ``concurrency`` queries at a
        time (on threads), keyed by account id as sent (``str``). The
        first failure is raised."""
        wanted = self._dues_many_accounts(acids, kind, concurrency)
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="erpdata") as pool:
            results = list(pool.map(lambda a: self.dues(a, kind, timeout=timeout), wanted))
        return {d.acid: d for d in results}

    def table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        method: str = "POST",
        timeout: TimeoutTypes = None,
        progress: Optional[Callable[[int, int], None]] = None,
    ) -> Table:
        """Every row of ERP table ``name``; company and year default to the
        client's. The answer is decoded into typed columns as it arrives
        (the body is never held whole). ``method="GET"`` puts the token in
        the URL (the service allows it); the default POST keeps it in the
        body. ``progress``, if given, is called with (bytes received, rows
        decoded) as the answer arrives."""
        check_progress(progress)
        request = self._table_request(name, company_id, year_id, method)
        flow = _flow.read_table(
            self._call(request, timeout), self._http, DEFAULT_BATCH_ROWS, progress
        )
        return Table(_drive.run(self._http, flow))

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = ...,
        year_id: Optional[Id] = ...,
        method: str = ...,
        batch_rows: int = ...,
        batch_format: Literal["rows"] = ...,
        timeout: TimeoutTypes = ...,
    ) -> TableStream[List[Row]]: ...

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = ...,
        year_id: Optional[Id] = ...,
        method: str = ...,
        batch_rows: int = ...,
        batch_format: Literal["arrow"],
        timeout: TimeoutTypes = ...,
    ) -> TableStream[Any]: ...

    def stream_table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        method: str = "POST",
        batch_rows: int = DEFAULT_BATCH_ROWS,
        batch_format: BatchFormat = "rows",
        timeout: TimeoutTypes = None,
    ) -> TableStream[Any]:
        """Table ``name`` in batches of up to ``batch_rows`` rows, handed
        out as the answer arrives, in memory bounded by the batch size:
        lists of row dicts, or ``pyarrow.RecordBatch`` with
        ``batch_format="arrow"``. The request is sent on the first
        iteration; invalid arguments raise here, before anything is sent."""
        request = self._table_request(name, company_id, year_id, method)
        convert = converter(batch_format)
        state = _flow.StreamState()
        flow = _flow.stream_batches(
            self._call(request, timeout, stream=True), self._http, check_batch_rows(batch_rows), state
        )
        return TableStream(_drive.run_stream(self._http, flow), state, convert)

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
