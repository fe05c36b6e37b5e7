"""A client's connections and what they belong to.

A process forked after a call (a multiprocessing pool, a server's
workers) gets connections of its own: sharing the parent's socket, two
processes read each other's answers.

An AsyncClient used by more than one event loop: after the loop it first
ran in has ended (asyncio.run() twice, trio.run() twice, a test per event
loop), its calls go on with fresh connections, each loop's closed as it
ended; while that loop is still open, and for an http_client the caller
gave, it refuses before sending, saying what to do."""

from __future__ import annotations

import asyncio
import multiprocessing
import socket
import threading
from typing import Any

import httpx
import pytest
import trio

import fault_api
from conftest import SANDBOX_TOKEN, SECRET_TOKEN, table_body
from erpdata import AsyncClient, Client

SETTINGS: dict[str, Any] = dict(
    project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025, timeout=10.0
)


def counted(sandbox_url: str, name: str, fault: str = "latency-0") -> tuple[str, str]:
    key = fault_api.new_key(name)
    return fault_api.prefix(sandbox_url, fault, key), key


class KeepAliveServer:
    """A loopback HTTP/1.1 server that keeps each connection open for the
    next request and counts the connections it accepted."""

    def __init__(self) -> None:
        self.connections = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        body = table_body(3)
        answer = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        with conn, conn.makefile("rb") as reader:
            while True:
                length = 0
                while (line := reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                if not line:
                    return
                reader.read(length)
                conn.sendall(answer)


def _child(client: Client, answers: multiprocessing.Queue[object]) -> None:
    import warnings

    try:
        # The parent's httpx client, let go of here, closed this process's
        # copy of its socket with a ResourceWarning.
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", ResourceWarning)
            rows = len(client.table("sales_invoice"))
        answers.put((rows, [str(w.message) for w in seen if w.category is ResourceWarning]))
    except Exception as exc:  # the parent's assertion shows it
        answers.put(repr(exc))


# Python 3.12 and later warn of fork() in a process with threads (this
# suite's sandbox readers, the server's): the child here only calls.
FORK_WITH_THREADS = pytest.mark.filterwarnings(
    "ignore:This process .* is multi-threaded:DeprecationWarning"
)


@FORK_WITH_THREADS
def test_a_forked_process_gets_connections_of_its_own() -> None:
    # Sharing the parent's socket, two processes sending at once garble
    # their requests or take each other's answers: a child must not use it.
    server = KeepAliveServer()
    with Client(server.url, **SETTINGS) as client:
        assert len(client.table("sales_invoice")) == 3  # leaves an idle connection
        assert server.connections == 1
        fork = multiprocessing.get_context("fork")
        answers: multiprocessing.Queue[object] = fork.Queue()
        child = fork.Process(target=_child, args=(client, answers))
        child.start()
        assert answers.get(timeout=10) == (3, [])
        child.join(10)
        assert server.connections == 2  # the child's own
        # The parent's connection is still its own, and still open.
        assert len(client.with_options(max_retries=0).table("sales_invoice")) == 3
        assert server.connections == 2
    server.sock.close()


def _async_child(client: AsyncClient, answers: multiprocessing.Queue[object]) -> None:
    try:
        answers.put(len(asyncio.run(client.table("sales_invoice"))))
    except Exception as exc:  # the parent's assertion shows it
        answers.put(repr(exc))


@FORK_WITH_THREADS
def test_a_forked_process_gets_async_connections_of_its_own(sandbox_url: str) -> None:
    # The parent's loop is still open, but it is not the child's.
    client = AsyncClient(sandbox_url, **SETTINGS)
    loop = asyncio.new_event_loop()
    try:
        rows = len(loop.run_until_complete(client.table("sales_invoice")))
        fork = multiprocessing.get_context("fork")
        answers: multiprocessing.Queue[object] = fork.Queue()
        child = fork.Process(target=_async_child, args=(client, answers))
        child.start()
        assert answers.get(timeout=10) == rows
        child.join(10)
        loop.run_until_complete(client.aclose())
    finally:
        loop.close()


def test_asyncio_run_twice_with_one_client(sandbox_url: str) -> None:
    url, key = counted(sandbox_url, "asyncio-twice")
    client = AsyncClient(url, **SETTINGS)
    later = client.with_options(max_retries=0)  # a clone made before the second loop

    async def dues() -> int:
        return len((await client.receivables("C001")).rows)

    async def streamed() -> int:
        rows = 0
        async for batch in later.stream_table("sales_invoice", batch_rows=7):
            rows += len(batch)
        return rows

    first = asyncio.run(dues())
    assert first > 0
    assert client._pool._http.is_closed  # closed as its loop ended, not left to the collector
    assert asyncio.run(dues()) == first  # was: RuntimeError: Event loop is closed
    assert asyncio.run(streamed()) == len(asyncio.run(client.table("sales_invoice")))

    async def many() -> int:
        async with client:
            return len(await client.dues_many(["C001", "C002"], "receipt"))

    assert asyncio.run(many()) == 2
    assert fault_api.count(sandbox_url, key) == 6


def test_trio_run_twice_with_one_client(sandbox_url: str) -> None:
    client = AsyncClient(sandbox_url, **SETTINGS)

    async def dues() -> int:
        return len((await client.payables("S001")).rows)

    first = trio.run(dues)
    assert first > 0
    assert client._pool._http.is_closed
    assert trio.run(dues) == first
    trio.run(client.aclose)


def test_a_loop_still_open_elsewhere_is_refused_before_sending(sandbox_url: str) -> None:
    url, key = counted(sandbox_url, "open-elsewhere")
    client = AsyncClient(url, **SETTINGS)
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(client.receivables("C001"), other).result(10)

        with pytest.raises(RuntimeError) as caught:
            asyncio.run(client.receivables("C001"))
        assert "another event loop, which is still open" in str(caught.value)
        assert "Make a client for each event loop" in str(caught.value)
        assert fault_api.count(sandbox_url, key) == 1

        # Closed in its own loop, the client serves this one.
        asyncio.run_coroutine_threadsafe(client.aclose(), other).result(10)
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join(10)
        other.close()
    assert asyncio.run(client.receivables("C001")).rows
    assert fault_api.count(sandbox_url, key) == 2


def test_a_given_http_client_from_an_ended_loop_is_refused(sandbox_url: str) -> None:
    url, key = counted(sandbox_url, "given-http")
    # Keeping no connection, so that the first loop leaves none open.
    http = httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))
    client = AsyncClient(url, http_client=http, **SETTINGS)
    assert asyncio.run(client.receivables("C001")).rows
    with pytest.raises(RuntimeError) as caught:
        asyncio.run(client.receivables("C001"))
    assert "given as http_client was used in an event loop that has ended" in str(caught.value)
    assert "inside the coroutine that uses them" in str(caught.value)
    assert fault_api.count(sandbox_url, key) == 1
    assert not http.is_closed  # the caller's, never closed by the client


def test_streams_left_open_are_closed_as_the_loop_ends_without_an_error(
    big_sandbox_url: str,
) -> None:
    # A stream neither read to its end nor closed when asyncio.run() ends
    # (still referenced: a variable outside the loop, a traceback) is
    # closed by the loop, with every async generator still open, all at
    # once. A stream was two generators, one wrapping the other, and the
    # outer one's close found the inner one being closed already: asyncio
    # reported "aclose(): asynchronous generator is already running" for
    # each such stream.
    errors: list[dict[str, Any]] = []
    kept: list[Any] = []
    settings = {**SETTINGS, "access_token": SECRET_TOKEN}

    async def main() -> AsyncClient:
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
        client = AsyncClient(big_sandbox_url, **settings)
        # Which one the loop closes first is left to chance: eight streams.
        for use_threads in [False, True] * 4:
            stream = client.stream_table("sales_invoice", use_threads=use_threads)
            assert len(await stream.__anext__()) == 4096
            kept.append(stream)
        return client

    client = asyncio.run(main())
    assert [context.get("message") for context in errors] == []
    assert client._pool._http.is_closed
    assert [stream.finished for stream in kept] == [False] * 8
