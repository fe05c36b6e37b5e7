"""Excel workbooks (``.xlsx``) of tables, dues, aging and credit status,
written as finance opens them.

    import erpdata
    from erpdata.excel import Sheet

    aging = client.aging(as_of="2025-12-31")
    status = client.credit_status(as_of="2025-12-31")
    erpdata.write_excel(
        "credit.xlsx",
        {"Aging": Sheet(aging, totals=True),
         "Credit status": Sheet(status, totals=True, highlight="over_limit")},
        about={"As of": "2025-12-31"},
    )

Each value keeps its type:

- a decimal is a number, with its column's scale as the number format
  (``#,##0.00``), when Excel shows it exactly: at most
  :data:`EXACT_DIGITS` (15) significant digits, trailing zeros not
  counted. Every such decimal is held by a double to the digit, and Excel
  shows 15 digits. A longer one (``12345678901234567.89``) would be
  rounded, so it is written as its exact text, with a note on the cell.
  Integers follow the same rule (an id past 15 digits is text, with a
  note), and so does a number past Excel's range (1E-307 to
  9.99999999999999E+307), which a double would make zero or infinity.
- a date or timestamp is an Excel date (``yyyy-mm-dd``,
  ``yyyy-mm-dd hh:mm:ss``); one before 1900, where Excel's dates begin,
  is ISO text with a note.
- text is text (an id ``007`` stays ``007``), formatted as text; nested
  JSON values are their JSON text; a bool is TRUE or FALSE.

Each sheet has a bold header, frozen, with filters, and columns as wide
as their longest value (up to 60 characters). A :class:`Sheet` may add a
totals row of ``SUM`` formulas (with the exact sums as their cached
results, so a viewer that does not recalculate shows them too) and fill
the rows whose bool column is true (over-limit customers). Each workbook
ends with an "About" sheet: what was asked (``about``), when it was
written (UTC), by which erpdata version, and each sheet's rows.

Rows are written batch by batch with xlsxwriter's ``constant_memory``
mode: memory stays bounded by one batch however long the table, so a
:meth:`Client.stream_table` stream can go straight into a workbook. A
table longer than one worksheet (1,048,575 rows under the header)
continues on ``name (2)``, ``name (3)``, ... with the same header: every
row is kept, as typed values (CSV, the other way out, keeps neither
types nor formats).

Needs ``erpdata[excel]`` (xlsxwriter).
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import tempfile
import unicodedata
import uuid
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Union

from ._checks import invalid, shown
from ._core import __version__
from ._models import AjaxAnswer, Dues, Row, Table, missing_extra
from ._text import decimal_text
from .report import _summable

__all__ = [
    "Sheet",
    "ExcelResult",
    "write_excel",
    "SHEET_ROWS",
    "EXACT_DIGITS",
    "ABOUT_SHEET",
]

SHEET_ROWS = 1_048_575
"""Most data rows on one worksheet: Excel's 1,048,576 rows, less the
header."""

EXACT_DIGITS = 15
"""Most significant digits of a number written as a number: what Excel
shows, and what a double holds exactly for every decimal."""

ABOUT_SHEET = "About"
"""The name of the sheet that says what the workbook holds."""

MAX_COLUMNS = 16_384
"""Excel's columns per worksheet."""

MAX_NOTES = 1_000
"""Notes per worksheet on values written as text. Past that, the About
sheet still counts them: a million comment boxes would make a workbook
Excel is slow to open."""

TEXT_LIMIT = 32_767
"""Characters Excel keeps in a cell."""

MAX_WIDTH = 60
"""Widest column, in characters: longer text wraps out of view."""

CHUNK_ROWS = 10_000
"""Rows turned into Python objects at a time from a Table."""

HIGHLIGHT = "#F8CBAD"
"""The fill of highlighted rows (a light red)."""

_DATE = "yyyy-mm-dd"
_TIMESTAMP = "yyyy-mm-dd hh:mm:ss"
_INT = "0"
_TEXT = "@"
_BOOL = '"TRUE";"TRUE";"FALSE"'
_FIRST_DAY = datetime.date(1900, 1, 1)
_BIG_INT = 10**EXACT_DIGITS
_LARGEST = 10**308
_SMALLEST = Decimal("1E-307")

Source = Union[Table, Dues, AjaxAnswer, Iterable[Any]]
"""What a sheet is made of: a :class:`Table`, a :class:`Dues`, a function's
rows answer, row dicts, or batches of row dicts (a ``stream_table``
stream, or pyarrow record batches)."""


