"""What ``Client`` and ``AsyncClient`` share besides carrying out calls:
settings from arguments and the environment, the constructor, making the
work of a call, streaming a table, ``repr``."""

from __future__ import annotations

import copy
import functools
import os
import time
from collections.abc import Callable
from typing import Any, Generic, Literal, TypeVar, overload

import httpx

from ._checks import (
    check_batch_rows,
    check_flag,
    check_http_client,
    check_max_retries,
    check_max_retry_after,
)
from ._core import DEFAULT_BATCH_ROWS as _DEFAULT_BATCH_ROWS
from ._core import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_ROW_BATCH_ROWS,
    Batch,
    Call,
    Config,
    Invocation,
)
from ._log import watch
from ._models import Id
from ._pool import Pool
from ._stream import BatchFormat, converter
from ._timeouts import DEFAULT_TIMEOUT, Timeout, TimeoutTypes, resolve_timeout
from ._tls import default_context, new_http
from ._typing import SchemaOverrides, typing_options
from ._work import One

__all__ = ["ClientBase", "DEFAULT_BATCH_ROWS"]

DEFAULT_BATCH_ROWS = _DEFAULT_BATCH_ROWS
"""Rows per batch of a streamed table (and of a table's Arrow batches):
the core's default, 65,536."""

_C = TypeVar("_C", bound="ClientBase[Any, Any, Any]")
_Http = TypeVar("_Http", httpx.Client, httpx.AsyncClient)
_RowsStream = TypeVar("_RowsStream")
_AnyStream = TypeVar("_AnyStream")


