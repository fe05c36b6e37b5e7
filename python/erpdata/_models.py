"""Results: ``Table`` (a sequence of row dicts) and ``Dues``.

Built by the native module. Values in rows are ``None``, ``bool``, ``int``,
``decimal.Decimal`` (any number with a fraction or exponent, exactly as
sent), ``str``, or the ``dict``/``list`` of nested JSON.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, List, Union, overload

from ._kinds import DuesKind

__all__ = ["Id", "Row", "Table", "Dues"]

Id = Union[str, int]
"""An account, company or year id: a ``str`` is sent as given, an ``int``
as its decimal text."""

Row = Dict[str, Any]
"""One row: column name to value, in the order the service sent them."""


class Table(Sequence[Row]):
    """The rows of one table fetch.

    ``columns`` lists every key seen in any row, in first-seen order;
    ``notices`` holds PHP notices the service printed before its JSON.
    """

    __slots__ = ("_rows", "columns", "notices")

    def __init__(
        self,
        rows: List[Row],
        *,
        columns: List[str],
        notices: List[str],
    ) -> None:
        self._rows = rows
        self.columns = columns
        self.notices = notices

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> List[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | List[Row]:
        return self._rows[index]

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[Row]:
        # Faster than Sequence's index-by-index default.
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return (self._rows, self.columns, self.notices) == (
            other._rows,
            other.columns,
            other.notices,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable rows

    def __repr__(self) -> str:
        shown = ", ".join(self.columns[:8])
        more = f", ... (+{len(self.columns) - 8})" if len(self.columns) > 8 else ""
        notes = f", {len(self.notices)} notices" if self.notices else ""
        return f"<Table: {len(self._rows)} rows; columns: {shown}{more}{notes}>"


@dataclass(frozen=True, repr=False)
class Dues:
    """The answer of one dues query.

    ``acid`` is the account id as sent (an ``int`` becomes its decimal
    text); ``raw`` is the JSON text the service sent, because the interface
    does not document the dues fields.
    """

    acid: str
    kind: DuesKind
    rows: List[Row]
    raw: str
    notices: List[str] = field(default_factory=list)

    def __repr__(self) -> str:
        # `raw` can be large; the rows count says enough.
        return f"<Dues {self.kind.value} of {self.acid!r}: {len(self.rows)} rows>"