@dataclass(frozen=True)
class Sheet:
    """One table as a worksheet, with what finance adds to it.

    ``data`` is a :class:`Table`, :class:`Dues`, a function's rows answer,
    an iterable of row dicts, or an iterable of batches of them (a
    ``stream_table`` stream; pyarrow record batches). ``totals``: ``True``
    adds a totals row of ``SUM`` formulas under every numeric column whose
    name does not hold ``days`` (a count of days does not add up) and that
    is not an id (``id``, ``compid``, ``yearid``, a name ending in
    ``_id``); a list of column names sums those. ``highlight`` names a bool column: the
    rows where it is true are filled (``"over_limit"`` for a credit
    status)."""

    data: Source
    totals: bool | Sequence[str] = False
    highlight: str | None = None


@dataclass(frozen=True)
class ExcelResult:
    """What :func:`write_excel` wrote: the file, each worksheet's data rows
    (a long table's continuation sheets included; the About sheet not),
    and how many values were written otherwise than given, each with a
    note: numbers of more than 15 significant digits or past Excel's range
    and dates before 1900 as text, text cut to Excel's 32,767 characters."""

    path: str
    sheets: dict[str, int]
    text_values: int = 0

    @property
    def rows(self) -> int:
        """Data rows over all sheets."""
        return sum(self.sheets.values())


def _xlsxwriter() -> Any:
    try:
        return importlib.import_module("xlsxwriter")
    except ImportError as exc:
        raise missing_extra(exc, "an Excel workbook", "excel") from exc


# -- sheet names ---------------------------------------------------------------

_BAD_NAME_CHARS = set("[]:*?/\\")


def _abandon(book: Any) -> None:
    """Closes the files of a workbook given up before it was written.

    In ``constant_memory`` mode xlsxwriter keeps each sheet's rows in a
    file of its own, open until ``Workbook.close()`` assembles the
    workbook from them: a write that fails part-way would leave them open
    (a ``ResourceWarning``; on Windows the scratch folder could not be
    removed). Closing the workbook instead would assemble it all first."""
    for sheet in book.worksheets():
        rows = getattr(sheet, "row_data_fh", None)
        if rows is not None:
            rows.close()


def _as_target(exc: OSError, partial: Path, target: Path) -> OSError:
    """``exc`` naming the file asked for, not the hidden one beside it."""
    if exc.errno is None or not {exc.filename, exc.filename2} & {str(partial), partial}:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(target))


def _name_length(name: str) -> int:
    """A sheet name's length as Excel counts it: in UTF-16 units, so a
    character past U+FFFF (an emoji) counts two."""
    return len(name.encode("utf-16-le", "surrogatepass")) // 2


def _control(char: str) -> bool:
    """Whether ``char`` is a control character (or one XML cannot hold):
    in a sheet name, the workbook's XML would be broken or the name
    changed by the reader."""
    return unicodedata.category(char) in ("Cc", "Cs") or char in "\ufffe\uffff"


def _check_name(name: object) -> str:
    """``name`` if Excel takes it as a sheet name."""
    if not isinstance(name, str) or not name.strip():
        invalid("sheets", f"a sheet name must be non-empty text, got {shown(name)}")
    bad = sorted(_BAD_NAME_CHARS & set(name))
    if bad:
        invalid("sheets", f"sheet name {name!r} holds {''.join(bad)!r}, which Excel refuses")
    if any(_control(c) for c in name):
        invalid("sheets", f"sheet name {name!r} holds a control character, which Excel refuses")
    if _name_length(name) > 31:
        invalid(
            "sheets",
            f"sheet name {name!r} is {_name_length(name)} characters as Excel counts them "
            "(one past U+FFFF, such as an emoji, counts two); Excel takes 31",
        )
    if name.startswith("'") or name.endswith("'"):
        invalid("sheets", f"sheet name {name!r} starts or ends with a quote, which Excel refuses")
    if name.casefold() in _RESERVED_NAMES:
        invalid("sheets", f"sheet name {name!r} is reserved; choose another")
    return name


_RESERVED_NAMES = ("history", ABOUT_SHEET.casefold())
"""Names no sheet of ours may take: Excel keeps "History" for its change
tracking, and the About sheet ends every workbook."""


