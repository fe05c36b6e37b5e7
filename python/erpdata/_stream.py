"""Streamed tables: batches handed out as the answer arrives."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any, Callable, Generic, Literal, TypeVar, cast

from ._checks import counted, invalid, shown
from ._core import Batch
from ._drive import State as StreamState
from ._models import Row, _need

__all__ = ["TableStream", "AsyncTableStream", "BatchFormat", "converter"]

T = TypeVar("T")

BatchFormat = Literal["rows", "arrow"]
"""``"rows"``: each batch a list of row dicts; ``"arrow"``: each batch a
``pyarrow.RecordBatch``."""


def _rows(batch: Batch) -> list[Row]:
    return batch.to_rows()


ROWS_PER_TURN = 4096
"""Rows an async stream makes at a time before it lets the event loop run
(a few milliseconds' work): a batch of 65,536 row dicts made at once held
the loop for 80 ms."""


async def _checkpoint() -> None:
    """Lets the event loop (asyncio's or trio's) run the other tasks."""
    from . import _async  # here: see _async_client

    await _async.sleep(0)


async def _rows_in_turns(batch: Batch) -> list[Row]:
    """:func:`_rows`, :data:`ROWS_PER_TURN` at a time, the loop let run
    between them."""
    rows = batch.to_rows(0, ROWS_PER_TURN)
    for start in range(ROWS_PER_TURN, len(batch), ROWS_PER_TURN):
        await _checkpoint()
        rows += batch.to_rows(start, start + ROWS_PER_TURN)
    return rows


def converter(batch_format: str) -> Callable[[Batch], Any]:
    """What a stream turns each core batch into."""
    if batch_format == "rows":
        return _rows
    if batch_format == "arrow":
        pa = _need("pyarrow", "arrow", 'stream_table(batch_format="arrow")')
        record_batch: Callable[[Batch], Any] = pa.record_batch
        return record_batch
    invalid("batch_format", f"must be 'rows' or 'arrow', got {shown(batch_format)}")


class _StreamInfo:
    """What a stream has seen so far."""

    _state: StreamState

    @property
    def rows_received(self) -> int:
        """Complete rows that have arrived so far."""
        return self._state.rows_received

    @property
    def bytes_received(self) -> int:
        """Bytes of the answer's body received so far."""
        return self._state.bytes_received

    @property
    def rows_delivered(self) -> int:
        """Rows handed out in batches so far."""
        return self._state.rows_delivered

    @property
    def notices(self) -> list[str]:
        """PHP notices before the JSON (known once the stream has ended)."""
        return self._state.notices

    @property
    def finished(self) -> bool:
        """Whether the whole answer arrived and was handed out."""
        return self._state.finished


class TableStream(_StreamInfo, Generic[T]):
    """The batches of a table as they arrive: iterate it, ideally inside a
    ``with`` block so the connection is released when you stop early.

    Every batch has the same schema, fixed by the first batch (decimals
    at precision 38, a column without a value there a string column) or
    by ``schema_overrides``; a later value that does not fit raises
    ``DecodeError`` naming the column and the row. If the answer fails part-way,
    iteration raises after the last complete batch and the error's
    ``rows_received`` (also in its message) says how many rows had arrived.
    """

    def __init__(
        self, batches: Iterator[Batch], state: StreamState, convert: Callable[[Batch], T]
    ) -> None:
        self._batches = batches
        self._state = state
        self._convert = convert

    def __iter__(self) -> Iterator[T]:
        return self

    def __next__(self) -> T:
        return self._convert(next(self._batches))

    def close(self) -> None:
        """Stops the stream and releases its connection."""
        close: Callable[[], None] | None = getattr(self._batches, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> TableStream[T]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<TableStream: {counted(self.rows_delivered, 'row')} so far>"


class AsyncTableStream(_StreamInfo, Generic[T]):
    """:class:`TableStream` for ``async for`` (and ``async with``)."""

    def __init__(
        self, batches: AsyncIterator[Batch], state: StreamState, convert: Callable[[Batch], T]
    ) -> None:
        self._batches = batches
        self._state = state
        self._convert = convert

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        batch = await self._batches.__anext__()
        if self._convert is _rows:
            return cast(T, await _rows_in_turns(batch))
        return self._convert(batch)

    async def aclose(self) -> None:
        """Stops the stream and releases its connection."""
        aclose: Callable[[], Any] | None = getattr(self._batches, "aclose", None)
        if aclose is not None:
            await aclose()

    async def __aenter__(self) -> AsyncTableStream[T]:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<AsyncTableStream: {counted(self.rows_delivered, 'row')} so far>"
