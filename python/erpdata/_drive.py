"""Carrying out a call's actions with httpx: one loop for ``Client`` and
one for ``AsyncClient``.

Every decision of a call (attempts, redirects, waits, time limits, which
failure ends it and what its error says) is made by the core's state
machine, ``erpdata._core.Call``. The loops only do what it asks (send,
read, sleep, hand out a batch) and report what happened; whenever the
action is a ``Send``, ``Sleep``, ``Done`` or ``Failed``, the answer still
open is closed unread.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Union

import httpx

from ._core import Batch, Call, Done, Emit, Failed, Read, Request, Send, Sleep
from ._errors import InvalidInputError
from ._log import logger

__all__ = ["State", "Halted", "out_of_the_core", "run", "stream", "arun", "astream"]

Progress = Callable[[int, int], None]
"""Called with (bytes received, rows decoded) as an answer arrives."""


@dataclass
class State:
    """What a call has seen: bytes and rows received, rows handed out,
    and (once it succeeded) its output and notices."""

    bytes_received: int = 0
    rows_received: int = 0
    rows_delivered: int = 0
    notices: list[str] = field(default_factory=list)
    finished: bool = False
    output: Any = None
    progress: Progress | None = None
    halt: threading.Event | None = None
    """Set from another thread, it ends a sync call (:func:`stream`) as
    soon as its wait on the service returns, with :class:`Halted`."""
    waiting: bool = False
    """Whether the call is waiting on the service (sending, reading, or
    sleeping before a retry): in Python's own socket code, out of the core."""

    def waited(self) -> None:
        """The end of a wait on the service: :class:`Halted` if the call was
        asked to stop meanwhile, before the core sees what came (a daemon
        thread left in the core as the interpreter exits aborts the
        process: it cannot take the GIL back)."""
        self.waiting = False
        if self.halt is not None and self.halt.is_set():
            raise Halted()  # whatever the wait ended with: the core is not told

    def chunk(self, call: Call, chunk: bytes) -> None:
        try:
            call.chunk(time.monotonic(), chunk)
            self.bytes_received += len(chunk)
            self.rows_received = call.rows_received
            if self.progress is not None:
                self.progress(self.bytes_received, self.rows_received)
        finally:
            # Not kept by this frame either (see the end of `stream`): a
            # Ctrl-C in the progress callback, the error kept by a
            # notebook, kept the call, its decoder thread and its rows.
            del call, chunk

    def emitted(self, call: Call) -> None:
        self.rows_delivered = call.rows_delivered

    def done(self, call: Call, action: Done) -> None:
        self.output = action.output
        if isinstance(action.output, tuple):  # a stream's (notices, total rows)
            self.notices, self.rows_received = action.output
        elif isinstance(getattr(action.output, "num_rows", None), int):  # a whole table
            self.rows_received = action.output.num_rows
        notices = self.notices or getattr(action.output, "notices", None) or []
        for notice in notices:
            # What the service printed before its answer (redacted by the
            # core), which the answer keeps on `notices`: shown with -v.
            logger.info("call %d: the service printed before its answer: %s", call.id, notice)
        if self.progress is not None:
            # The last word: every byte and row (the decoder counts rows by
            # whole batches while the body arrives).
            self.progress(self.bytes_received, self.rows_received)
        self.finished = True
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(call.done_line())

    def failed(self, call: Call, action: Failed) -> BaseException:
        error = action.error
        if error.rows_received is not None:
            self.rows_received = error.rows_received
        # Its text, not the error: a handler that keeps records (a
        # MemoryHandler, pytest's capture) would keep the error, its
        # traceback's frames and the client they hold alive.
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(call.failed_line(str(error)))
        return error


Answer = Union[httpx.Response, None]


def _closed_meanwhile(http: httpx.Client | httpx.AsyncClient) -> None:
    """Raises the error of a client closed (from another thread, or a task)
    while its call ran, if it was: httpx's RuntimeError ("Cannot send a
    request, as the client has been closed") is the one failure of a call
    that is not an ErpError (a retry after the read its close cut short
    met it)."""
    if http.is_closed:
        raise InvalidInputError(
            "the client was closed while this call ran (by close() or on leaving its `with` "
            "block, in another thread or task); close it after its calls end",
            field="client",
            reason="closed",
        ) from None


class Halted(Exception):
    """A sync call ended because its :attr:`State.halt` was set."""