def _made_name(text: str, taken: Collection[str] = ()) -> str:
    """``text`` (a table's or a function's name) made a sheet name
    :func:`_check_name` takes and none of ``taken`` has (Excel ignores
    case): each character Excel refuses becomes ``_``, a quote at either
    end too, a reserved name gains a ``_`` (``history_``), a long one is
    cut to 31, and a name already taken gains `` (2)``, `` (3)``, ...
    The name stays recognisable; :func:`write_excel` itself refuses a
    name it would have to change, since its caller chose it."""
    name = "".join("_" if c in _BAD_NAME_CHARS or _control(c) else c for c in text).strip()
    if name.startswith("'"):
        name = "_" + name[1:]
    if name.endswith("'"):
        name = name[:-1] + "_"
    name = _part_name(name or "Sheet", 1, cut=True)
    if name.casefold() in _RESERVED_NAMES:
        name += "_"
    folded = {t.casefold() for t in taken}
    part = 1
    made = name
    while made.casefold() in folded:
        part += 1
        made = _part_name(name, part)
    return made


def _part_name(name: str, part: int, *, cut: bool = False) -> str:
    """The name of the ``part``-th sheet of a long table: ``name (2)``,
    cut so that it stays within Excel's 31 characters (the first part too
    when ``cut``)."""
    if part == 1 and not cut:
        return name
    suffix = f" ({part})" if part > 1 else ""
    while _name_length(name) > 31 - len(suffix):
        name = name[:-1]
    return name + suffix


def _quoted(name: str) -> str:
    """A sheet name as a formula refers to it."""
    return "'" + name.replace("'", "''") + "'"


# -- sources -------------------------------------------------------------------


def _source(data: Any) -> tuple[list[str] | None, dict[str, str], Iterator[Sequence[Row]]]:
    """The columns (``None`` until the first row says), the column types
    when known, and the rows in chunks."""
    if isinstance(data, (Dues, AjaxAnswer)):
        data = data.to_table()
    if isinstance(data, Table):
        return data.columns, dict(data.schema), data.row_chunks(CHUNK_ROWS)
    if isinstance(data, (str, bytes, Mapping)) or not isinstance(data, Iterable):
        invalid(
            "sheets",
            "each sheet must be a Table, Dues, a rows answer, row dicts or batches of row "
            f"dicts, got {type(data).__name__}",
        )
    return None, {}, _chunks(data)


def _chunks(data: Iterable[Any]) -> Iterator[Sequence[Row]]:
    """Row dicts in chunks: a batch as it comes, single rows gathered."""
    pending: list[Row] = []
    for item in data:
        if isinstance(item, Mapping):
            pending.append(dict(item))
            if len(pending) >= CHUNK_ROWS:
                yield pending
                pending = []
            continue
        if pending:
            yield pending
            pending = []
        to_pylist = getattr(item, "to_pylist", None)  # a pyarrow RecordBatch
        if callable(to_pylist):
            item = to_pylist()
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence):
            invalid(
                "sheets",
                f"rows must be dicts or batches (lists) of dicts, got {type(item).__name__}",
            )
        yield item
    if pending:
        yield pending


# -- cells ---------------------------------------------------------------------


def _decimal_format(scale: int) -> str:
    return "#,##0" if scale <= 0 else "#,##0." + "0" * scale


def _scale(kind: str) -> int | None:
    """The scale of a ``decimal(p,s)`` column type."""
    if kind.startswith("decimal(") and kind.endswith(")"):
        return int(kind[:-1].split(",")[-1])
    return None


def _exact_decimal(value: Decimal) -> bool:
    """Whether a double, as Excel shows it, is ``value`` to the digit
    (and within the numbers Excel holds)."""
    if not value.is_finite() or not _in_range(value):
        return False
    digits = value.as_tuple().digits
    if len(digits) <= EXACT_DIGITS:
        return True
    # Trailing zeros are the scale, not precision (1500.000...0).
    return len("".join(map(str, digits)).rstrip("0")) <= EXACT_DIGITS


def _exact_int(value: int) -> bool:
    if -_BIG_INT < value < _BIG_INT:
        return True
    return abs(value) < _LARGEST and len(str(abs(value)).rstrip("0")) <= EXACT_DIGITS


def _in_range(value: Decimal) -> bool:
    """Whether Excel holds ``value``'s magnitude: 0, or from 1E-307 up to
    its largest number (9.99999999999999E+307). Past either end a double
    would turn it into infinity (which no workbook holds) or zero."""
    return not value or _SMALLEST <= abs(value) < _LARGEST


_EPOCH = datetime.date(1899, 12, 30).toordinal()
_LEAP_1900 = datetime.date(1900, 3, 1).toordinal()


