"""The work a client's method asks for, decided once for both clients:
one call of an operation of the core's catalogue (:class:`One`), many
calls that a core plan or a fan-out names (:class:`Many`), or blocking
work run as it is (:class:`Blocking`). ``Client`` and ``AsyncClient``
differ only in how they carry it out: blocking sends on threads, or
asyncio tasks.

Each public method is written once, in :mod:`erpdata._operations`, as a
function that checks its arguments (through the core) and returns the
work; :func:`blocking` and :func:`awaiting` make the two clients'
methods of it, with the same signature and docstring."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Awaitable, Coroutine, Generator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol, TypeVar, Union, cast

from . import _drive, _progress
from ._core import Call, Invocation, Plan, PlannedCall, Typing, closest_name
from ._errors import ErpError
from ._progress import ProgressArg
from ._timeouts import TimeoutTypes

__all__ = [
    "One",
    "Many",
    "Blocking",
    "Work",
    "PlanSteps",
    "calls",
    "advance",
    "finish",
    "afinish",
    "ended",
    "blocking",
    "awaiting",
]

if TYPE_CHECKING:
    import asyncio

    # Python 3.10's; only the type checker needs them.
    from typing_extensions import Concatenate, ParamSpec

    P = ParamSpec("P")

R = TypeVar("R")

Limits = Callable[[TimeoutTypes], dict[str, Any]]
"""A client's ``_limits``: a call's time limits and retries, and the
monotonic clock's reading at its start."""


@dataclass
class One(Generic[R]):
    """One call of ``invocation``; ``finish`` makes the method's result of
    its output. ``label`` names a table download's progress bar."""

    invocation: Invocation
    typing: Typing | None
    timeout: TimeoutTypes
    finish: Callable[[Any], R] = field(default=lambda output: output)
    progress: ProgressArg = False
    label: str = ""

    def start(self, limits: Limits) -> Call:
        return Call.start(self.invocation, self.typing, **limits(self.timeout))

    @contextmanager
    def state(self) -> Iterator[_drive.State]:
        """What the call has seen, with a progress reporter while it runs."""
        reporter = _progress.callback(self.progress, self.label) if self.label else None
        try:
            yield _drive.State(progress=reporter)
        finally:
            _progress.close(reporter)


Outcome = tuple[Any, Union[ErpError, None]]
"""A finished call's output, or the error it failed with."""


class Steps(Protocol[R]):
    """Calls to run, at most ``concurrency`` at a time (the core's
    :class:`~erpdata._core.Plan` speaks it)."""

    def next(self, limits: Limits) -> list[tuple[int, Call]] | Finished[R]: ...

    def done(self, id: int, call: Call, outcome: Outcome) -> None: ...


@dataclass
class Finished(Generic[R]):
    """Many calls' result."""

    value: R


@dataclass
class Many(Generic[R]):
    """Calls that ``steps`` names, each with ``timeout``."""

    steps: Steps[R]
    timeout: TimeoutTypes
    concurrency: int

    def next(self, limits: Limits) -> list[tuple[int, Call]] | Finished[R]:
        return self.steps.next(lambda _: limits(self.timeout))


@dataclass
class Blocking(Generic[R]):
    """Work that blocks (writing files), given a synchronous client and an
    event asking it to stop (set when an async caller is cancelled; ``None``
    for a synchronous caller, whom nothing cancels but Ctrl-C, which
    reaches its own thread)."""

    run: Callable[[Any, threading.Event | None], R]


Work = Union[One[R], Many[R], Blocking[R]]


