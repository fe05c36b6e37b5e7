"""A client's connections, and what they belong to: the process that
opened them, and for the async client the event loop.

**The process.** A process forked after a call (a ``multiprocessing``
pool on Linux, a server's workers forked from a parent that imported the
app) inherits the parent's pooled connections: two processes writing
requests into one socket garble them (the service read "Missing
parameter: req"), or one reads the other's answer. A client that made
its own httpx client makes a fresh one in a process it was not made in;
the parent's are left to the parent, never used nor closed here (closing
them would take httpx's locks, which a fork may have copied held). An
``http_client`` the caller gave is used as given: whether it is safe to
share is theirs to say.

**The event loop.** An ``httpx.AsyncClient`` keeps its connections on
the event loop that opened them; used from another loop, it fails deep
inside with ``RuntimeError: Event loop is closed``. That happens to
ordinary code: a client made once and used by ``asyncio.run()`` twice (a
script, a Streamlit rerun, a test per event loop). Once that first loop
has closed, its connections are of no use to anyone, so a client that
made its own httpx client makes a fresh one for the loop it is used in
now. A loop still open may still be using them, and an ``http_client``
the caller gave is theirs to replace: both are refused with what to do
instead.

The connections a client made are closed as their loop ends, in that
loop, rather than left open on a closed one (where nothing can close them
but the collector, with a ``ResourceWarning`` each). Neither asyncio nor
trio tells anyone that a loop is ending, except async generators: both
``asyncio.run()`` and ``trio.run()`` close the generators still suspended
before the loop itself closes. So each loop gets one, started by hand and
suspended until then, whose ``finally`` closes the httpx client.

A pool is shared by the clones ``with_options`` makes, so a clone made
before the change uses the new connections too.

**Closing.** A closed client refuses its calls with an
``InvalidInputError`` (field ``client``) before they start, as it does a
call on an ``http_client`` its caller closed (field ``http_client``),
rather than leaving httpx's ``RuntimeError`` to say it. An async client
closed in a loop that has since ended serves the next loop, as one left
unclosed does."""

from __future__ import annotations

import os
import weakref
from collections.abc import AsyncGenerator
from typing import Any, Callable, Generic, TypeVar

import httpx

from . import _async
from ._errors import InvalidInputError

__all__ = ["Pool", "LoopPool"]

_Http = TypeVar("_Http", httpx.Client, httpx.AsyncClient)

# What a forked process inherited and must neither use nor finalize: an
# async generator of the parent's loop, collected here, would schedule
# itself on that loop's copy.
_INHERITED: list[object] = []


class Pool(Generic[_Http]):
    """An httpx client and the process it serves."""

    def __init__(self, http: _Http, remake: Callable[[], _Http] | None) -> None:
        self._http: _Http = http
        # How the client makes another like it (None: the caller's).
        self._remake: Callable[[], _Http] | None = remake
        self._pid = os.getpid()
        self._closed = False

    def here(self) -> _Http:
        """The httpx client for this process."""
        self._this_process()
        return self._http

    def close(self: Pool[httpx.Client]) -> None:
        """Closes the httpx client; the pool serves no call after."""
        if self._closed:
            return
        self._closed = True
        if self._pid == os.getpid():  # a parent's connections are left to it
            self._http.close()

    def _this_process(self) -> None:
        self.check_open()
        if self._pid != os.getpid():
            self._forked()

    def check_open(self) -> None:
        """Refuses a call on a closed client before it starts: httpx's
        RuntimeError ("Cannot send a request, as the client has been
        closed") was the one failure of a call that was not an ErpError."""
        if self._closed:
            raise InvalidInputError(
                f"this {self._client_name} has been closed ({self._closed_by}); make the "
                "calls before it is closed, or make a new client",
                field="client",
                reason="closed",
            )
        if self._remake is None and self._http.is_closed:
            raise InvalidInputError(
                f"the {type(self._http).__name__} given as http_client has been closed; "
                "make the calls before it is closed, or give the client one that is open",
                field="http_client",
                reason="closed",
            )

    _client_name = "Client"
    _closed_by = "by close() or on leaving its `with` block"

    def _forked(self) -> None:
        self._pid = os.getpid()
        if self._remake is not None:
            # The parent's client kept, never collected: collected, it
            # closed this process's copies of the parent's sockets, each
            # with a ResourceWarning.
            _INHERITED.append(self._http)
            self._http = self._remake()