def _serial(value: datetime.date) -> float:
    """Excel's serial number of a date or naive timestamp from 1900 on:
    days since 1899-12-30, less one before March 1900 (Excel counts a
    29 February 1900 that never was), the time as a fraction of a day."""
    days = value.toordinal()
    serial = float(days - _EPOCH - (1 if days < _LEAP_1900 else 0))
    if isinstance(value, datetime.datetime):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        serial += (seconds + value.microsecond / 1e6) / 86400
    return serial


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


class _Formats:
    """The workbook's cell formats, each made once."""

    def __init__(self, book: Any) -> None:
        self._book = book
        self._made: dict[tuple[str | None, bool, bool], Any] = {}

    def get(self, num_format: str | None, highlight: bool = False, bold: bool = False) -> Any:
        key = (num_format, highlight, bold)
        made = self._made.get(key)
        if made is None:
            props: dict[str, Any] = {}
            if num_format is not None:
                props["num_format"] = num_format
            if highlight:
                props["bg_color"] = HIGHLIGHT
            if bold:
                props["bold"] = True
            made = self._made[key] = self._book.add_format(props)
        return made


class _Cells:
    """Writes typed values into cells, as the module's rules say, and
    keeps what a sheet needs at its end: column widths, notes, sums."""

    def __init__(self, formats: _Formats) -> None:
        self.formats = formats
        self.text_values = 0

    def write(
        self,
        ws: Any,
        row: int,
        col: int,
        value: Any,
        scale: int | None,
        highlight: bool,
        notes: _Notes,
    ) -> int:
        """Writes ``value``; returns its width in characters."""
        kind = type(value)
        fmt = self.formats.get
        if value is None:
            if highlight:
                ws.write_blank(row, col, None, fmt(None, True))
            return 0
        if kind is str:
            return self._text(ws, row, col, value, highlight, notes)
        if kind is Decimal:
            if _exact_decimal(value):
                if scale is None:
                    exponent = value.as_tuple().exponent
                    scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
                ws.write_number(row, col, float(value), fmt(_decimal_format(scale), highlight))
                text = str(value)
                return len(text) + len(text) // 4  # thousands separators
            return self._as_text(ws, row, col, value, highlight, notes, "number")
        if kind is bool:
            # TRUE and FALSE in every viewer (LibreOffice shows 1 and 0
            # for a bool cell without this format).
            ws.write_boolean(row, col, value, fmt(_BOOL, highlight))
            return 5
        if kind is int:
            if _exact_int(value):
                ws.write_number(row, col, value, fmt(_INT, highlight))
                return len(str(value))
            return self._as_text(ws, row, col, value, highlight, notes, "number")
        if kind is datetime.date or kind is datetime.datetime:
            timestamp = kind is datetime.datetime
            if timestamp and value.tzinfo is not None:
                # Excel's dates have no time zone: the offset stays in text.
                text = value.isoformat(" ")
                ws.write_string(row, col, text, fmt(_TEXT, highlight))
                return len(text)
            if (value.date() if timestamp else value) < _FIRST_DAY:
                return self._as_text(ws, row, col, value, highlight, notes, "date")
            # The serial number Excel stores for the date (what
            # write_datetime computes, several times faster here).
            ws.write_number(
                row, col, _serial(value), fmt(_TIMESTAMP if timestamp else _DATE, highlight)
            )
            return 19 if timestamp else 10
        if kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                ws.write_string(row, col, str(value), fmt(_TEXT, highlight))
                return len(str(value))
            ws.write_number(row, col, value, fmt(None, highlight))
            return len(repr(value))
        text = _json_text(value) if isinstance(value, (dict, list)) else str(value)
        return self._text(ws, row, col, text, highlight, notes)

    def _text(self, ws: Any, row: int, col: int, text: str, highlight: bool, notes: _Notes) -> int:
        if len(text) > TEXT_LIMIT:
            self.text_values += 1
            notes.add(
                ws, row, col, f"{len(text):,} characters, cut to the {TEXT_LIMIT:,} Excel keeps"
            )
            text = text[:TEXT_LIMIT]
        ws.write_string(row, col, text, self.formats.get(_TEXT, highlight))
        return len(text)

    def _as_text(
        self,
        ws: Any,
        row: int,
        col: int,
        value: Any,
        highlight: bool,
        notes: _Notes,
        what: str,
    ) -> int:
        """A number or date Excel cannot show exactly: its exact text, with
        a note that says why it is text."""
        if what == "date":
            text = (
                value.isoformat(" ") if isinstance(value, datetime.datetime) else value.isoformat()
            )
            why = "before 1900, where Excel's dates begin: written as text"
        else:
            text = str(value)
            if isinstance(value, Decimal) and not value.is_finite():
                why = "not a number Excel holds: written as text"
            elif (isinstance(value, Decimal) and not _in_range(value)) or abs(value) >= _LARGEST:
                why = (
                    "outside the numbers Excel holds (1E-307 to 9.99999999999999E+307): "
                    "written as text, exact"
                )
            else:
                if isinstance(value, Decimal):
                    # Its digits at its scale, not str()'s exponent form
                    # under 1E-6 (past Excel's range, that form is kept).
                    text = decimal_text(value)
                why = (
                    f"more than {EXACT_DIGITS} significant digits, more than Excel keeps in a "
                    "number: written as text, exact"
                )
        self.text_values += 1
        notes.add(ws, row, col, f"{text}: {why}")
        ws.write_string(row, col, text, self.formats.get(_TEXT, highlight))
        return len(text)


