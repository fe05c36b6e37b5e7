"""The synchronous client: the core describes each request and decides
retries and redirects, httpx sends, this module only carries it out."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
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
from ._stream import BatchFormat, TableStream, converter
from ._timeouts import DEFAULT_TIMEOUT, TimeoutTypes, resolve_timeout
from ._typing import SchemaOverrides, typing_options

if TYPE_CHECKING:
    from .export import ExportResult

__all__ = ["Client"]


class Client(ClientBase):
    """A synchronous client for the cloud ERP data interface.

    Arguments left as ``None`` come from the environment:
    ``ERPDATA_BASE_URL``, ``ERPDATA_PROJECT``, ``ERPDATA_ACCESS_TOKEN``,
    ``ERPDATA_PROJECT_FOLDER``, ``ERPDATA_COMPANY_ID``, ``ERPDATA_YEAR_ID``.
    A base URL is required; the token is required for table fetches, and
    plain ``http`` with a token is refused except to loopback hosts
    (unless ``allow_insecure_http=True``). ``ajax_token=True`` also sends
    the token with every ``ajax.php`` call (the dues query and the other
    functions), in a POST body, for a deployment that asks for it there.

    ``timeout`` is a :class:`Timeout` or a number of seconds for a whole
    call (which also caps the connect and read limits); ``None`` means the
    default (300 s a call, 10 s to connect, 30 s between bytes): there is
    deliberately no way to wait forever. Every method takes its own
    ``timeout=`` too.

    ``max_retries`` (default 2, at most 10: the core's
    ``DEFAULT_MAX_RETRIES`` and ``MAX_RETRIES``) bounds the retries of
    connection failures, timeouts and 429/502/503/504 answers (exponential
    backoff with jitter, ``Retry-After`` honoured up to 30 s), as the
    core's call decides; both operations are reads, so a retry changes
    nothing on the server. :meth:`with_options` gives a client with other
    ``timeout`` or ``max_retries`` sharing this one's connections.

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

    Column types: a PHP service sends DECIMAL columns (and with
    ``mysqli_query`` every value) as JSON strings, so the core types
    strings from their text as it types numbers: ``"1500.00"`` is an exact
    decimal, ``"3"`` an int, ``"2025-04-01"`` a date,
    ``"2025-04-01 13:45:00"`` a timestamp, MySQL's zero date ``None``; any
    other mix is a string column holding each value as sent. Every method
    that returns rows takes ``schema_overrides`` (declared types for the
    columns you know, by name: ``"string"``, ``"int"``, ``"decimal"``,
    ``"decimal(14,2)"``, ``"date"``, ``"timestamp"``, ``"bool"``,
    ``"json"``, or a pyarrow type such as ``pa.decimal128(14, 2)``) and
    ``infer_strings`` (``False``: every JSON string stays a string). An
    override the core does not know raises ``InvalidInputError`` naming
    ``schema_overrides["column"]`` before anything is sent; a value a
    declared type cannot take raises ``DecodeError`` naming the column
    and the row.
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
        http_client: httpx.Client | None = None,
        allow_insecure_http: bool = False,
        ajax_token: bool = False,
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
            ajax_token=ajax_token,
        )
        self._owns_http = http_client is None
        self._http = (
            http_client if http_client is not None else httpx.Client(follow_redirects=False)
        )

    @classmethod
    def _on_config_of(cls, other: ClientBase) -> Client:
        """A sync client on ``other``'s configuration, limits and retries,
        with connections of its own (for work done on threads)."""
        client = cls.__new__(cls)
        client._config = other._config
        client._timeout = other._timeout
        client._max_retries = other._max_retries
        client._owns_http = True
        client._http = httpx.Client(follow_redirects=False)
        return client

    # -- the operations ------------------------------------------------------

    def dues(
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
        """Outstanding dues of account ``acid``: ``kind`` is
        ``DuesKind.RECEIPT`` / ``DuesKind.PAYMENT`` or those names in any
        case. The rows are typed by column as a table's are (money as
        ``Decimal``, dates as ``datetime.date``); ``schema_overrides`` and
        ``infer_strings`` as for :meth:`table`. No token is sent unless
        ``send_token`` (or the client's ``ajax_token``) asks, then by POST
        unless ``method="GET"``."""
        request, kind_name = self._dues_request(acid, kind, send_token, method)
        typing = typing_options(schema_overrides, infer_strings)
        return self._dues(request, acid, kind_name, typing, timeout)

    def _dues(
        self, request: Request, acid: Id, kind_name: str, typing: Typing, timeout: TimeoutTypes
    ) -> Dues:
        dues: Dues = _drive.run(
            self._http, self._dues_call(request, acid, kind_name, typing, timeout)
        )
        return dues

    def receivables(
        self,
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Dues:
        """What customer ``acid`` owes (``type=RECEIPT``); see :meth:`dues`."""
        return self.dues(
            acid,
            DuesKind.RECEIPT,
            timeout=timeout,
            schema_overrides=schema_overrides,
            infer_strings=infer_strings,
        )

    def payables(
        self,
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Dues:
        """What is owed to supplier ``acid`` (``type=PAYMENT``); see :meth:`dues`."""
        return self.dues(
            acid,
            DuesKind.PAYMENT,
            timeout=timeout,
            schema_overrides=schema_overrides,
            infer_strings=infer_strings,
        )

    def dues_many(
        self,
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> dict[str, Dues]:
        """The dues of many accounts, at most ``concurrency`` queries at a
        time (on threads), keyed by account id as sent (``str``). The
        first failure is raised. Each account's rows are typed on their
        own; ``schema_overrides`` and ``infer_strings`` as for :meth:`dues`."""
        wanted = self._dues_many_accounts(acids, kind, concurrency)
        typing = typing_options(schema_overrides, infer_strings)

        def one(acid: Id) -> Dues:
            request, kind_name = self._dues_request(acid, kind)
            return self._dues(request, acid, kind_name, typing, timeout)

        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="erpdata") as pool:
            results = list(pool.map(one, wanted))
        return {d.acid: d for d in results}

    # -- the other functions of ajax.php -------------------------------------

    def _function(
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
        answer: AjaxAnswer = _drive.run(self._http, call)
        return answer

    def dues_summary(
        self,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """The outstanding receivables summary (``getduesSumm``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by
        POST unless ``method="GET"``; the answer is an :class:`AjaxAnswer`
        (rows, one object or one value, typed as a table's values are)."""
        return self._function(
            "dues_summary", {}, send_token, method, timeout, schema_overrides, infer_strings
        )

    def avg_pay_days(
        self,
        acid: Id,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> AjaxAnswer:
        """Average payment days of customer or supplier ``acid``
        (``avgPayDays``); see :meth:`dues_summary`."""
        return self._function(
            "avg_pay_days",
            {"acid": acid},
            send_token,
            method,
            timeout,
            schema_overrides,
            infer_strings,
        )

    def net_profit(
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
        """Net profit from ``start`` to ``end`` inclusive (``netProfit``):
        ``datetime.date`` or ``"YYYY-MM-DD"``, real days, ``start`` not
        after ``end``, checked before anything is sent; see
        :meth:`dues_summary`."""
        args = {"start": iso_date("start", start), "end": iso_date("end", end)}
        return self._function(
            "net_profit", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    def gross_profit(
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
        """Gross profit from ``start`` to ``end`` inclusive
        (``grossProfit``); see :meth:`net_profit`."""
        args = {"start": iso_date("start", start), "end": iso_date("end", end)}
        return self._function(
            "gross_profit", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    def schedule_accounts(
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
        """The accounts under ``schedule`` (e.g. ``"Sundry Debtors"``) from
        ``start`` to ``end`` (``scheduleDet``); see :meth:`net_profit`."""
        args = {
            "schedule": schedule,
            "start": iso_date("start", start),
            "end": iso_date("end", end),
        }
        return self._function(
            "schedule_accounts", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    def ajax(
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
        """Any function of ``ajax.php`` by name, with its parameters in
        order (``client.ajax("avgPayDays", {"acid": "C001"})``): the same
        checks, encoding, retries, redirect rules and errors as the named
        methods. ``sys_projectfolder``, ``func`` and ``accesstoken`` are the
        client's to send (the token only with ``send_token``)."""
        args = {"func": func, "params": ajax_params(params)}
        return self._function(
            "ajax", args, send_token, method, timeout, schema_overrides, infer_strings
        )

    def dues_table(
        self,
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Table:
        """The dues of many accounts as one :class:`Table`: an ``acid``
        column first (text, the ids as given), then the dues columns, typed
        over all the accounts together. At most ``concurrency`` queries at
        a time; every account checked before anything is sent; the first
        failure is raised."""
        dues = self.dues_many(
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

    # -- finance views -------------------------------------------------------

    def aging(
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
        """The aging of the receivables (``kind`` receipt, the default) or
        payables (payment) of ``accounts``, or of every customer or
        supplier of ``accounts_table`` (of ``company_id`` and ``year_id``,
        default: the client's), as of ``as_of`` (default: today); see
        :func:`erpdata.aging`."""
        day, bounds = _finance.check_aging(as_of, buckets)
        given = self._finance_accounts(
            kind, accounts, concurrency, accounts_table, company_id, year_id, always_table=False
        )
        acids = (
            given
            if given is not None
            else _finance.account_ids(
                self.table(accounts_table, company_id=company_id, year_id=year_id, timeout=timeout),
                str(kind),
            )
        )
        dues = self.dues_table(acids, kind, concurrency=concurrency, timeout=timeout)
        return _finance.aging(dues, as_of=day, buckets=bounds)

    def credit_status(
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
        """The credit status of ``accounts`` (default: every customer of
        ``accounts_table``, of ``company_id`` and ``year_id``, default: the
        client's) as of ``as_of`` (default: today): their
        receivables against ``credit_limit``, what is overdue and since
        when, and (unless ``pay_days=False``) ``avg_pay_days`` asked of the
        service for each; see :func:`erpdata.credit_status`."""
        day = _finance.check_as_of(as_of)
        check_flag("pay_days", pay_days)
        given = self._finance_accounts(
            "receipt", accounts, concurrency, accounts_table, company_id, year_id, always_table=True
        )
        table = self.table(accounts_table, company_id=company_id, year_id=year_id, timeout=timeout)
        customers = _finance.account_ids(table, "receipt")
        wanted = None if given is None else [str(a) for a in given]
        acids = customers if wanted is None else [a for a in wanted if a in customers]
        dues = self.dues_table(acids, "receipt", concurrency=concurrency, timeout=timeout)
        answers: dict[str, AjaxAnswer] = {}
        if pay_days and acids:
            check_concurrency(concurrency)
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="erpdata") as pool:
                found = pool.map(lambda a: self.avg_pay_days(a, timeout=timeout), acids)
                answers = dict(zip(acids, found))
        return _finance.credit_status(table, dues, pay_days=dict(answers), as_of=day, acids=wanted)

    def table(
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
        """Every row of ERP table ``name``; company and year default to the
        client's. The answer is decoded into typed columns as it arrives
        (the body is never held whole); each column's type is decided over
        the whole table. ``method="GET"`` puts the token in the URL (the
        service allows it); the default POST keeps it in the body.
        ``progress``: by default a ``tqdm.auto`` bar (a widget in
        notebooks) appears once a download takes over a second, where
        output is interactive; ``True`` shows it
        from the start, ``False`` never, and a callable is called with
        (bytes received, rows decoded) instead.

        ``schema_overrides`` maps column names to declared types: a type
        name (``"string"``, ``"int"``, ``"decimal"``, ``"decimal(P,S)"``,
        ``"date"``, ``"timestamp"``, ``"bool"``, ``"json"``) or a pyarrow
        type (``pa.string()``, ``pa.int64()``, ``pa.decimal128(14, 2)``,
        ``pa.date32()``, ``pa.timestamp("us")``, ``pa.bool_()``). A
        declared column never falls back to string: ``"decimal(14,2)"``
        takes ``"1500.5"`` as ``1500.50``, ``"string"`` keeps ``"007"`` and
        ``42`` as text, and ``""`` is null in every type but string and
        json; a value it cannot take raises ``DecodeError`` naming the
        column and the row. ``infer_strings=False`` keeps every JSON string
        a string (JSON numbers are still typed). Invalid overrides raise
        ``InvalidInputError`` naming ``schema_overrides["column"]``, before
        anything is sent."""
        check_progress(progress)
        request = self._table_request(name, company_id, year_id, method)
        typing = typing_options(schema_overrides, infer_strings)
        call = self._table_call(request, typing, timeout)
        reporter = _progress.callback(progress, name)
        try:
            return Table(_drive.run(self._http, call, _drive.State(progress=reporter)))
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
    ) -> TableStream[list[Row]]: ...

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
    ) -> TableStream[Any]: ...

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
    ) -> TableStream[Any]:
        """Table ``name`` in batches of up to ``batch_rows`` rows (default
        65,536, from 1 to 1,048,576: the core's ``DEFAULT_BATCH_ROWS``,
        ``MIN_BATCH_ROWS`` and ``MAX_BATCH_ROWS``), handed
        out as the answer arrives, in memory bounded by the batch size:
        lists of row dicts, or ``pyarrow.RecordBatch`` with
        ``batch_format="arrow"``. The request is sent on the first
        iteration; invalid arguments raise here, before anything is sent.

        Every batch has one schema (a Parquet writer can take them one by
        one): the first batch fixes each column's type (decimals at
        precision 38; a column without a value in it is a string column),
        or ``schema_overrides`` does for the columns it names (see
        :meth:`table`). A later value that does not fit, or a column first
        seen after the first batch, raises ``DecodeError`` naming the
        column and the row; declare its type to avoid that."""
        request = self._table_request(name, company_id, year_id, method)
        typing = typing_options(schema_overrides, infer_strings, one_schema=True)
        convert = converter(batch_format)
        rows = check_batch_rows(batch_rows)
        resolve_timeout(timeout, self._timeout)
        state = _drive.State()

        def batches() -> Iterator[Batch]:
            # The call starts on the first iteration.
            call = self._stream_call(request, typing, rows, timeout)
            yield from _drive.stream(self._http, call, state)

        return TableStream(batches(), state, convert)

    # -- lifecycle -----------------------------------------------------------

    def export(
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
        """Every (table, company, year) into ``to``: a DuckDB file
        (``.duckdb``) or a hive-partitioned Parquet dataset folder, each
        partition replaced whole, with a manifest; needs
        ``erpdata[export]``. See :func:`erpdata.export.export`."""
        from .export import export

        return export(
            self,
            tables,
            companies=companies,
            years=years,
            to=to,
            format=format,
            concurrency=concurrency,
            batch_rows=batch_rows,
            progress=progress,
        )

    def close(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
