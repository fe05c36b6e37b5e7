"""The asynchronous client: ``Client``'s flows carried out with
``httpx.AsyncClient`` and ``asyncio`` sleeps."""

from __future__ import annotations

import asyncio
import datetime
import os
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, overload

import httpx

from . import _drive, _finance, _progress
from ._base import DEFAULT_BATCH_ROWS, ClientBase
from ._checks import (
    ajax_params,
    check_batch_rows,
    check_concurrency,
    check_flag,
    check_http_client,
    check_progress,
    iso_date,
)
from ._core import DEFAULT_MAX_RETRIES, Batch, Request, Typing
from ._kinds import DuesKind
from ._models import AjaxAnswer, Dues, Id, Row, Table
from ._progress import ProgressArg
from ._stream import AsyncTableStream, BatchFormat, converter
from ._timeouts import DEFAULT_TIMEOUT, TimeoutTypes, resolve_timeout
from ._typing import SchemaOverrides, typing_options

if TYPE_CHECKING:
    from .export import ExportResult

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
        base_url: str | None = None,
        *,
        project: str | None = None,
        access_token: str | None = None,
        project_folder: str | None = None,
        company_id: Id | None = None,
        year_id: Id | None = None,
        timeout: TimeoutTypes = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.AsyncClient | None = None,
        allow_insecure_http: bool = False,
        ajax_token: bool = False,
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
            ajax_token=ajax_token,
        )
        self._owns_http = http_client is None
        self._http = (
            http_client if http_client is not None else httpx.AsyncClient(follow_redirects=False)
        )

    # -- the operations ------------------------------------------------------

    async def dues(
        self,
        acid: Id,
        kind: DuesKind | str,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
        send_token: bool | None = None,
        method: str | None = None,
    ) -> Dues:
        """Outstanding dues of account ``acid``; see :meth:`Client.dues`."""
        request, kind_name = self._dues_request(acid, kind, send_token, method)
        typing = typing_options(schema_overrides, infer_strings)
        return await self._dues(request, acid, kind_name, typing, timeout)

    async def _dues(
        self, request: Request, acid: Id, kind_name: str, typing: Typing, timeout: TimeoutTypes
    ) -> Dues:
        dues: Dues = await _drive.arun(
            self._http, self._dues_call(request, acid, kind_name, typing, timeout)
        )
        return dues

    async def receivables(
        self,
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Dues:
        """What customer ``acid`` owes (``type=RECEIPT``); see :meth:`Client.dues`."""
        return await self.dues(
            acid,
            DuesKind.RECEIPT,
            timeout=timeout,
            schema_overrides=schema_overrides,
            infer_strings=infer_strings,
        )

    async def payables(
        self,
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Dues:
        """What is owed to supplier ``acid`` (``type=PAYMENT``); see :meth:`Client.dues`."""
        return await self.dues(
            acid,
            DuesKind.PAYMENT,
            timeout=timeout,
            schema_overrides=schema_overrides,
            infer_strings=infer_strings,
        )

    async def dues_many(
        self,
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> dict[str, Dues]:
        """The dues of many accounts, at most ``concurrency`` queries in
        flight, keyed by account id as sent (``str``). Every argument is
        checked before anything is sent; the first failure cancels the rest
        and is raised. ``schema_overrides`` and ``infer_strings`` as for
        :meth:`Client.dues`."""
        wanted = self._dues_many_accounts(acids, kind, concurrency)
        typing = typing_options(schema_overrides, infer_strings)
        gate = asyncio.Semaphore(concurrency)

        async def one(acid: Id) -> Dues:
            async with gate:
                request, kind_name = self._dues_request(acid, kind)
                return await self._dues(request, acid, kind_name, typing, timeout)

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

    # -- the other functions of ajax.php -------------------------------------

    async def _function(
        self,
        function: str,
        args: dict[str, Any],
        send_token: bool | None,
        method: str | None,
        timeout: TimeoutTypes,
        schema_overrides: SchemaOverrides,
        infer_strings: bool,
    ) -> AjaxAnswer:
        typing = typing_options(schema_overrides, infer_strings)
        call = self._function_call(function, args, send_token, method, typing, timeout)
        answer: AjaxAnswer = await _drive.arun(self._http, call)
        return answer

    async def dues_summary(
        self,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """The outstanding receivables summary; see :meth:`Client.dues_summary`."""
        return await self._function(
            "dues_summary", {}, send_token, method, timeout, schema_overrides, infer_strings
        )

    async def avg_pay_days(
        self,
        acid: Id,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """Average payment days of ``acid``; see :meth:`Client.avg_pay_days`."""
        return await self._function(
            "avg_pay_days",
            {"acid": acid},
            send_token,
            method,
            timeout,
            schema_overrides,
            infer_strings,
        )

    async def net_profit(
        self,
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """Net profit over a range; see :meth:`Client.net_profit`."""
        args = {"start": iso_date("start", start), "end": iso_date("end", end)}
        return await self._function(
            "net_profit", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    async def gross_profit(
        self,
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """Gross profit over a range; see :meth:`Client.gross_profit`."""
        args = {"start": iso_date("start", start), "end": iso_date("end", end)}
        return await self._function(
            "gross_profit", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    async def schedule_accounts(
        self,
        schedule: str,
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """The accounts under a schedule; see :meth:`Client.schedule_accounts`."""
        args = {
            "schedule": schedule,
            "start": iso_date("start", start),
            "end": iso_date("end", end),
        }
        return await self._function(
            "schedule_accounts", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    async def ajax(
        self,
        func: str,
        params: Mapping[str, str | int] | None = None,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """Any function of ``ajax.php`` by name; see :meth:`Client.ajax`."""
        args = {"func": func, "params": ajax_params(params)}
        return await self._function(
            "ajax", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    async def dues_table(
        self,
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Table:
        """The dues of many accounts as one table; see :meth:`Client.dues_table`."""
        dues = await self.dues_many(
            acids,
            kind,
            concurrency=concurrency,
            timeout=timeout,
            schema_overrides=schema_overrides,
            infer_strings=infer_strings,
        )
        typing = typing_options(schema_overrides, infer_strings)
        table: Table = self._config.dues_table([d._data for d in dues.values()], typing)
        return table

    async def export(
        self,
        tables: str | Sequence[str],
        *,
        to: str | os.PathLike[str],
        companies: Id | Iterable[Id] | None = None,
        years: Id | Iterable[Id] | None = None,
        format: Literal["duckdb", "parquet"] | None = None,
        concurrency: int = 2,
        batch_rows: int = 65_536,
        progress: bool | None = None,
    ) -> ExportResult:
        """:meth:`Client.export`, on worker threads (the writes to DuckDB or
        Parquet block), so the event loop keeps running meanwhile."""
        from ._client import Client

        def run() -> ExportResult:
            with Client._on_config_of(self) as client:
                return client.export(
                    tables,
                    to=to,
                    companies=companies,
                    years=years,
                    format=format,
                    concurrency=concurrency,
                    batch_rows=batch_rows,
                    progress=progress,
                )

        return await asyncio.get_running_loop().run_in_executor(None, run)

    # -- finance views -------------------------------------------------------

    async def aging(
        self,
        kind: DuesKind | str = DuesKind.RECEIPT,
        *,
        accounts: Iterable[Id] | None = None,
        as_of: datetime.date | str | None = None,
        buckets: Iterable[int] = _finance.DEFAULT_BUCKETS,
        accounts_table: str = "account",
        company_id: Id | None = None,
        year_id: Id | None = None,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Table:
        """The aging of receivables or payables; see :meth:`Client.aging`."""
        day, bounds = _finance.check_aging(as_of, buckets)
        given = self._finance_accounts(
            kind, accounts, concurrency, accounts_table, company_id, year_id, always_table=False
        )
        acids = (
            given
            if given is not None
            else _finance.account_ids(
                await self.table(
                    accounts_table, company_id=company_id, year_id=year_id, timeout=timeout
                ),
                str(kind),
            )
        )
        dues = await self.dues_table(acids, kind, concurrency=concurrency, timeout=timeout)
        return _finance.aging(dues, as_of=day, buckets=bounds)

    async def credit_status(
        self,
        *,
        accounts: Iterable[Id] | None = None,
        as_of: datetime.date | str | None = None,
        pay_days: bool = True,
        accounts_table: str = "account",
        company_id: Id | None = None,
        year_id: Id | None = None,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Table:
        """The credit status of customers; see :meth:`Client.credit_status`."""
        day = _finance.check_as_of(as_of)
        check_flag("pay_days", pay_days)
        given = self._finance_accounts(
            "receipt", accounts, concurrency, accounts_table, company_id, year_id, always_table=True
        )
        table = await self.table(
            accounts_table, company_id=company_id, year_id=year_id, timeout=timeout
        )
        customers = _finance.account_ids(table, "receipt")
        wanted = None if given is None else [str(a) for a in given]
        acids = customers if wanted is None else [a for a in wanted if a in customers]
        dues = await self.dues_table(acids, "receipt", concurrency=concurrency, timeout=timeout)
        answers: dict[str, AjaxAnswer] = {}
        if pay_days and acids:
            gate = asyncio.Semaphore(check_concurrency(concurrency))

            async def one(acid: str) -> AjaxAnswer:
                async with gate:
                    return await self.avg_pay_days(acid, timeout=timeout)

            found = await asyncio.gather(*(one(a) for a in acids))
            answers = dict(zip(acids, found))
        return _finance.credit_status(table, dues, pay_days=dict(answers), as_of=day, acids=wanted)

    async def table(
        self,
        name: str,
        *,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
        timeout: TimeoutTypes = None,
        progress: ProgressArg = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Table:
        """Every row of ERP table ``name``, each column typed over the
        whole table; see :meth:`Client.table` (``schema_overrides``,
        ``infer_strings`` included)."""
        check_progress(progress)
        request = self._table_request(name, company_id, year_id, method)
        typing = typing_options(schema_overrides, infer_strings)
        call = self._table_call(request, typing, timeout)
        reporter = _progress.callback(progress, name)
        try:
            return Table(await _drive.arun(self._http, call, _drive.State(progress=reporter)))
        finally:
            _progress.close(reporter)

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = ...,
        year_id: Id | None = ...,
        method: str = ...,
        batch_rows: int = ...,
        batch_format: Literal["rows"] = ...,
        timeout: TimeoutTypes = ...,
        schema_overrides: SchemaOverrides = ...,
        infer_strings: bool = ...,
    ) -> AsyncTableStream[list[Row]]: ...

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = ...,
        year_id: Id | None = ...,
        method: str = ...,
        batch_rows: int = ...,
        batch_format: Literal["arrow"],
        timeout: TimeoutTypes = ...,
        schema_overrides: SchemaOverrides = ...,
        infer_strings: bool = ...,
    ) -> AsyncTableStream[Any]: ...

    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
        batch_rows: int = DEFAULT_BATCH_ROWS,
        batch_format: BatchFormat = "rows",
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AsyncTableStream[Any]:
        """Table ``name`` in batches of one schema as the answer arrives,
        for ``async for``; see :meth:`Client.stream_table`."""
        request = self._table_request(name, company_id, year_id, method)
        typing = typing_options(schema_overrides, infer_strings, one_schema=True)
        convert = converter(batch_format)
        rows = check_batch_rows(batch_rows)
        resolve_timeout(timeout, self._timeout)
        state = _drive.State()

        async def batches() -> AsyncIterator[Batch]:
            # The call starts on the first iteration.
            call = self._stream_call(request, typing, rows, timeout)
            inner = _drive.astream(self._http, call, state)
            try:
                async for batch in inner:
                    yield batch
            finally:
                # Closed with the stream, so its answer is closed at once.
                await inner.aclose()

        return AsyncTableStream(batches(), state, convert)

    # -- lifecycle -----------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