class _Notes:
    """Cell notes of one worksheet, at most :data:`MAX_NOTES`."""

    def __init__(self) -> None:
        self.count = 0

    def add(self, ws: Any, row: int, col: int, text: str) -> None:
        self.count += 1
        if self.count <= MAX_NOTES:
            ws.write_comment(row, col, text, {"author": "erpdata", "x_scale": 2})


# -- sheets --------------------------------------------------------------------


class _Part:
    """One worksheet of a sheet (a long table has several)."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws = ws
        self.name = name
        self.rows = 0
        self.notes = _Notes()


class _SheetWriter:
    """Writes one :class:`Sheet` over as many worksheets as its rows need."""

    def __init__(
        self,
        book: Any,
        cells: _Cells,
        name: str,
        sheet: Sheet,
        rows_per_sheet: int,
        taken: set[str],
    ) -> None:
        self.book = book
        # Names of the other sheets (case-folded), which a continuation
        # sheet must not take.
        self.taken = taken
        # Rows of dicts not made from a Table may hold columns the first
        # row did not: checked row by row.
        self.check_keys = False
        self.cells = cells
        self.name = name
        self.sheet = sheet
        self.totals = sheet.totals
        # The totals row takes one of the worksheet's rows.
        self.capacity = rows_per_sheet - (1 if sheet.totals else 0)
        self.parts: list[_Part] = []
        self.columns: list[str] = []
        self.types: dict[str, str] = {}
        self.scales: list[int | None] = []
        self.widths: list[int] = []
        self.highlight_col: str | None = None
        self.sum_cols: list[int] = []
        self.sums: dict[int, Decimal] = {}
        self.sum_scales: dict[int, int] = {}
        self.sum_text: dict[int, int] = {}
        self.not_numeric: set[int] = set()
        # Summed columns that held floats: their total is shown as their
        # cells are (General), not at a decimal scale of 0.
        self.sum_floats: set[int] = set()

    def write(self) -> None:
        columns, types, chunks = _source(self.sheet.data)
        if columns is not None:
            self._start(columns, types)
        for chunk in chunks:
            if not chunk:
                continue
            if not self.parts:
                self.check_keys = True
                self._start(list(chunk[0]), {})
            self._rows(chunk)
        if not self.parts:
            self._start([], {})
        self._finish()

    def _start(self, columns: list[str], types: dict[str, str]) -> None:
        if len(columns) > MAX_COLUMNS:
            invalid(
                "sheets",
                f"sheet {self.name!r} has {len(columns):,} columns; an Excel sheet holds "
                f"{MAX_COLUMNS:,}",
            )
        self.columns = columns
        self.types = types
        self.scales = [_scale(types.get(c, "")) for c in columns]
        self.widths = [len(str(c)) + 3 for c in columns]  # + the filter's button
        highlight = self.sheet.highlight
        if highlight is not None:
            if highlight not in columns:
                invalid(
                    "highlight",
                    f"sheet {self.name!r} has no column {highlight!r}; it has "
                    f"{', '.join(map(str, columns)) or 'none'}",
                )
            self.highlight_col = highlight
        self._sum_columns()
        self._new_part()

    def _sum_columns(self) -> None:
        totals = self.totals
        if totals is False:
            return
        index = {c: i for i, c in enumerate(self.columns)}
        if totals is True:
            # Known types decide now; rows without types (a stream of
            # dicts) decide at the end: columns that held only numbers.
            chosen = [
                i
                for i, c in enumerate(self.columns)
                if _summable(str(c))
                and (not self.types or self.types[c] == "int" or _scale(self.types[c]) is not None)
            ]
        else:
            if isinstance(totals, (str, bytes)) or not isinstance(totals, Sequence):
                invalid("totals", f"must be True, False or column names, got {shown(totals)}")
            missing = [c for c in totals if c not in index]
            if missing:
                invalid(
                    "totals",
                    f"sheet {self.name!r} has no column {missing[0]!r}; it has "
                    f"{', '.join(map(str, self.columns))}",
                )
            chosen = [index[c] for c in totals]
        self.sum_cols = chosen
        self.sums = {i: Decimal(0) for i in chosen}
        self.sum_scales = {i: 0 for i in chosen}
        self.sum_text = {i: 0 for i in chosen}

    def _new_part(self) -> None:
        name = _part_name(self.name, len(self.parts) + 1)
        if self.parts and name.casefold() in self.taken:
            invalid(
                "sheets",
                f"sheet {self.name!r} has more rows than one sheet holds and continues on "
                f"{name!r}, the name of another sheet; rename that one",
            )
        ws = self.book.add_worksheet(name)
        part = _Part(ws, name)
        header = self.cells.formats.get(None, bold=True)
        for col, column in enumerate(self.columns):
            ws.write_string(0, col, str(column), header)
        ws.freeze_panes(1, 0)
        self.parts.append(part)

    def _rows(self, chunk: Sequence[Row]) -> None:
        columns = self.columns
        known = set(columns) if self.check_keys else None
        write = self.cells.write
        scales = self.scales
        widths = self.widths
        highlight_col = self.highlight_col
        summing = bool(self.sum_cols)
        part = self.parts[-1]
        for row in chunk:
            if part.rows >= self.capacity:
                self._close_part(part)
                self._new_part()
                part = self.parts[-1]
            if known is not None and not known.issuperset(row):
                extra = next(k for k in row if k not in known)
                invalid(
                    "sheets",
                    f"sheet {self.name!r}: a row has column {extra!r}, which the first row "
                    "did not; every column must be in the first row (declare the "
                    "stream's schema_overrides, or pass a Table)",
                )
            part.rows += 1
            r = part.rows
            lit = highlight_col is not None and row.get(highlight_col) is True
            ws = part.ws
            notes = part.notes
            for col, column in enumerate(columns):
                value = row.get(column)
                width = write(ws, r, col, value, scales[col], lit, notes)
                if width > widths[col]:
                    widths[col] = width
            if summing:
                self._add_sums(row)

    def _add_sums(self, row: Row) -> None:
        for i in self.sum_cols:
            value = self.sum_value(row.get(self.columns[i]), i)
            if value is not None:
                self.sums[i] += value

    def sum_value(self, value: Any, i: int) -> Decimal | None:
        """What ``value`` adds to its column's SUM: as Excel counts it
        (text, a bool or a missing value add nothing)."""
        kind = type(value)
        if kind is Decimal:
            if not _exact_decimal(value):
                self.sum_text[i] += 1
                return None
            exponent = value.as_tuple().exponent
            if isinstance(exponent, int) and -exponent > self.sum_scales[i]:
                self.sum_scales[i] = -exponent
            return Decimal(value)
        if kind is int:
            if not _exact_int(value):
                self.sum_text[i] += 1
                return None
            return Decimal(value)
        if kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                self.not_numeric.add(i)
                return None
            self.sum_floats.add(i)
            return Decimal(repr(value))
        if value is not None:
            self.not_numeric.add(i)
        return None

    def _close_part(self, part: _Part) -> None:
        ws = part.ws
        last_col = max(len(self.columns) - 1, 0)
        if self.columns:
            ws.autofilter(0, 0, part.rows, last_col)
        for col, width in enumerate(self.widths):
            ws.set_column(col, col, min(width, MAX_WIDTH) + 1)
        # Printed or saved as PDF: landscape, every column on one page's
        # width, the header atop each page.
        ws.set_landscape()
        ws.fit_to_pages(1, 0)
        ws.repeat_rows(0)

    def _finish(self) -> None:
        last = self.parts[-1]
        if self.sum_cols:
            self._totals_row(last)
        for part in self.parts:
            self._close_part(part)

    def _totals_row(self, last: _Part) -> None:
        """A row of SUM formulas under the last rows, over every part."""
        chosen = [i for i in self.sum_cols if not (self.totals is True and i in self.not_numeric)]
        if not chosen:
            return
        ws = last.ws
        r = last.rows + 1
        formats = self.cells.formats
        if 0 not in chosen:
            ws.write_string(r, 0, "Total", formats.get(None, bold=True))
        for i in chosen:
            letter = _column_letter(i)
            ranges = [
                (f"{_quoted(p.name)}!" if len(self.parts) > 1 else "")
                + f"{letter}2:{letter}{p.rows + 1}"
                for p in self.parts
                if p.rows > 0
            ]
            formula = f"=SUM({','.join(ranges)})" if ranges else "=0"
            total = self.sums[i]
            scale = self.scales[i]
            num_format: str | None
            if self.types.get(self.columns[i]) == "int":
                num_format = _INT
            elif scale is None and i in self.sum_floats:
                num_format = None  # as the floats' own cells
            else:
                num_format = _decimal_format(self.sum_scales[i] if scale is None else scale)
            width = len(f"{total:,}") + 1
            if i == 0:
                # No cell left for the label: the number's format shows it
                # ("Total 1,234.00"), or the row would read as one more.
                num_format = _labelled(num_format or "General")
                width += 6
            cached: float | int = int(total) if total == total.to_integral_value() else float(total)
            ws.write_formula(r, i, formula, formats.get(num_format, bold=True), cached)
            if width > self.widths[i]:
                self.widths[i] = width
            if self.sum_text[i]:
                last.notes.add(
                    ws,
                    r,
                    i,
                    f"{self.sum_text[i]:,} values of this column are text (more than "
                    f"{EXACT_DIGITS} significant digits, or past Excel's range) and are not "
                    "in this sum",
                )


def _labelled(num_format: str) -> str:
    """``num_format`` with "Total " before the number, a negative one's
    minus sign after it ("Total -5.00", not "-Total 5.00")."""
    return f'"Total "{num_format};"Total "-{num_format}'


def _column_letter(index: int) -> str:
    """Excel's name of the column at ``index`` (0: A, 26: AA)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


