"""Results: ``Table`` (a sequence of row dicts over typed columns) and
``Dues``.

Values in rows are ``None``, ``bool``, ``int``, ``decimal.Decimal`` (every
value of a decimal column, exact), ``datetime.date``, ``datetime.datetime``
(naive, to the microsecond), ``str``, or the ``dict``/``list`` of nested
JSON. Values sent as JSON strings are typed from their text as numbers
are (``"1500.00"`` a ``Decimal``); MySQL's zero dates are ``None``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union, overload

from . import _html
from ._checks import counted, invalid, shown
from ._kinds import DuesKind

if TYPE_CHECKING:
    import os

    from ._core import DuesData, TableData
    from .excel import ExcelResult

__all__ = ["Id", "Row", "Table", "Dues", "AjaxAnswer"]

_ROW_CHUNK = 4096
"""Rows a :class:`Table` makes at a time for indexing (about 4 ms)."""

Id = Union[str, int]
"""An account, company or year id: a ``str`` is sent as given, an ``int``
as its decimal text."""

Row = dict[str, Any]
"""One row: column name to value, in column order."""


def _need(module: str, extra: str, what: str) -> Any:
    """Imports an optional dependency, or says which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing_extra(exc, what, extra) from exc


def missing_extra(exc: ImportError, what: str, extra: str) -> ImportError:
    """The ImportError to raise when ``what`` could not import a module of
    ``extra``: it names the module and the pip command that installs it."""
    # The package, not the submodule that failed (pyspark, not pyspark.sql):
    # what pip installs.
    module = (exc.name or "a module").split(".")[0]
    return ImportError(f"{what} needs {module}: pip install 'erpdata[{extra}]'")


