"""The asynchronous client: the operations of :class:`Client`, carried
out with ``httpx.AsyncClient``, under asyncio or trio (``_async``: their
sleeps, worker threads and tasks).

asyncio is imported where it runs, not here: importing it costs a tenth
of a second at start-up, which the command line and the sync client never
need (this module loads with ``import erpdata``)."""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable

import httpx

from . import _async, _drive
from ._base import ClientBase
from ._core import Batch, Call
from ._functions import AwaitingFunctions
from ._models import Row
from ._operations import Operations
from ._pool import LoopPool
from ._stream import AsyncTableStream
from ._work import (
    Blocking,
    Many,
    One,
    Work,
    awaiting,
    restyled,
)

__all__ = ["AsyncClient"]

# Each method's docstring: Client's says it all.
_DOCS = {
    "dues": """Outstanding dues of account ``acid``; see :meth:`Client.dues`.""",
    "receivables": """What customer ``acid`` owes (``type=RECEIPT``); see :meth:`Client.dues`.""",
    "payables": """What is owed to supplier ``acid`` (``type=PAYMENT``); see :meth:`Client.dues`.""",
    "dues_many": """The dues of many accounts, at most ``concurrency`` queries in
        flight, keyed by account id as sent (``str``). Every argument is
        checked before anything is sent; the first failure cancels the rest
        and is raised. ``schema_overrides`` and ``infer_strings`` as for
        :meth:`Client.dues`.""",
    "ajax": """Any function of ``ajax.php`` by name; see :meth:`Client.ajax`.""",
    "dues_table": """The dues of many accounts as one table; see :meth:`Client.dues_table`.""",
    "aging": """The aging of receivables or payables; see :meth:`Client.aging`.""",
    "credit_status": """The credit status of customers; see :meth:`Client.credit_status`.""",
    "table": """Every row of ERP table ``name``, each column typed over the
        whole table; see :meth:`Client.table` (``schema_overrides``,
        ``infer_strings`` included).""",
    "stream_table": """Table ``name`` in batches of one schema as the answer arrives,
        for ``async for``; see :meth:`Client.stream_table`.""",
    "export": """:meth:`Client.export`, on worker threads (the writes to DuckDB or
        Parquet block), so the event loop keeps running meanwhile.
        Cancelled (under ``asyncio.run()``, also by Ctrl-C), or interrupted
        by Ctrl-C under trio, it stops: no new partition is started, those
        being read stop at once and are not written (each keeps its last
        good copy; ``resume=True`` fetches them later), and the call ends
        once the files are closed, without waiting for an answer still
        due from the service.""",
}


class _Started:
    """A stream's batches: its call, started on the first iteration in the
    event loop running then, and closed with the stream, so its answer is
    closed at once.

    Not an async generator wrapping the call's (``_drive.astream``): the
    event loop closes the generators still open as it ends, all at once,
    and the outer one's close then found the inner one being closed
    already (asyncio: "aclose(): asynchronous generator is already
    running", once for each stream left open)."""

    def __init__(self, client: AsyncClient, start: Callable[[], Call], state: _drive.State):
        self._client: AsyncClient | None = client
        self._start = start
        self._state = state
        self._batches: AsyncGenerator[Batch, None] | None = None

    def __aiter__(self) -> _Started:
        return self

    async def __anext__(self) -> Batch:
        if self._batches is None:
            if self._client is None:
                raise StopAsyncIteration  # closed before it started
            self._batches = _drive.astream(self._client._http, self._start(), self._state)
            self._client = None
        return await self._batches.__anext__()

    async def aclose(self) -> None:
        self._client = None
        if self._batches is not None:
            await self._batches.aclose()


class AsyncClient(
    AwaitingFunctions,
    ClientBase[httpx.AsyncClient, AsyncTableStream[list[Row]], AsyncTableStream[Any]],
):
    """An asyncio client for the cloud ERP data interface: the arguments,
    methods and behaviour of :class:`Client`, with ``await``.

    ``http_client`` is an ``httpx.AsyncClient`` used as given (its proxy,
    CA bundle, limits and event hooks apply) and not closed by this
    client. Use it as ``async with AsyncClient(...) as client`` or call
    :meth:`aclose`.
    """

    _http_class = httpx.AsyncClient

    _pool: LoopPool

    def _pool_for(
        self, http: httpx.AsyncClient, remake: Callable[[], httpx.AsyncClient] | None
    ) -> LoopPool:
        return LoopPool(http, remake)

    # -- the operations (see erpdata._operations) ------------------------------

    dues = awaiting(Operations.dues, _DOCS["dues"])
    receivables = awaiting(Operations.receivables, _DOCS["receivables"])
    payables = awaiting(Operations.payables, _DOCS["payables"])
    dues_many = awaiting(Operations.dues_many, _DOCS["dues_many"])
    ajax = awaiting(Operations.ajax, _DOCS["ajax"])
    dues_table = awaiting(Operations.dues_table, _DOCS["dues_table"])
    aging = awaiting(Operations.aging, _DOCS["aging"])
    credit_status = awaiting(Operations.credit_status, _DOCS["credit_status"])
    table = awaiting(Operations.table, _DOCS["table"])
    export = awaiting(Operations.export, _DOCS["export"])

    if not TYPE_CHECKING:
        # ClientBase's, as this client's types spell them.
        __init__ = restyled(ClientBase.__init__, http_client="httpx.AsyncClient | None")
        stream_table = restyled(
            ClientBase.stream_table, _DOCS["stream_table"], returns="AsyncTableStream[Any]"
        )

    # -- carrying out ----------------------------------------------------------

    async def _carry_out(self, work: Work[Any]) -> Any:
        self._pool.check_open()
        if isinstance(work, One):
            with work.state() as state:
                return work.finish(await _drive.arun(self._http, work.start(self._limits), state))
        if isinstance(work, Blocking):
            return await self._off_the_loop(work)
        return await self._run_tasks(work)

    async def _off_the_loop(self, work: Blocking[Any]) -> Any:
        """Blocking work (writing DuckDB or Parquet) on a worker thread with
        a synchronous client on this one's settings, so the event loop
        keeps running meanwhile; cancelled, the work is asked to stop and
        waited for."""
        from ._client import Client

        stop = threading.Event()

        def run() -> Any:
            with Client._on_config_of(self) as client:
                return work.run(client, stop)

        return await _async.in_thread(run, stop.set)

    async def _run_tasks(self, work: Many[Any]) -> Any:
        """The calls of ``work`` as tasks, at most its concurrency at a
        time; an error cancels the rest."""
        arun: Callable[[Call], Any] = lambda call: _drive.arun(self._http, call)  # noqa: E731
        return await _async.run_calls(work, self._limits, arun)

    def _stream(
        self, start: Callable[[], Call], convert: Callable[[Batch], Any]
    ) -> AsyncTableStream[Any]:
        state = _drive.State()
        return AsyncTableStream(_Started(self, start, state), state, convert)

    # -- lifecycle -----------------------------------------------------------

    async def aclose(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            await self._pool.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