class ClientBase(Generic[_Http, _RowsStream, _AnyStream]):
    """Settings, the constructor and table streams, shared by both clients
    (``_Http`` is the httpx client class, the streams a stream's types)."""

    _http_class: type[_Http]
    _pool: Pool[_Http]

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
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        http_client: _Http | None = None,
        allow_insecure_http: bool = False,
        ajax_token: bool = False,
    ) -> None:
        try:
            check_http_client(http_client, self._http_class)
            check_max_retries(max_retries)
            max_retry_after = check_max_retry_after(max_retry_after)
            check_flag("allow_insecure_http", allow_insecure_http)
            check_flag("ajax_token", ajax_token)
            # The core validates everything, and reads each setting not
            # given from its ERPDATA_* variable, naming the variable when
            # it refuses such a value. It runs before an httpx client is
            # made so an invalid setting leaks no connection pool.
            self._config = Config(
                base_url,
                project=project,
                access_token=access_token,
                project_folder=project_folder,
                company_id=company_id,
                year_id=year_id,
                allow_insecure_http=allow_insecure_http,
                ajax_token=ajax_token,
                environ=os.environ,
            )
        except BaseException:
            # Not a local of this frame as its error leaves: a traceback
            # printed with its locals (Sentry's default) showed it.
            del access_token
            raise
        del access_token  # kept by the core alone from here
        watch(self._config)
        self._timeout = resolve_timeout(timeout, DEFAULT_TIMEOUT)
        self._max_retries = max_retries
        self._max_retry_after = max_retry_after
        self._connect(http_client)

    def _connect(self, http_client: _Http | None) -> None:
        """The client's pool (see _pool), shared by the clones of
        with_options: over the caller's httpx client as given, or over one
        of its own, made again for another process or event loop with the
        TLS context of the trust setting in effect now."""
        self._owns_http = http_client is None
        if http_client is None:
            remake = functools.partial(
                new_http,
                self._http_class,
                default_context(),
                proxy_allowed=self._config.proxy_allowed,
            )
            self._pool = self._pool_for(remake(), remake)
        else:
            self._pool = self._pool_for(http_client, None)

    @property
    def _http(self) -> _Http:
        """The httpx client for this process (and the async client's loop)."""
        return self._pool.here()

    def _pool_for(self, http: _Http, remake: Callable[[], _Http] | None) -> Pool[_Http]:
        """The pool of this kind of client (the async one's knows loops)."""
        return Pool(http, remake)

    # -- settings --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The service's base URL, normalised to end with ``/``."""
        return self._config.base_url

    @property
    def project(self) -> str | None:
        """The ERP project name."""
        return self._config.project

    @property
    def timeout(self) -> Timeout:
        """The limits each call gets unless it passes its own."""
        return self._timeout

    @property
    def max_retries(self) -> int:
        """How many times a failed attempt may be retried."""
        return self._max_retries

    @property
    def max_retry_after(self) -> float:
        """The longest wait, in seconds, a ``Retry-After`` may ask for that
        a call waits out before retrying; a longer one ends the call."""
        return self._max_retry_after

    def with_options(
        self: _C,
        *,
        timeout: TimeoutTypes = None,
        max_retries: int | None = None,
        max_retry_after: float | None = None,
    ) -> _C:
        """This client with other settings for the calls made through it
        (``client.with_options(timeout=5).table("x")``): it shares the
        configuration and the httpx client (closing it leaves that open).
        ``timeout``, ``max_retries`` and ``max_retry_after`` as for the
        constructor (the core checks them: ``max_retries`` from 0 to 10,
        ``max_retry_after`` from 0 to 86,400 seconds); ``None`` keeps this
        client's."""
        clone = copy.copy(self)
        if timeout is not None:
            clone._timeout = resolve_timeout(timeout, self._timeout)
        if max_retries is not None:
            clone._max_retries = check_max_retries(max_retries)
        if max_retry_after is not None:
            clone._max_retry_after = check_max_retry_after(max_retry_after)
        clone._owns_http = False
        return clone

    # -- calls -------------------------------------------------------------------

    def _limits(self, timeout: TimeoutTypes) -> dict[str, Any]:
        """The keyword arguments of a ``Call``: its limits, checked by the
        core, and the monotonic clock's reading at its start."""
        t = resolve_timeout(timeout, self._timeout)
        return {
            "total": t.total,
            "connect": t.connect,
            "read": t.read,
            "max_retries": self._max_retries,
            "max_retry_after": self._max_retry_after,
            "now": time.monotonic(),
        }

    def _one(
        self,
        operation: str,
        args: dict[str, Any],
        timeout: TimeoutTypes,
        schema_overrides: SchemaOverrides,
        infer_strings: bool,
    ) -> One[Any]:
        """One call of ``operation`` of the core's catalogue, every argument
        checked there (``None``: not given) before anything is sent."""
        invocation = self._config.invoke(operation, args)
        return One(
            invocation,
            typing_options(schema_overrides, infer_strings, config=self._config),
            timeout,
        )

    def _table_invocation(
        self, name: str, company_id: Id | None, year_id: Id | None, method: str
    ) -> Invocation:
        args = {"name": name, "company_id": company_id, "year_id": year_id, "method": method}
        return self._config.invoke("table", args)

    @property
    def company_id(self) -> str | None:
        """The company a table is read for unless a call names another
        (``compid``), or ``None`` when none is configured."""
        return self._config.company_id

    @property
    def year_id(self) -> str | None:
        """The financial year a table is read for unless a call names
        another (``yearid``), or ``None`` when none is configured."""
        return self._config.year_id

    def check_table(
        self,
        name: str,
        *,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
    ) -> None:
        """Checks the arguments of :meth:`table` or :meth:`stream_table`
        (the name, company and year, the token's presence) as the call
        would, sending nothing: ``InvalidInputError`` names a bad one.
        Work over many tables checks them all before the first is sent."""
        self._table_invocation(name, company_id, year_id, method)

    # -- streams ---------------------------------------------------------------

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = ...,
        year_id: Id | None = ...,
        method: str = ...,
        batch_rows: int | None = ...,
        batch_format: Literal["rows"] = ...,
        timeout: TimeoutTypes = ...,
        schema_overrides: SchemaOverrides = ...,
        infer_strings: bool = ...,
        use_threads: bool = ...,
    ) -> _RowsStream: ...

    @overload
    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = ...,
        year_id: Id | None = ...,
        method: str = ...,
        batch_rows: int | None = ...,
        batch_format: Literal["arrow"],
        timeout: TimeoutTypes = ...,
        schema_overrides: SchemaOverrides = ...,
        infer_strings: bool = ...,
        use_threads: bool = ...,
    ) -> _AnyStream: ...

    def stream_table(
        self,
        name: str,
        *,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
        batch_rows: int | None = None,
        batch_format: BatchFormat = "rows",
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
        use_threads: bool = False,
    ) -> Any:
        """Table ``name`` in batches of up to ``batch_rows`` rows (from 1
        to 1,048,576), handed out as the answer arrives, in memory bounded
        by the batch size: lists of row dicts (by default 4,096 rows each:
        a row dict weighs about ten times its values in columns, and a
        million rows streamed in lists of 65,536 peaked at three times the
        memory), or ``pyarrow.RecordBatch`` with ``batch_format="arrow"``
        (by default 65,536 rows each). The defaults are the core's
        ``DEFAULT_ROW_BATCH_ROWS`` and ``DEFAULT_BATCH_ROWS``, as in
        JavaScript. The request is sent on the first
        iteration; invalid arguments raise here, before anything is sent.

        Every batch has one schema (a Parquet writer can take them one by
        one): the first batch fixes each column's type (decimals at
        precision 38; a column without a value in it is a string column),
        or ``schema_overrides`` does for the columns it names (see
        :meth:`table`). A later value that does not fit, or a column first
        seen after the first batch, raises ``DecodeError`` naming the
        column and the row; declare its type to avoid that.

        ``use_threads=True`` decodes on a thread of its own while the body
        is read, as :meth:`table` does: a large table comes faster (the
        export uses it). Each batch then goes out once the service's next
        bytes (or its end) came, not the moment it is complete: while the
        service pauses, a complete batch waits with the reader. Batches,
        errors and retries are the same either way."""
        invocation = self._table_invocation(name, company_id, year_id, method)
        typing = typing_options(
            schema_overrides, infer_strings, one_schema=True, config=self._config
        )
        convert = converter(batch_format)
        if batch_rows is None:
            batch_rows = DEFAULT_ROW_BATCH_ROWS if batch_format == "rows" else DEFAULT_BATCH_ROWS
        rows = check_batch_rows(batch_rows)
        check_flag("use_threads", use_threads)
        resolve_timeout(timeout, self._timeout)

        def start() -> Call:
            # Called on the first iteration: the call starts then.
            limits = self._limits(timeout)
            return Call.start(
                invocation, typing, stream=True, threads=use_threads, batch_rows=rows, **limits
            )

        return self._stream(start, convert)

    def _stream(self, start: Callable[[], Call], convert: Callable[[Batch], Any]) -> Any:
        """The client's stream of the batches of the call ``start`` makes."""
        raise NotImplementedError

    def __repr__(self) -> str:
        config = getattr(self, "_config", None)
        if config is None:
            # Its constructor refused a setting: a traceback printed with
            # its locals, or a debugger, still shows it.
            return f"{type(self).__name__}(not configured)"
        return (
            f"{type(self).__name__}(base_url={config.display_base_url!r}, "
            f"project={config.project!r})"
        )