# -- the About sheet -------------------------------------------------------------


def _about_value(value: Any) -> Any:
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in value)
    return value


def _write_about(
    book: Any,
    cells: _Cells,
    about: Mapping[str, Any],
    written: datetime.datetime,
    sheets: list[tuple[str, str, int]],
    text_values: int,
) -> None:
    ws = book.add_worksheet(ABOUT_SHEET)
    formats = cells.formats
    bold = formats.get(None, bold=True)
    notes = _Notes()
    ws.write_string(0, 0, "About this workbook", formats.get(None, bold=True))
    r = 2
    widths = [12, 20, 12]
    entries = [(str(k), _about_value(v)) for k, v in about.items()]
    entries += [("Written (UTC)", written), ("erpdata", __version__)]
    for label, value in entries:
        ws.write_string(r, 0, label, bold)
        widths[0] = max(widths[0], len(label))
        widths[1] = max(widths[1], cells.write(ws, r, 1, value, None, False, notes))
        r += 1
    r += 1
    for col, title in enumerate(("Sheet", "Rows", "Holds")):
        ws.write_string(r, col, title, bold)
    for name, holds, rows in sheets:
        r += 1
        ws.write_string(r, 0, name)
        ws.write_number(r, 1, rows, formats.get("#,##0"))
        ws.write_string(r, 2, holds)
        widths[0] = max(widths[0], len(name))
        widths[2] = max(widths[2], len(holds))
    if text_values:
        r += 2
        ws.write_string(
            r,
            0,
            f"{text_values:,} values are written as text, each with a note (the first "
            f"{MAX_NOTES:,} of a sheet): numbers of more than {EXACT_DIGITS} significant "
            "digits, which Excel would round, or past its range, dates before 1900, and "
            f"text cut to the {TEXT_LIMIT:,} characters of a cell.",
        )
    for col, width in enumerate(widths):
        ws.set_column(col, col, min(width, MAX_WIDTH) + 2)
    ws.fit_to_pages(1, 0)