class PlanSteps:
    """A core plan's calls: it decides every one, and keeps their results
    in Rust (a finished call carries its own)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def next(self, limits: Limits) -> list[tuple[int, Call]] | Finished[Any]:
        starts: list[tuple[int, Call]] = []
        while True:
            step = self.plan.next()  # raises the plan's first error
            if step is None:
                return starts
            if not isinstance(step, PlannedCall):
                return Finished(step)
            starts.append((step.id, step.start(**limits(None))))

    def done(self, id: int, call: Call, outcome: Outcome) -> None:
        self.plan.done(id, call)


def settle(id: int, call: Call, run: Callable[[Call], Any]) -> Settled:
    """Runs ``call`` to its end: its output, or the core's error (any
    other exception is raised)."""
    try:
        return id, call, (run(call), None)
    except ErpError as error:
        return id, call, (None, error)


async def asettle(id: int, call: Call, run: Callable[[Call], Coroutine[Any, Any, Any]]) -> Settled:
    """:func:`settle` for a coroutine."""
    try:
        return id, call, (await run(call), None)
    except ErpError as error:
        return id, call, (None, error)


Settled = tuple[int, Call, Outcome]
"""A call that ended: its id, the call, and its outcome."""


class Running(Protocol):
    """A call started on a thread or as an asyncio task (a
    ``concurrent.futures.Future`` or an ``asyncio.Task`` of :func:`settle`)."""

    def result(self) -> Settled: ...

    def cancel(self) -> bool: ...


H = TypeVar("H", bound=Running)


def calls(
    work: Many[R], limits: Limits, start: Callable[[int, Call], H]
) -> Generator[set[H], set[H], R]:
    """The loop over many calls, for both clients: starts each call that
    ``work`` names with ``start`` (on a thread, as a task), yields the
    calls running and is sent those that ended (at least one), hands
    their outcomes back, and returns the result. On an error, or closed,
    it cancels the calls still running."""
    running: set[H] = set()
    try:
        while not isinstance(step := work.next(limits), Finished):
            running |= {start(i, call) for i, call in step}
            ended = yield running
            running -= ended
            for call in ended:
                work.steps.done(*call.result())
        return step.value
    finally:
        for call in running:
            call.cancel()


def advance(loop: Generator[set[H], set[H], R], ended: set[H] | None) -> tuple[bool, Any]:
    """``ended`` sent to :func:`calls` (``None`` to start it): ``(False,
    the calls running)``, or ``(True, the result)`` once it returns."""
    try:
        return False, loop.send(ended)  # type: ignore[arg-type]
    except StopIteration as stop:
        return True, stop.value


def finish(loop: Generator[set[H], set[H], R], first: Callable[[set[H]], set[H]]) -> R:
    """Runs :func:`calls` on threads: ``first`` blocks until one of the
    running calls ends."""
    with closing(loop):
        done, value = advance(loop, None)
        while not done:
            done, value = advance(loop, first(value))
        return cast(R, value)


async def afinish(
    loop: Generator[set[H], set[H], R], first: Callable[[set[H]], Awaitable[set[H]]]
) -> R:
    """Runs :func:`calls` as asyncio tasks: ``first`` waits until one of
    the running calls ends. On an error (or cancelled) the calls still
    running are cancelled and waited for, so none is left pending."""
    import asyncio  # here: see _async_client

    running: set[H] = set()
    try:
        done, value = advance(loop, None)
        while not done:
            running = value
            done, value = advance(loop, await first(running))
        return cast(R, value)
    finally:
        loop.close()  # cancels the calls still running, once
        await ended(cast(set[asyncio.Future[Any]], running))


async def ended(tasks: set[asyncio.Future[Any]]) -> None:
    """Waits until ``tasks`` (just cancelled) have ended, without
    cancelling them again; a cancellation of the caller meanwhile is raised
    once they have.

    Not ``asyncio.gather``: cancelled, it cancels its tasks once more, and
    anyio (Starlette's, FastAPI's) cancels the caller again on every turn
    of the loop until it leaves the cancelled scope. A second cancel stops
    httpx's cleanup of the task's connection midway, which then stays busy
    in the pool for good: a shared client ran out of connections."""
    import asyncio

    pending = {task for task in tasks if not task.done()}
    cancelled: BaseException | None = None
    while pending:
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError as exc:
            cancelled = exc
        pending = {task for task in pending if not task.done()}
    for task in tasks:
        # Retrieved, as gather did: a task that ended in an error while
        # it was being cancelled would be reported as never retrieved.
        if not task.cancelled():
            task.exception()
    if cancelled is not None:
        raise cancelled


def _signature(spec: Callable[..., Any]) -> tuple[inspect.Signature, dict[str, Any]]:
    """The method's signature and annotations: the spec's, returning what
    its work gives (``Work[Dues]`` is ``Dues``)."""
    annotations = dict(spec.__annotations__)
    returned = str(annotations.get("return", ""))
    if returned.startswith("Work[") and returned.endswith("]"):
        returned = returned[len("Work[") : -1]
    annotations["return"] = returned
    annotations.pop("self", None)
    signature = inspect.signature(spec)
    params = list(signature.parameters.values())
    params[0] = params[0].replace(annotation=inspect.Parameter.empty)  # self
    return signature.replace(parameters=params, return_annotation=returned), annotations


def _keywords(func: Callable[..., Any]) -> frozenset[str]:
    """The keyword arguments ``func`` takes (its first, ``self``, aside)."""
    params = list(inspect.signature(func).parameters.values())[1:]
    assert all(p.kind is not p.VAR_KEYWORD for p in params), func
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _check_keywords(
    known: frozenset[str], kwargs: dict[str, Any], owner: object, name: str
) -> None:
    """Refuses a keyword argument none of ``known``, naming the public
    method and the argument most likely meant (``companyId``:
    ``company_id``, by the rule JS's option checks use): Python's own
    TypeError named the internal function ("Operations.table() got an
    unexpected keyword argument 'companyId'") and guessed nothing. Never
    the value: it may be a token."""
    if kwargs.keys() <= known:
        return
    for key in kwargs:
        if key not in known:
            own = sorted(known)
            meant = closest_name(key, own)
            hint = f"did you mean {meant!r}?" if meant else f"it takes {', '.join(own)}"
            where = type(owner).__name__ + ("" if name == "__init__" else f".{name}")
            raise TypeError(f"{where}() got an unexpected keyword argument {key!r}; {hint}")


def restyled(
    func: Callable[..., Any], doc: str | None = None, **annotations: str
) -> Callable[..., Any]:
    """A shared method as one client's own: its docstring ``doc`` (default:
    ``func``'s), and the annotations given (``returns``: the return's) in
    its signature, as that client's types spell them."""
    known = _keywords(func)

    @functools.wraps(func)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            _check_keywords(known, kwargs, self, func.__name__)
            return func(self, *args, **kwargs)
        except BaseException:
            # The constructor's arguments hold the token: not shown by a
            # traceback printed with its locals (see ClientBase.__init__).
            kwargs.clear()
            raise

    signature = inspect.signature(func)
    returns = annotations.pop("returns", signature.return_annotation)
    params = [
        p.replace(annotation=annotations.get(p.name, p.annotation))
        for p in signature.parameters.values()
    ]
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=returns
    )
    method.__annotations__ = {**func.__annotations__, **annotations, "return": returns}
    if doc is not None:
        method.__doc__ = doc
    return method


