"""The synchronous client: the core describes each request and decides
retries and redirects, httpx sends, this module only carries it out (on
threads where a plan runs several calls at once)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable

import httpx

from . import _drive
from ._base import ClientBase
from ._core import Batch, Call
from ._functions import BlockingFunctions
from ._models import Row
from ._operations import Operations
from ._stream import TableStream
from ._work import Blocking, Many, One, Work, blocking, calls, finish, restyled, settle

__all__ = ["Client"]


class Client(BlockingFunctions, ClientBase[httpx.Client, TableStream[list[Row]], TableStream[Any]]):
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
    deliberately no way to wait forever. Every call method takes its own
    ``timeout=`` too (``export``, which makes many calls, takes the
    client's: ``client.with_options(timeout=...).export(...)``).

    ``max_retries`` (default 2, at most 10: the core's
    ``DEFAULT_MAX_RETRIES`` and ``MAX_RETRIES``) bounds the retries of
    connection failures, timeouts and 429/502/503/504 answers (exponential
    backoff with jitter, ``Retry-After`` honoured), as the core's call
    decides; both operations are reads, so a retry changes nothing on the
    server. ``max_retry_after`` (seconds, default 30, from 0 to 86,400) is
    the longest wait a ``Retry-After`` may ask for that a call waits out: a
    longer one ends the call at once with an ``HttpStatusError`` that keeps
    the wait (``retry_after``) and says so. :meth:`with_options` gives a
    client with other ``timeout``, ``max_retries`` or ``max_retry_after``
    sharing this one's connections.

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

    _http_class = httpx.Client

    @classmethod
    def _on_config_of(cls, other: ClientBase[Any, Any, Any]) -> Client:
        """A sync client on ``other``'s configuration, limits and retries,
        with connections of its own (for work done on threads)."""
        client = cls.__new__(cls)
        client._config = other._config
        client._timeout = other._timeout
        client._max_retries = other._max_retries
        client._max_retry_after = other._max_retry_after
        client._connect(None)
        return client

    # -- the operations (see erpdata._operations) ------------------------------

    dues = blocking(Operations.dues)
    receivables = blocking(Operations.receivables)
    payables = blocking(Operations.payables)
    dues_many = blocking(Operations.dues_many)
    ajax = blocking(Operations.ajax)
    dues_table = blocking(Operations.dues_table)
    aging = blocking(Operations.aging)
    credit_status = blocking(Operations.credit_status)
    table = blocking(Operations.table)
    export = blocking(Operations.export)

    if not TYPE_CHECKING:
        # ClientBase's, as this client's types spell them.
        __init__ = restyled(ClientBase.__init__, http_client="httpx.Client | None")
        stream_table = restyled(ClientBase.stream_table, returns="TableStream[Any]")

    # -- carrying out ----------------------------------------------------------

    def _carry_out(self, work: Work[Any]) -> Any:
        self._pool.check_open()
        if isinstance(work, One):
            with work.state() as state:
                return work.finish(_drive.run(self._http, work.start(self._limits), state))
        if isinstance(work, Blocking):
            return work.run(self, None)
        return self._run_many(work)

    def _run_many(self, work: Many[Any]) -> Any:
        """The calls of ``work`` on threads, at most its concurrency at a
        time; on an error the calls still running end before it is raised.
        Interrupted (Ctrl-C, a notebook's interrupt), it returns as soon as
        no call is in the core: each ends when its wait on the service
        does, and nothing waits for that, not even the interpreter's exit."""
        halt = threading.Event()
        states: dict[int, _drive.State] = {}  # by thread

        def run(call: Call) -> Any:
            state = _drive.State(halt=halt)
            states[threading.get_ident()] = state
            return _drive.run(self._http, call, state)

        pool = _Threads(work.concurrency)
        try:
            loop = calls(work, self._limits, lambda i, call: pool.submit(settle, i, call, run))
            result = finish(loop, lambda running: wait(running, return_when=FIRST_COMPLETED)[0])
        except Exception:
            pool.shutdown(wait=True)
            raise
        except BaseException:
            # A call blocked on a silent service would hold Ctrl-C up to its
            # time limit (300 s by default): a ThreadPoolExecutor waits for
            # it on leaving, and again at the interpreter's exit.
            halt.set()
            pool.shutdown(wait=False)
            _drive.out_of_the_core(pool.threads, states)
            raise
        pool.shutdown(wait=True)
        return result

    def _stream(
        self, start: Callable[[], Call], convert: Callable[[Batch], Any]
    ) -> TableStream[Any]:
        state = _drive.State()

        def batches() -> Iterator[Batch]:
            yield from _drive.stream(self._http, start(), state)

        return TableStream(batches(), state, convert)

    # -- lifecycle -----------------------------------------------------------

    def close(self) -> None:
        """Closes the client's own httpx client (never a caller's)."""
        if self._owns_http:
            self._pool.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Threads:
    """A ThreadPoolExecutor of daemon threads: ``concurrency`` threads at
    most, started as calls are submitted. Unlike the executor's, its
    threads are not waited for at the interpreter's exit, so an
    interrupted command line exits at once however long a call it left
    would have taken."""

    def __init__(self, concurrency: int) -> None:
        self._concurrency = concurrency
        self._todo: queue.SimpleQueue[
            tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None
        ]
        self._todo = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._todo.put((future, fn, args))
        if len(self._threads) < self._concurrency:
            thread = threading.Thread(
                target=self._work, name=f"erpdata_{len(self._threads)}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        return future

    def _work(self) -> None:
        while (item := self._todo.get()) is not None:
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue  # cancelled before it started
            try:
                future.set_result(fn(*args))
            except BaseException as exc:
                future.set_exception(exc)
            del future, fn, args, item  # not kept alive while waiting

    @property
    def threads(self) -> list[threading.Thread]:
        """The threads started so far (a copy: none starts once it is shut
        down)."""
        return list(self._threads)

    def shutdown(self, wait: bool) -> None:
        """No more work: each thread ends after what it has started (the
        calls not started yet are cancelled); ``wait`` until they have."""
        while True:
            try:
                item = self._todo.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        for _ in self._threads:
            self._todo.put(None)
        if wait:
            for thread in self._threads:
                thread.join()
