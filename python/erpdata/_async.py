"""What an :class:`AsyncClient` waits with: asyncio's, or trio's when it
runs under trio.

httpx runs under either (sniffio tells which one is running), and so do
a client's single calls and streams. What waits on the async library
itself is here: a retry's sleep, blocking work on a worker thread (the
export's writes), and many calls as tasks (``dues_many``, ``dues_table``,
``aging``, ``credit_status``). Each library is imported where it runs
(see ``_async_client``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from ._work import Many, Settled, advance, afinish, asettle, calls
from ._work import ended as ended_tasks

if TYPE_CHECKING:
    import asyncio

    from ._core import Call
    from ._work import Limits

__all__ = ["sleep", "in_thread", "run_calls", "current_loop", "has_ended"]

R = TypeVar("R")


def _under_trio() -> bool:
    import sniffio

    try:
        return sniffio.current_async_library() == "trio"
    except sniffio.AsyncLibraryNotFoundError:
        return False


def current_loop() -> object:
    """What the running code's connections belong to: asyncio's running
    loop, or trio's run (its token)."""
    if _under_trio():
        import trio

        return trio.lowlevel.current_trio_token()
    import asyncio

    return asyncio.get_running_loop()


def has_ended(loop: object) -> bool:
    """Whether ``loop`` (from :func:`current_loop`) has ended: an asyncio
    loop closed, a trio run finished."""
    import asyncio

    if isinstance(loop, asyncio.AbstractEventLoop):
        return loop.is_closed()
    import trio

    try:
        loop.run_sync_soon(lambda: None)  # type: ignore[attr-defined]
    except trio.RunFinishedError:
        return True
    return False


async def sleep(seconds: float) -> None:
    """Waits ``seconds`` (a retry's pause)."""
    if _under_trio():
        import trio

        await trio.sleep(seconds)
    else:
        import asyncio

        await asyncio.sleep(seconds)


async def in_thread(run: Callable[[], R], stop: Callable[[], None]) -> R:
    """``run()`` on a worker thread, the event loop running meanwhile.
    Cancelled, or interrupted (Ctrl-C: trio raises ``KeyboardInterrupt``
    in the waiting task), it calls ``stop()`` (which asks ``run`` to
    return early) and waits for ``run`` to return before the exception
    goes on: a thread left running would go on writing the caller's files
    after the caller was told the call had ended (asyncio's executor never
    stops a thread, and trio waited for the whole export before the
    cancellation), and one still in DuckDB as the interpreter exits
    aborts the process."""
    ended = threading.Event()

    def tracked() -> R:
        try:
            return run()
        finally:
            ended.set()

    if _under_trio():
        import trio

        try:
            return await trio.to_thread.run_sync(tracked, **_abandoned())  # type: ignore[arg-type]
        except BaseException as exc:
            if not ended.is_set():
                stop()
                # Shielded from the cancellation, yet given up at a second
                # Ctrl-C: trio delivers KeyboardInterrupt to a thread's
                # waiter only when it may abandon the thread. (A coroutine
                # being closed, GeneratorExit, cannot wait.)
                if not isinstance(exc, GeneratorExit):
                    with trio.CancelScope(shield=True):
                        await trio.to_thread.run_sync(ended.wait, **_abandoned())  # type: ignore[arg-type]
            raise
    import asyncio

    future = asyncio.get_running_loop().run_in_executor(None, tracked)
    try:
        # Shielded: cancelling the executor's future would not stop the thread.
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        stop()
        await ended_tasks({future})  # which marks its error, if any, as seen
        raise


def _abandoned() -> dict[str, bool]:
    """trio's keyword for a thread whose caller may be cancelled meanwhile
    (``cancellable`` before trio 0.23)."""
    import inspect

    import trio

    parameters = inspect.signature(trio.to_thread.run_sync).parameters
    return {"abandon_on_cancel" if "abandon_on_cancel" in parameters else "cancellable": True}


async def run_calls(work: Many[R], limits: Limits, arun: Callable[[Call], Any]) -> R:
    """The calls of ``work`` as tasks, at most its concurrency at a time;
    the first error cancels the rest, which are waited for."""
    if _under_trio():
        return await _trio_calls(work, limits, arun)
    import asyncio

    async def first(running: set[asyncio.Task[Settled]]) -> set[asyncio.Task[Settled]]:
        ended, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        return ended

    loop = calls(work, limits, lambda i, c: asyncio.ensure_future(asettle(i, c, arun)))
    return await afinish(loop, first)


class _TrioTask:
    """A call's task in a trio nursery, as :func:`calls` needs one: its
    outcome once it ended, and a way to cancel it."""

    def __init__(self) -> None:
        import trio

        self.scope = trio.CancelScope()
        self.settled: Settled | None = None

    def result(self) -> Settled:
        assert self.settled is not None, "asked before the call ended"
        return self.settled

    def cancel(self) -> bool:
        self.scope.cancel()
        return True


async def _trio_calls(work: Many[R], limits: Limits, arun: Callable[[Call], Any]) -> R:
    import math

    import trio

    # Not open_memory_channel[...]: trio before 0.23 cannot be subscripted.
    channel: tuple[trio.MemorySendChannel[_TrioTask], trio.MemoryReceiveChannel[_TrioTask]]
    channel = trio.open_memory_channel(math.inf)
    ended, ends = channel
    error: Exception | None = None
    value: Any = None
    try:
        async with trio.open_nursery() as nursery:

            def start(id: int, call: Call) -> _TrioTask:
                task = _TrioTask()

                async def run() -> None:
                    with task.scope:
                        task.settled = await asettle(id, call, arun)
                        ended.send_nowait(task)

                nursery.start_soon(run)
                return task

            loop = calls(work, limits, start)
            try:
                done, value = advance(loop, None)
                while not done:
                    batch = {await ends.receive()}
                    while True:
                        try:
                            batch.add(ends.receive_nowait())
                        except trio.WouldBlock:
                            break
                    done, value = advance(loop, batch)
            except Exception as exc:
                # Raised once the nursery has closed: from inside it, trio
                # would hand it out wrapped in an ExceptionGroup.
                error = exc
            finally:
                loop.close()  # cancels the calls still running
    except BaseException as exc:
        # Ctrl-C while the calls ran: trio raises KeyboardInterrupt in the
        # waiting task (or in a call's), and the nursery handed it out in
        # an ExceptionGroup, which a script's `except KeyboardInterrupt`
        # did not catch (a traceback and exit 1, not an interrupt).
        interrupt = _interrupt_in(exc)
        if interrupt is None or interrupt is exc:
            raise
        raise interrupt from None
    if error is not None:
        raise error
    return value  # type: ignore[no-any-return]


def _interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """``exc`` if a KeyboardInterrupt, or the first one in the exception
    group ``exc`` (trio's nursery makes one of what its tasks raised)."""
    if isinstance(exc, KeyboardInterrupt):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _interrupt_in(inner)
        if found is not None:
            return found
    return None
