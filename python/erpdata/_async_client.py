"""The asynchronous client: ``Client``'s flows carried out with
``httpx.AsyncClient`` and ``asyncio`` sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from types import TracebackType
from typing import Any, Callable, Dict, List, Literal, Optional, Union, overload

import httpx

from . import _drive, _flow
from ._base import DEFAULT_BATCH_ROWS, ClientBase
from ._checks import check_batch_rows, check_http_client, check_progress
from ._kinds import DuesKind
from ._models import Dues, Id, Row, Table
from ._stream import AsyncTableStream, BatchFormat, converter
from ._timeouts import DEFAULT_TIMEOUT, TimeoutTypes

__all__ = ["AsyncClient"]


class AsyncClient(ClientBase):
    """An asyncio client for the cloud ERP data interface: the arguments,
    methods and behaviour of :class:`Client`, with ``await``.

    ``http_client`` is an ``httpx.AsyncClient`` used as given (its proxy,
    CA bundle, limits and event hooks apply) and not closed by this
    client. Use it as ``async with AsyncClient(...) as client`` or call
    :meth:`aclose`.
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
        http_client: Optional[httpx.AsyncClient] = None,
        allow_insecure_http: bool = False,
    ) -> None:
        check_http_client(http_client, httpx.AsyncClient)
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
        self._http = (
            http_client if http_client is not None else httpx.AsyncClient(follow_redirects=False)
        )

    # -- the operations ------------------------------------------------------

    async def dues(self, acid: Id, kind: Union[DuesKind, str], *, timeout: TimeoutTypes = None) -> Dues:
        """Outstanding dues of account ``acid``; see :meth:`Client.dues`."""
        request, kind_name = self._dues_request(acid, kind)
        flow = _flow.read_body(self._call(request, timeout), self._http)
        status, body = await _drive.arun(self._http, flow)
        return self._config.parse_dues(acid, kind_name, status, body)

    async def receivables(self, acid: Id, *, timeout: TimeoutTypes = None) -> Dues:
        """What customer ``acid`` owes (``type=RECEIPT``)."""
        return await self.dues(acid, DuesKind.RECEIPT, timeout=timeout)

    async def payables(self, acid: Id, *, timeout: TimeoutTypes = None) -> Dues:
        """What is owed to supplier ``acid`` (``type=PAYMENT``)."""
        return await self.dues(acid, DuesKind.PAYMENT, timeout=timeout)

    async def dues_many(
        self,
        acids: Iterable[Id],
        kind: Union[DuesKind, str],
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Dict[str, Dues]:
        """The dues of many accounts, at most ``concurrency`` queries in
        flight, keyed by account id as sent (``str``). Every id is checked
        before anything is sent; the first failure cancels the rest and is
        raised."""
        wanted = self._dues_many_accounts(acids, kind, concurrency)
        gate = asyncio.Semaphore(concurrency)

        async def one(acid: Id) -> Dues:
            async with gate:
                return await self.dues(acid, kind, timeout=timeout)

        tasks = [asyncio.ensure_future(one(a)) for a in wanted]
        try:
            results = await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            # Let the cancelled ones finish, so none is left pending and no
            # second failure goes unretrieved.
            await asyncio.gather(*tasks, return_exceptions=True)
        return {d.acid: d for d in results}

    async def table(
        self,
        name: str,
        *,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        method: str = "POST",
        timeout: TimeoutTypes = None,
        progress: Optional[Callable[[int, int], None]] = None,
    ) -> Table:
        """Every row of ERP table ``name``; see :meth:`Client.table`."""
        check_progress(progress)
        request = self._table_request(name, company_id, year_id, method)
        flow = _flow.read_table(
            self._call(request, timeout), self._http, DEFAULT_BATCH_ROWS, progress
        )
        return Table(await _drive.arun(self._http, flow))

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
    ) -> AsyncTableStream[List[Row]]: ...

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
    ) -> AsyncTableStream[Any]: ...

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
    ) -> AsyncTableStream[Any]:
        """Table ``name`` in batches as the answer arrives, for ``async
        for``; see :meth:`Client.stream_table`."""
        request = self._table_request(name, company_id, year_id, method)
        convert = converter(batch_format)
        state = _flow.StreamState()
        flow = _flow.stream_batches(
            self._call(request, timeout, stream=True), self._http, check_batch_rows(batch_rows), state
        )
        return AsyncTableStream(_drive.arun_stream(self._http, flow), state, convert)

    # -- lifecycle -----------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.aclose()