# -- the workbook --------------------------------------------------------------


def _fill(
    book: Any,
    sheets: Mapping[str, Any],
    rows_per_sheet: int,
    about: Mapping[str, Any],
    written: datetime.datetime,
) -> tuple[dict[str, int], int]:
    """Writes every sheet and the About sheet into ``book``: the rows of
    each sheet written (by the name it got), and how many values went in
    as text."""
    book.set_properties({"comments": f"Written by erpdata {__version__}"})
    cells = _Cells(_Formats(book))
    result: dict[str, int] = {}
    listed: list[tuple[str, str, int]] = []
    names = {n.casefold() for n in sheets}
    for name, given in sheets.items():
        sheet = given if isinstance(given, Sheet) else Sheet(given)
        writer = _SheetWriter(book, cells, name, sheet, rows_per_sheet, names)
        writer.write()
        total = sum(p.rows for p in writer.parts)
        start = 1
        for part in writer.parts:
            names.add(part.name.casefold())
            result[part.name] = part.rows
            if len(writer.parts) == 1:
                holds = "every row"
            else:
                end = start + part.rows - 1
                holds = f"rows {start:,} to {end:,} of the {total:,} of {name!r}"
            listed.append((part.name, holds, part.rows))
            start += part.rows
    _write_about(book, cells, about, written, listed, cells.text_values)
    return result, cells.text_values