def out_of_the_core(threads: Sequence[threading.Thread], states: Mapping[int, State]) -> None:
    """Returns once each of ``threads`` (daemon threads whose calls' ``halt``
    was set) has ended or waits on the service; ``states`` holds the state
    of the call each runs, by thread ident, as the threads record it. A
    daemon thread in the core as the interpreter exits aborts the process
    ("FATAL: exception not rethrown": it cannot take the GIL back there);
    one waiting on the service ends when that wait does, in Python's own
    code, so a silent service does not hold up a Ctrl-C."""

    def in_the_core(t: threading.Thread) -> bool:
        state = states.get(t.ident or 0)
        return t.is_alive() and not (state is not None and state.waiting)

    while any(in_the_core(t) for t in threads):
        time.sleep(0.001)


@contextmanager
def _waiting(state: State) -> Iterator[None]:
    """A wait on the service, ended by :meth:`State.waited`."""
    state.waiting = True
    try:
        yield
    finally:
        state.waited()


def _ended(call: Call, exc: BaseException) -> None:
    """Logs the end of a call its caller ended (a stream closed early, a
    call cancelled or interrupted, an export stopped), if it sent anything:
    without that line its last request reads as never answered. Its own
    errors (Exceptions) have their own line."""
    ended = isinstance(exc, Halted) or not isinstance(exc, Exception)
    if ended and logger.isEnabledFor(logging.DEBUG):
        line = call.ended_line()
        if line is not None:
            logger.debug(line)


def _transport_kind(exc: httpx.HTTPError) -> str:
    """The core's name for an httpx failure (httpx knows the socket, the
    core decides what happens next)."""
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if _refused_certificate(exc):
        return "tls"
    if isinstance(exc, (httpx.ConnectError, httpx.ProxyError)):
        return "connect"
    if isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)):
        return "reset"
    return "other"


def _refused_certificate(exc: BaseException) -> bool:
    """Whether ssl refused the server's certificate somewhere below
    ``exc`` (httpx raises its ConnectError from httpcore's, from ssl's)."""
    seen: BaseException | None = exc
    for _ in range(16):  # bounded: a chain that loops would not end
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLCertVerificationError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _report_failure(call: Call, exc: httpx.HTTPError) -> None:
    if isinstance(exc, httpx.PoolTimeout):
        # Nothing was sent: the pool's connections were all busy.
        call.no_free_connection(time.monotonic())
        return
    # Only the kind and the text go to the core: the error it makes is not
    # chained to httpx's (which holds the request and its URL).
    call.failed(time.monotonic(), _transport_kind(exc), f"{type(exc).__name__}: {exc}")


def _report_head(call: Call, response: httpx.Response) -> None:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(call.answer_line(response.status_code))
    call.head(
        time.monotonic(),
        response.status_code,
        response.headers.get("location"),
        response.headers.get("retry-after"),
        time.time(),
    )


def _request(http: httpx.Client | httpx.AsyncClient, call: Call, action: Send) -> httpx.Request:
    """The action's request for httpx, with the attempt's limits."""
    request: Request = action.request
    if logger.isEnabledFor(logging.DEBUG):
        # The core's line, its URL and form redacted.
        logger.debug(call.request_line())
    limits = httpx.Timeout(
        connect=action.connect, read=action.read, write=action.read, pool=action.connect
    )
    return http.build_request(
        request.method,
        request.url,
        headers=request.headers,
        content=request.body or None,
        timeout=limits,
    )


def _log_sleep(call: Call, action: Sleep) -> None:
    if logger.isEnabledFor(logging.INFO):
        logger.info(call.waiting_line(action.seconds))


# -- sync --------------------------------------------------------------------


