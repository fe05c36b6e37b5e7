"""What happens during one call, without doing any I/O.

``Client`` and ``AsyncClient`` share every decision through the flows in
this module: generators that *yield* what to do next (send a request,
read a chunk, sleep, close an answer, hand out a batch) and receive its
result. Each client only carries the operations out, with httpx's sync or
async API (``_drive.py``). Retrying and redirecting are decided by the
core's policies; this module asks them and keeps the deadline.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar, Union

import httpx

from ._core import (
    Batch,
    Config,
    Request,
    RetryPolicy,
    TableCollector,
    TableData,
    TableDecoder,
    Typing,
)
from ._errors import ErpError
from ._log import logger
from ._timeouts import Timeout

__all__ = [
    "Body",
    "Call",
    "Close",
    "Emit",
    "Flow",
    "Read",
    "Send",
    "Sleep",
    "StreamState",
    "read_body",
    "read_table",
    "stream_batches",
]

T = TypeVar("T")


# -- the operations a flow asks its driver for ------------------------------


@dataclass
class Body:
    """An answer being read, with the driver's iterator over its chunks."""

    response: httpx.Response
    chunks: Any = None


@dataclass(frozen=True)
class Send:
    """Send ``request`` (stream the answer); result: the response, or the
    ``httpx.HTTPError`` it failed with."""

    request: httpx.Request


@dataclass(frozen=True)
class Read:
    """The next chunk of ``body``; result: bytes (``b""`` at the end), or
    the ``httpx.HTTPError`` reading failed with."""

    body: Body


@dataclass(frozen=True)
class Sleep:
    """Wait ``seconds``; result: ``None``."""

    seconds: float


@dataclass(frozen=True)
class Close:
    """Close ``response`` (an answer not read to its end); result: ``None``."""

    response: httpx.Response


@dataclass(frozen=True)
class Emit:
    """Hand ``batch`` to the caller of a stream; result: ``None``."""

    batch: Batch


Op = Union[Send, Read, Sleep, Close, Emit]
Result = Union[httpx.Response, bytes, httpx.HTTPError, None]
Flow = Generator[Op, Result, T]


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