def write_excel(
    path: str | os.PathLike[str],
    sheets: Mapping[str, Sheet | Source],
    *,
    about: Mapping[str, Any] | None = None,
    rows_per_sheet: int = SHEET_ROWS,
) -> ExcelResult:
    """Writes ``sheets`` (sheet name to a :class:`Sheet`, or a table as
    :class:`Sheet` takes it) as one workbook at ``path``, then the About
    sheet: ``about``'s entries (what was asked: function, company, year,
    as-of day; never a secret), the time (UTC) and erpdata's version, and
    each sheet's rows.

    Rows are written batch by batch in bounded memory (xlsxwriter's
    ``constant_memory`` mode); a sheet of more than ``rows_per_sheet``
    rows (at most, and by default, :data:`SHEET_ROWS`: all Excel holds
    under the header) continues on ``name (2)``, ``name (3)``, ... The
    file appears whole or not at all: it is written beside ``path`` and
    renamed over it at the end. Needs ``erpdata[excel]``."""
    xlsxwriter = _xlsxwriter()
    if isinstance(rows_per_sheet, bool) or not isinstance(rows_per_sheet, int):
        invalid("rows_per_sheet", f"must be an int, got {shown(rows_per_sheet)}")
    if not 2 <= rows_per_sheet <= SHEET_ROWS:
        invalid("rows_per_sheet", f"must be from 2 to {SHEET_ROWS:,}, got {rows_per_sheet:,}")
    if not isinstance(sheets, Mapping) or not sheets:
        invalid("sheets", f"must be a dict of sheet name to table, got {shown(sheets)}")
    if about is not None and not isinstance(about, Mapping):
        invalid("about", f"must be a dict of label to value, got {shown(about)}")
    seen: set[str] = set()
    for name in sheets:
        folded = _check_name(name).casefold()
        if folded in seen:
            invalid("sheets", f"two sheets are named {name!r} (Excel ignores case)")
        seen.add(folded)
    target = Path(os.fspath(path))
    if not target.parent.is_dir():
        invalid("path", f"{str(target)!r}: folder {str(target.parent)!r} does not exist")
    if target.is_dir():
        # Said before the rows are written, not by the rename at the end.
        invalid("path", f"{str(target)!r} is a folder; name a file in it")
    # Beside the target, so the rename at the end is atomic.
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.partial")
    try:
        # Made now, empty: a folder that cannot be written to is said
        # before the rows are written, not when the workbook is assembled.
        partial.open("xb").close()
    except OSError as exc:
        raise _as_target(exc, partial, target) from None
    written = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
    try:
        with tempfile.TemporaryDirectory(prefix="erpdata-xlsx-") as scratch:
            book = xlsxwriter.Workbook(
                str(partial),
                {
                    "constant_memory": True,
                    # Rows wait on disk here until the file is assembled.
                    "tmpdir": scratch,
                    "strings_to_numbers": False,
                    "strings_to_formulas": False,
                    "strings_to_urls": False,
                },
            )
            try:
                result, text_values = _fill(book, sheets, rows_per_sheet, about or {}, written)
            except BaseException:
                _abandon(book)
                raise
            try:
                book.close()
            except xlsxwriter.exceptions.FileCreateError as exc:
                # xlsxwriter's wrapper of the OSError (a full disk): the
                # OSError itself, as open() would raise it.
                cause = exc.args[0] if exc.args else None
                if isinstance(cause, OSError):
                    raise _as_target(cause, partial, target) from None
                raise
        try:
            os.replace(partial, target)
        except OSError as exc:
            # A target that cannot be replaced (read-only, or open in
            # Excel on Windows) is named, not the hidden file beside it.
            raise _as_target(exc, partial, target) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return ExcelResult(str(target), result, text_values)