def stream(http: httpx.Client, call: Call, state: State) -> Iterator[Batch]:
    """Carries out ``call``'s actions, yielding its batches; its output
    goes to ``state``, its error is raised."""
    response: Answer = None
    chunks: Iterator[bytes] = iter(())
    chunk: bytes | None = None
    try:
        while True:
            action = call.next(time.monotonic())
            if response is not None and not isinstance(action, (Read, Emit)):
                response.close()
                response = None
            if isinstance(action, Send):
                # Not a local of this frame: see the end.
                try:
                    with _waiting(state):
                        response = http.send(
                            _request(http, call, action), stream=True, follow_redirects=False
                        )
                except httpx.HTTPError as exc:
                    _report_failure(call, exc)
                except RuntimeError:
                    _closed_meanwhile(http)
                    raise
                else:
                    chunks = response.iter_bytes()
                    _report_head(call, response)
            elif isinstance(action, Read):
                # _waiting, written out: a context manager's 1.5 us for each
                # of a large answer's thousands of chunks is a cost of its own.
                failure: httpx.HTTPError | None = None
                state.waiting = True
                try:
                    chunk = next(chunks, b"")
                except httpx.HTTPError as exc:
                    failure = exc
                finally:
                    state.waited()
                if failure is not None:
                    _report_failure(call, failure)
                elif chunk:
                    state.chunk(call, chunk)
                else:
                    call.end(time.monotonic())
            elif isinstance(action, Sleep):
                _log_sleep(call, action)
                with _waiting(state):
                    if state.halt is None:
                        time.sleep(action.seconds)
                    else:
                        state.halt.wait(action.seconds)
            elif isinstance(action, Emit):
                state.emitted(call)
                yield action.batch
            elif isinstance(action, Done):
                state.done(call, action)
                return
            else:
                raise state.failed(call, action)
    except BaseException as exc:
        _ended(call, exc)
        raise
    finally:
        try:
            if response is not None:
                response.close()
        finally:
            # Not kept by this frame once the call has ended: a traceback
            # keeps its frames' locals, and the KeyboardInterrupt of a call
            # interrupted midway, kept (a notebook keeps the last error),
            # kept the call, its decoder thread and every row decoded so far.
            # Nor the last chunk of the body, which may echo the token (a
            # service error quoting it): a traceback with its locals
            # (Sentry's default, rich's and pytest's showlocals) showed it
            # whole, and the request, whose URL holds it in the GET form.
            del call, chunk


def run(http: httpx.Client, call: Call, state: State | None = None) -> Any:
    """Carries out a call that hands out no batch; its output."""
    state = State() if state is None else state
    batches = stream(http, call, state)
    del call  # held by the generator alone (see stream's end)
    for _ in batches:
        raise AssertionError("a whole answer hands out no batch")
    return state.output


# -- async -------------------------------------------------------------------


async def astream(http: httpx.AsyncClient, call: Call, state: State) -> AsyncGenerator[Batch, None]:
    """:func:`stream` with ``httpx.AsyncClient``, its sleeps asyncio's or
    trio's."""
    from . import _async  # here: see _async_client

    response: Answer = None
    chunks: AsyncIterator[bytes] | None = None
    chunk: bytes | None = None
    try:
        while True:
            action = call.next(time.monotonic())
            if response is not None and not isinstance(action, (Read, Emit)):
                await response.aclose()
                response = None
            if isinstance(action, Send):
                try:
                    response = await http.send(
                        _request(http, call, action), stream=True, follow_redirects=False
                    )
                except httpx.HTTPError as exc:
                    _report_failure(call, exc)
                except RuntimeError:
                    _closed_meanwhile(http)
                    raise
                else:
                    chunks = response.aiter_bytes()
                    _report_head(call, response)
            elif isinstance(action, Read):
                assert chunks is not None
                try:
                    chunk = await chunks.__anext__()
                except StopAsyncIteration:
                    call.end(time.monotonic())
                except httpx.HTTPError as exc:
                    _report_failure(call, exc)
                else:
                    state.chunk(call, chunk)
            elif isinstance(action, Sleep):
                _log_sleep(call, action)
                await _async.sleep(action.seconds)
            elif isinstance(action, Emit):
                state.emitted(call)
                yield action.batch
            elif isinstance(action, Done):
                state.done(call, action)
                return
            else:
                raise state.failed(call, action)
    except BaseException as exc:
        _ended(call, exc)
        raise
    finally:
        try:
            if response is not None:
                await response.aclose()
        finally:
            # Not kept by this frame once the call has ended: a traceback
            # keeps its frames' locals, and a caller holding the error of a
            # call cancelled midway (asyncio.wait_for's TimeoutError kept,
            # or returned by gather(return_exceptions=True)) kept the call,
            # its decoder thread and every row decoded so far. Nor the last
            # chunk (see stream's end).
            del call, chunk


async def arun(http: httpx.AsyncClient, call: Call, state: State | None = None) -> Any:
    """:func:`run` with ``httpx.AsyncClient``."""
    state = State() if state is None else state
    batches = astream(http, call, state)
    del call  # held by the generator alone (see astream's end)
    async for _ in batches:
        raise AssertionError("a whole answer hands out no batch")
    return state.output