class Table(Sequence[Row]):
    """The rows of one table fetch, held as typed columns.

    A ``Sequence`` of row dicts (made on first access, every column in
    each row, ``None`` where a row had no value), and the source of
    :meth:`to_arrow`, :meth:`to_pandas` and :meth:`to_polars`, which are
    built from the columns without going through Python objects. Arrow
    consumers take it directly through the Arrow PyCapsule protocol
    (``__arrow_c_stream__``), e.g. ``pyarrow.table(t)`` or DuckDB; for
    polars use :meth:`to_polars` (``polars.DataFrame(t)`` sees a sequence
    of dicts first and would build the frame row by row).

    Each column has one type over the whole table: ``int64``,
    ``decimal128(p, s)`` (exact), ``date32``, ``timestamp[us]`` (no time
    zone), ``bool``, ``string`` (text that is none of those, each value as
    sent), or ``string`` holding JSON texts for nested values (field
    metadata ``erpdata.type = json``). ``columns`` lists every key seen in
    any row, in first-seen order; ``notices`` holds PHP notices the
    service printed before its JSON.
    """

    __slots__ = ("_data", "_rows", "_chunks")

    def __init__(self, data: TableData) -> None:
        self._data = data
        self._rows: list[Row] | None = None
        # Rows made for indexing, _ROW_CHUNK at a time, by chunk number:
        # t[0] or a notebook's preview of a million rows makes a few
        # thousand dicts, not a million (a second and a gigabyte).
        self._chunks: dict[int, list[Row]] = {}

    def _chunk(self, number: int) -> list[Row]:
        rows = self._chunks.get(number)
        if rows is None:
            start = number * _ROW_CHUNK
            rows = self._chunks[number] = self._data.rows(start, start + _ROW_CHUNK)
        return rows

    def _all_rows(self) -> list[Row]:
        rows = self._rows
        if rows is None:
            if self._chunks:
                # The dicts already handed out stay the table's rows.
                rows = []
                for number in range(-(-self._data.num_rows // _ROW_CHUNK)):
                    rows += self._chunk(number)
            else:
                rows = self._data.rows()
            self._rows, self._chunks = rows, {}
        return rows

    @property
    def columns(self) -> list[str]:
        """Column names in first-seen order."""
        return self._data.columns

    @property
    def notices(self) -> list[str]:
        """PHP notices or warnings printed before the JSON."""
        return self._data.notices

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if self._rows is not None:
            return self._rows[index]
        n = self._data.num_rows
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            return [self._chunk(i // _ROW_CHUNK)[i % _ROW_CHUNK] for i in range(start, stop, step)]
        i = operator.index(index)
        if not -n <= i < n:
            raise IndexError("table index out of range")
        i %= n
        return self._chunk(i // _ROW_CHUNK)[i % _ROW_CHUNK]

    def __len__(self) -> int:
        return self._data.num_rows

    def row_chunks(self, size: int = 10_000) -> Iterator[list[Row]]:
        """The rows as dicts, ``size`` at a time, each chunk made from the
        columns when it is reached and not kept: a large table is never
        all Python objects at once (writing it out, say)."""
        for start in range(0, self._data.num_rows, size):
            yield self._data.rows(start, start + size)

    def __iter__(self) -> Iterator[Row]:
        # Faster than Sequence's index-by-index default.
        return iter(self._all_rows())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return (self.columns, self.notices, self._all_rows()) == (
            other.columns,
            other.notices,
            other._all_rows(),
        )

    __hash__ = None  # type: ignore[assignment]  # rows are mutable dicts

    def __repr__(self) -> str:
        columns = self.columns
        shown = ", ".join(columns[:8])
        more = f", ... (+{len(columns) - 8})" if len(columns) > 8 else ""
        notices = self.notices
        notes = f", {counted(len(notices), 'notice')}" if notices else ""
        return f"<Table: {counted(len(self), 'row')}; columns: {shown}{more}{notes}>"

    @property
    def schema(self) -> list[tuple[str, str]]:
        """``(name, type)`` of each column, the type as the core names it:
        ``int``, ``decimal(p,s)``, ``date``, ``timestamp``, ``bool``,
        ``string``, ``json``, ``null``."""
        return self._data.schema

    def _repr_html_(self) -> str:
        return _html.table_html(
            "erpdata Table", self.schema, self[: _html.PREVIEW_ROWS], len(self), self.notices
        )

    # -- Arrow and DataFrames --------------------------------------------------

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule protocol: the table as a stream of record
        batches, sharing its buffers (no copy)."""
        return self._data.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> object:
        """The Arrow PyCapsule protocol: the table's schema."""
        return self._data.__arrow_c_schema__()

    def to_arrow(self) -> Any:
        """The table as a ``pyarrow.Table`` (needs ``erpdata[arrow]``),
        sharing the columns' buffers."""
        pa = _need("pyarrow", "arrow", "Table.to_arrow()")
        return pa.RecordBatchReader.from_stream(self).read_all()

    def to_pandas(self, *, dtype_backend: Literal["pyarrow", "numpy"] = "pyarrow") -> Any:
        """The table as a ``pandas.DataFrame`` (needs ``erpdata[pandas]``).

        ``dtype_backend="pyarrow"`` (the default) gives Arrow-backed
        columns (``pd.ArrowDtype``): exact decimals, dates, timestamps and
        strings straight from the Arrow buffers, without a per-value
        conversion. ``"numpy"`` gives NumPy dtypes: ``int64``, ``float64``
        for decimals (rounded to the nearest float), ``datetime64`` for
        dates and ``datetime64[us]`` for timestamps (the microsecond unit
        kept, so years 0001–9999 all fit), ``object`` for strings, as most
        older pandas code expects.
        """
        if not isinstance(dtype_backend, str) or dtype_backend not in ("pyarrow", "numpy"):
            invalid("dtype_backend", f"must be 'pyarrow' or 'numpy', got {shown(dtype_backend)}")
        pd = _need("pandas", "pandas", "Table.to_pandas()")
        table = self.to_arrow()
        if dtype_backend == "pyarrow":
            return table.to_pandas(types_mapper=pd.ArrowDtype)
        pa = _need("pyarrow", "arrow", "Table.to_pandas()")
        for i, column in enumerate(table.schema):
            if pa.types.is_decimal(column.type):
                # Through the decimal text: Arrow's direct cast divides in
                # floating point and can miss the nearest float.
                exact = table.column(i).cast(pa.string()).cast(pa.float64())
                table = table.set_column(i, column.name, exact)
        return table.to_pandas(date_as_object=False, coerce_temporal_nanoseconds=False)

    def to_polars(self) -> Any:
        """The table as a ``polars.DataFrame`` (needs ``erpdata[polars]``),
        taken through the Arrow PyCapsule protocol (no pyarrow needed)."""
        pl = _need("polars", "polars", "Table.to_polars()")
        return pl.DataFrame(self._data)

    def to_excel(
        self,
        path: str | os.PathLike[str],
        *,
        sheet: str = "Sheet1",
        totals: bool | Sequence[str] = False,
        highlight: str | None = None,
        about: dict[str, Any] | None = None,
    ) -> ExcelResult:
        """The table as an Excel workbook at ``path`` (needs
        ``erpdata[excel]``): exact decimals as numbers with the column's
        scale as their format, dates as Excel dates, text as text, a bold
        frozen header with filters, and an About sheet (``about``: what was
        asked; the time and erpdata's version are added). ``totals`` and
        ``highlight`` are :class:`erpdata.excel.Sheet`'s. Several tables in
        one workbook: :func:`erpdata.write_excel`."""
        from .excel import Sheet, write_excel

        return write_excel(
            path, {sheet: Sheet(self, totals=totals, highlight=highlight)}, about=about
        )


@dataclass(frozen=True, repr=False)
class Dues:
    """The answer of one dues query.

    ``kind`` says receivables or payables; ``acid`` is the account id as
    sent (an ``int`` becomes its decimal text); ``rows`` are the dues rows,
    each with the keys it was sent with and its values typed by column as
    a table's are (money as ``decimal.Decimal`` with the digits sent,
    dates as ``datetime.date``, zero dates ``None``); ``raw`` is
    the JSON text the service sent, because the interface does not
    document the dues fields; ``notices`` are PHP notices before the JSON.
    """

    acid: str
    kind: DuesKind
    rows: list[Row]
    raw: str
    notices: list[str] = field(default_factory=list)
    _data: DuesData | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        # `raw` can be large; the rows count says enough.
        return f"<Dues {self.kind.value} of {self.acid!r}: {counted(len(self.rows), 'row')}>"

    def _repr_html_(self) -> str:
        title = f"{self.kind.value.capitalize()} dues of {self.acid}"
        if self._data is None:
            schema = [(k, "") for k in dict.fromkeys(k for r in self.rows for k in r)]
            return _html.table_html(title, schema, self.rows, len(self.rows), self.notices)
        table = self.to_table()
        return _html.table_html(
            title, table.schema, table[: _html.PREVIEW_ROWS], len(table), self.notices
        )

    def to_table(self) -> Table:
        """The rows as a :class:`Table` (typed columns)."""
        if self._data is None:
            invalid("dues", "was not made by erpdata: it holds no typed columns")
        table: Table = self._data.table()
        return table

    def to_arrow(self) -> Any:
        """The rows as a ``pyarrow.Table`` (needs ``erpdata[arrow]``)."""
        return self.to_table().to_arrow()

    def to_pandas(self, *, dtype_backend: Literal["pyarrow", "numpy"] = "pyarrow") -> Any:
        """The rows as a ``pandas.DataFrame`` (see :meth:`Table.to_pandas`)."""
        return self.to_table().to_pandas(dtype_backend=dtype_backend)

    def to_polars(self) -> Any:
        """The rows as a ``polars.DataFrame`` (needs ``erpdata[polars]``)."""
        return self.to_table().to_polars()


@dataclass(frozen=True, repr=False)
class AjaxAnswer:
    """The answer of a function of ``ajax.php`` (``dues_summary``,
    ``avg_pay_days`` and the other named functions, or any function
    through ``ajax``).

    Their shapes are not published; ``shape`` says what came back:

    - ``"rows"``: a list of objects, in ``rows`` (row dicts typed by
      column, as a table's), also as a :class:`Table` (:meth:`to_arrow`,
      :meth:`to_pandas`, :meth:`to_polars`);
    - ``"object"``: one object, in ``fields`` (each value typed alone);
    - ``"value"``: one value, in ``value`` (``Decimal``, ``int``,
      ``datetime.date``, ``str``, ``None``, ...).

    ``value`` is the answer whatever its shape (the rows, the fields or the
    value); ``schema`` lists ``(name, type)`` of its columns or fields;
    ``raw`` is the JSON text sent (the token redacted); ``notices`` are PHP
    notices printed before it.
    """

    func: str
    shape: Literal["rows", "object", "value"]
    schema: list[tuple[str, str]]
    raw: str
    rows: list[Row] = field(default_factory=list)
    fields: Row = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    data: Table | None = field(default=None, compare=False)
    scalar: Any = None

    def __init__(
        self,
        *,
        func: str,
        shape: Literal["rows", "object", "value"],
        schema: list[tuple[str, str]],
        raw: str,
        rows: list[Row] | None = None,
        fields: Row | None = None,
        value: Any = None,
        notices: list[str] | None = None,
        data: Table | None = None,
    ) -> None:
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "schema", schema)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "rows", rows or [])
        object.__setattr__(self, "fields", fields or {})
        object.__setattr__(self, "notices", notices or [])
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "scalar", value)

    @property
    def value(self) -> Any:
        """The rows, the fields or the value, as ``shape`` says."""
        if self.shape == "rows":
            return self.rows
        if self.shape == "object":
            return self.fields
        return self.scalar

    def to_table(self) -> Table:
        """The rows as a :class:`Table` (typed columns); only for ``shape``
        ``"rows"``: another shape is an :class:`InvalidInputError` naming
        ``shape``."""
        if self.shape == "rows" and self.data is not None:
            return self.data
        invalid("shape", f"is {self.shape!r}: only rows convert to a table")

    def to_arrow(self) -> Any:
        """The rows as a ``pyarrow.Table`` (needs ``erpdata[arrow]``)."""
        return self.to_table().to_arrow()

    def to_pandas(self, *, dtype_backend: Literal["pyarrow", "numpy"] = "pyarrow") -> Any:
        """The rows as a ``pandas.DataFrame`` (see :meth:`Table.to_pandas`)."""
        return self.to_table().to_pandas(dtype_backend=dtype_backend)

    def to_polars(self) -> Any:
        """The rows as a ``polars.DataFrame`` (needs ``erpdata[polars]``)."""
        return self.to_table().to_polars()

    def _repr_html_(self) -> str:
        title = f"{self.func} ({self.shape})"
        if self.shape == "rows":
            return _html.table_html(title, self.schema, self.rows, len(self.rows), self.notices)
        if self.shape == "object":
            return _html.fields_html(title, self.schema, self.fields)
        return _html.fields_html(title, self.schema, {"value": self.scalar})

    def __repr__(self) -> str:
        if self.shape == "rows":
            what = counted(len(self.rows), "row")
        elif self.shape == "object":
            what = "fields " + ", ".join(list(self.fields)[:6])
        else:
            what = repr(self.scalar)
        return f"<AjaxAnswer {self.func}: {what}>"