def blocking(spec: Callable[Concatenate[Any, P], Work[R]]) -> Callable[Concatenate[Any, P], R]:
    """``Client``'s method of ``spec``: the work, carried out."""

    known = _keywords(spec)

    @functools.wraps(spec)
    def method(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        _check_keywords(known, kwargs, self, spec.__name__)
        result: R = self._carry_out(spec(self, *args, **kwargs))
        return result

    method.__signature__, method.__annotations__ = _signature(spec)  # type: ignore[attr-defined]
    method.__qualname__ = f"Client.{spec.__name__}"
    return cast("Callable[Concatenate[Any, P], R]", method)


def awaiting(
    spec: Callable[Concatenate[Any, P], Work[R]], doc: str | None = None
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """``AsyncClient``'s method of ``spec``, documented by ``doc`` (default:
    ``spec``'s docstring)."""

    known = _keywords(spec)

    @functools.wraps(spec)
    async def method(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        _check_keywords(known, kwargs, self, spec.__name__)
        result: R = await self._carry_out(spec(self, *args, **kwargs))
        return result

    method.__signature__, method.__annotations__ = _signature(spec)  # type: ignore[attr-defined]
    # The client's name, not the spec's: "coroutine 'AsyncClient.table' was
    # never awaited" names what the caller forgot to await (it said
    # 'Operations.table', a class no caller sees).
    method.__qualname__ = f"AsyncClient.{spec.__name__}"
    if doc is not None:
        method.__doc__ = doc
    return cast("Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]", method)