class LoopPool(Pool[httpx.AsyncClient]):
    """An ``httpx.AsyncClient``, the process it serves and the event loop
    (asyncio's loop, trio's run) it was first used in."""

    _client_name = "AsyncClient"
    _closed_by = "by aclose() or on leaving its `async with` block"

    def __init__(
        self, http: httpx.AsyncClient, remake: Callable[[], httpx.AsyncClient] | None
    ) -> None:
        super().__init__(http, remake)
        self._loop: Callable[[], Any] | None = None
        self._closer: AsyncGenerator[None, None] | None = None

    def check_open(self) -> None:
        # Closed, then its loop ended: the client serves the next loop, as
        # it does once a loop ends unclosed (``here`` makes its connections).
        if self._closed and self._remake is not None and self._bound_loop_ended():
            return
        super().check_open()

    def _forked(self) -> None:
        super()._forked()
        # The parent's loop is not this process's, whatever its state.
        _INHERITED.append(self._closer)
        self._loop = self._closer = None

    def _bound_loop_ended(self) -> bool:
        """Whether the loop the connections belong to has ended (one
        collected has); not before their first use."""
        if self._loop is None:
            return False
        bound = self._loop()
        return bound is None or _async.has_ended(bound)

    def here(self) -> httpx.AsyncClient:
        """The httpx client for this process and the event loop running now."""
        self._this_process()
        loop = _async.current_loop()
        if self._loop is not None and self._loop() is loop:
            return self._http
        if self._bound_loop_ended():
            if self._remake is None:
                raise RuntimeError(
                    "the httpx.AsyncClient given as http_client was used in an event loop that "
                    "has ended (each asyncio.run() or trio.run() starts a new one), and its "
                    "connections cannot serve another: make the httpx client, and the "
                    "AsyncClient over it, inside the coroutine that uses them "
                    "(async with httpx.AsyncClient() as http: ...)"
                )
            # The ended loop closed its connections as it ended (unless it
            # was closed without closing its async generators first).
            self._http = self._remake()
            self._closed = False
        elif self._loop is not None:
            raise RuntimeError(
                "this AsyncClient's connections belong to another event loop, which is still "
                "open: a client serves one event loop at a time. Make a client for each "
                "event loop (each thread running one), or close this one in its own loop "
                "first (await client.aclose())"
            )
        self._loop = _reference(loop)
        if self._remake is not None:
            self._closer = _closed_as_the_loop_ends(self._http)
        return self._http

    async def aclose(self) -> None:
        """Closes the httpx client, unless the loop its connections belong
        to has ended (they cannot be closed from another)."""
        if self._closed:
            return
        self._this_process()
        self._closed = True
        if self._bound_loop_ended():
            return
        closer, self._closer = self._closer, None
        if closer is not None:
            await closer.aclose()  # which closes the httpx client
        else:
            await self._http.aclose()


def _closed_as_the_loop_ends(http: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    """A generator of the running loop that closes ``http`` when the loop
    closes it (or when it is collected while the loop runs)."""

    async def closer() -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            await http.aclose()

    generator = closer()
    # Its first step registers it with the running loop (the loop's
    # first-iteration hook) and runs it to its yield: nothing in between
    # awaits, so the step ends at once, without the loop.
    step = generator.asend(None)
    try:
        step.send(None)
    except StopIteration:
        pass
    return generator


def _reference(loop: Any) -> Callable[[], Any]:
    """A weak reference where the loop takes one, so that a client does not
    keep an ended loop alive."""
    try:
        return weakref.ref(loop)
    except TypeError:
        return lambda: loop