class Call:
    """The state of one call between attempts: the request to send next,
    retries and redirect hops done, and the deadline."""

    def __init__(
        self,
        config: Config,
        retry: RetryPolicy,
        request: Request,
        timeout: Timeout,
        *,
        deadline_covers_body: bool = True,
    ) -> None:
        self.config = config
        self.retry = retry
        self.request = request
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout.total
        self.deadline_covers_body = deadline_covers_body
        self.retries = 0
        self.hops = 0

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def expired(self) -> ErpError:
        """The error for a call past its total timeout."""
        err: ErpError = self.config.transport_error(
            "timeout",
            f"no complete answer within the call's total timeout of {self.timeout.total:g} s",
        )
        return err

    def check_body_deadline(self) -> None:
        if self.deadline_covers_body and self.remaining() <= 0:
            raise self.expired()

    def build(self, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        """The next attempt as an httpx request, its limits capped by what
        is left of the call's total."""
        left = self.remaining()
        if left <= 0:
            raise self.expired()
        connect = min(self.timeout.connect, left)
        read = self.timeout.read if not self.deadline_covers_body else min(self.timeout.read, left)
        request = self.request
        if logger.isEnabledFor(logging.DEBUG):
            body = (
                self.config.redact(request.body.decode("utf-8", "replace")) if request.body else ""
            )
            logger.debug(
                "%s %s%s",
                request.method,
                request.display_url,
                f" form: {body}" if body else "",
            )
        return http.build_request(
            request.method,
            request.url,
            headers=request.headers,
            content=request.body or None,
            timeout=httpx.Timeout(connect=connect, read=read, write=read, pool=connect),
        )

    def _again(self, delay: float | None, error: ErpError, why: str) -> float:
        """``delay`` if the policy says retry and the deadline allows it;
        else raises ``error``."""
        if delay is None or delay >= self.remaining():
            raise error
        self.retries += 1
        logger.info(
            "retrying %s %s in %.2f s (retry %d of %d): %s",
            self.request.method,
            self.request.display_url,
            delay,
            self.retries,
            self.retry.max_retries,
            why,
        )
        return delay

    def failed(self, exc: httpx.HTTPError) -> float:
        """After a transport failure: seconds to wait before retrying, or
        raises the failure as a ``TransportError`` (redacted, unchained)."""
        kind = _transport_kind(exc)
        error: ErpError = self.config.transport_error(kind, f"{type(exc).__name__}: {exc}")
        delay = self.retry.decide(self.retries, transport=kind, random=random.random())
        return self._again(delay, error, str(error))

    def answered(self, response: httpx.Response) -> None | float | ErpError:
        """After an answer's status and headers: ``None`` to read it as the
        result, seconds to wait before sending ``self.request`` (again, or a
        redirect's target), or the error for a refused redirect."""
        status = response.status_code
        logger.debug("answer %d to %s %s", status, self.request.method, self.request.display_url)
        try:
            redirected = self.config.follow_redirect(
                self.request, status, response.headers.get("location"), self.hops
            )
        except ErpError as refused:
            logger.info("%s", refused)
            return refused
        if redirected is not None:
            logger.debug("redirect %d to %s", status, redirected.display_url)
            self.request, self.hops = redirected, self.hops + 1
            return 0.0
        delay = self.retry.decide(
            self.retries,
            status=status,
            retry_after=response.headers.get("retry-after"),
            random=random.random(),
            now=time.time(),
        )
        if delay is None or delay >= self.remaining():
            # Not retried: the core turns the answer into the result or
            # an HttpStatusError.
            return None
        self.retries += 1
        logger.info(
            "retrying %s %s in %.2f s (retry %d of %d): status %d",
            self.request.method,
            self.request.display_url,
            delay,
            self.retries,
            self.retry.max_retries,
            status,
        )
        return delay


# -- the flows -----------------------------------------------------------------


def exchange(call: Call, http: httpx.Client | httpx.AsyncClient) -> Flow[httpx.Response]:
    """Sends until an answer is accepted (retries and redirects decided by
    the core); the accepted answer's body is still unread."""
    while True:
        result = yield Send(call.build(http))
        if isinstance(result, httpx.HTTPError):
            delay = call.failed(result)
        else:
            assert isinstance(result, httpx.Response)
            verdict = call.answered(result)
            if verdict is None:
                return result
            yield Close(result)
            if isinstance(verdict, ErpError):
                raise verdict
            delay = verdict
        if delay > 0:
            yield Sleep(delay)


def read_body(call: Call, http: httpx.Client | httpx.AsyncClient) -> Flow[tuple[int, bytes]]:
    """The accepted answer's status and whole body (small answers: dues).
    A body cut off is retried like a failed request."""
    while True:
        response = yield from exchange(call, http)
        body = Body(response)
        parts: list[bytes] = []
        failure: httpx.HTTPError | None = None
        while True:
            chunk = yield Read(body)
            if isinstance(chunk, httpx.HTTPError):
                failure = chunk
                break
            assert isinstance(chunk, bytes)
            if not chunk:
                break
            parts.append(chunk)
            call.check_body_deadline()
        yield Close(response)
        if failure is None:
            return response.status_code, b"".join(parts)
        yield Sleep(call.failed(failure))


Progress = Callable[[int, int], None]
"""Called with (bytes received, rows decoded) as an answer arrives."""


def read_table(
    call: Call,
    http: httpx.Client | httpx.AsyncClient,
    batch_rows: int,
    typing: Typing,
    progress: Progress | None = None,
) -> Flow[TableData]:
    """A whole table, decoded chunk by chunk as it arrives (the body is
    never held whole), typed as ``typing`` says, each column over the
    whole table. A body cut off is retried from the start.

    The chunks are decoded on a native thread (no GIL) while the next
    ones are read, so a large table takes about as long as the slower of the
    download and the decoding, not their sum."""
    while True:
        received = 0
        response = yield from exchange(call, http)
        decoder = TableCollector(
            call.config, response.status_code, batch_rows=batch_rows, typing=typing
        )
        body = Body(response)
        failure: httpx.HTTPError | None = None
        while True:
            chunk = yield Read(body)
            if isinstance(chunk, httpx.HTTPError):
                failure = chunk
                break
            assert isinstance(chunk, bytes)
            if not chunk:
                break
            decoder.feed(chunk)
            if progress is not None:
                received += len(chunk)
                progress(received, decoder.rows)
            call.check_body_deadline()
        yield Close(response)
        if failure is None:
            data = decoder.finish_table()
            logger.debug("table of %d rows from %s", data.num_rows, call.request.display_url)
            return data
        # What arrived before the cut may already make the answer fail
        # (a body that is not JSON, a malformed row): that is the result, as if
        # each chunk had been decoded before the next was read.
        decoder.check()
        logger.debug("answer cut off after %d rows", decoder.rows)
        yield Sleep(call.failed(failure))


@dataclass
class StreamState:
    """What a stream has seen: rows received and handed out, notices."""

    rows_received: int = 0
    rows_delivered: int = 0
    bytes_received: int = 0
    notices: list[str] = field(default_factory=list)
    finished: bool = False


def _cut_off(error: ErpError, state: StreamState) -> ErpError:
    """``error`` saying how far the answer got."""
    error.rows_received = state.rows_received
    note = (
        f" ({state.rows_received} rows had arrived, "
        f"{state.rows_delivered} of them delivered in complete batches)"
    )
    error.args = (f"{error.args[0] if error.args else ''}{note}",) + tuple(error.args[1:])
    return error


def stream_batches(
    call: Call,
    http: httpx.Client | httpx.AsyncClient,
    batch_rows: int,
    typing: Typing,
    state: StreamState,
) -> Flow[None]:
    """Hands out batches as the body arrives, typed as ``typing`` says
    (a stream's: one schema for every batch). Memory holds one partial
    batch and one chunk. An answer that breaks off before any row arrived
    is retried; after that, the error says how many rows had arrived.

    The call's total timeout bounds the time spent waiting for the answer
    (its start, then each chunk of its body), not the time the caller
    takes between batches: a slow consumer is never cut off, a body that
    never ends is."""
    while True:
        response = yield from exchange(call, http)
        decoder = TableDecoder(
            call.config, response.status_code, batch_rows=batch_rows, typing=typing
        )
        body = Body(response)
        failure: httpx.HTTPError | None = None
        # What is left of the total once the head arrived: the budget of
        # the body's reads.
        budget = call.remaining()
        while True:
            asked = time.monotonic()
            chunk = yield Read(body)
            budget -= time.monotonic() - asked
            if isinstance(chunk, httpx.HTTPError):
                failure = chunk
                break
            if budget <= 0 and chunk:
                yield Close(response)
                raise _cut_off(call.expired(), state)
            assert isinstance(chunk, bytes)
            if not chunk:
                break
            state.bytes_received += len(chunk)
            try:
                batches = decoder.feed(chunk)
            except ErpError as err:
                state.rows_received = decoder.rows
                raise _cut_off(err, state)  # noqa: B904 (the same error, re-raised)
            state.rows_received = decoder.rows
            for batch in batches:
                state.rows_delivered += batch.num_rows
                yield Emit(batch)
        if failure is None:
            break
        yield Close(response)
        if decoder.rows == 0:
            yield Sleep(call.failed(failure))
            continue
        kind = _transport_kind(failure)
        raise _cut_off(
            call.config.transport_error(kind, f"{type(failure).__name__}: {failure}"), state
        )
    try:
        batches, notices, total = decoder.finish()
    except ErpError as err:
        state.rows_received = decoder.rows
        raise _cut_off(err, state)  # noqa: B904 (the same error, re-raised)
    state.rows_received = total
    state.notices = notices
    for batch in batches:
        state.rows_delivered += batch.num_rows
        yield Emit(batch)
    state.finished = True
    logger.debug("stream of %d rows from %s", total, call.request.display_url)
