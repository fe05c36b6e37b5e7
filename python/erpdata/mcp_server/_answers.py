"""Answers a model can read: the structured content of a tool's result
(JSON values only: exact decimals as their text, dates as ISO text) and a
compact text table with totals, both capped at a number of rows with a
note of what was left out and how to ask for less."""

from __future__ import annotations

import datetime
import decimal
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .._text import decimal_text

__all__ = [
    "Answer",
    "json_value",
    "rows_answer",
    "function_answer",
    "noted",
    "summed_columns",
    "text_cell",
    "zero_of",
    "EXACT",
]

CELL_WIDTH = 40
"""Longer text is cut in the text table."""

MAX_TEXT = 2_000
"""Longer text is cut in the structured rows too, with a note: a row cap
alone lets one answer of long values (`repeat('x', 200000)`, a
`string_agg` over a table) run to megabytes, more than a model reads."""

MAX_ITEMS = 100
"""Longer lists are cut to their first items, with a note, for the same
reason: one `array_agg(invoice_no)` over a table is a single row."""

MAX_NESTED = 20_000
"""A list or object whose JSON is still longer, once its lists and texts
are cut (lists of lists, objects of many long texts), is given as the
start of its JSON text, cut like a long text."""

EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
"""Sums in this context are exact: the default one keeps 28 digits and
rounds a larger total (two DECIMAL(38,2) values summed to 2.0...0E+28)."""

_DECIMAL_KIND = re.compile(r"decimal\((\d+),(-?\d+)\)")


def zero_of(kind: str) -> Decimal:
    """The zero of a decimal column of ``kind`` (``decimal(38,2)``) at its
    scale, which sums keep: the total of no rows is ``0.00``, as the
    column's values are written, not ``0``."""
    match = _DECIMAL_KIND.fullmatch(kind)
    return Decimal(0).scaleb(-int(match.group(2))) if match else Decimal(0)


MAX_NOTICES = 5
"""Notices shown in an answer: a PHP loop can print one per row."""

MAX_NOTICE = 500
"""Longer notices are cut (a notice can quote a whole SQL statement)."""


def json_value(value: Any) -> Any:
    """``value`` as plain JSON: a ``Decimal`` as its exact text (a float
    would round it), dates and times as ISO text, nested values converted
    the same way; anything else JSON cannot hold as its text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Decimal):
        # At its scale: str() writes 0E-8 and 1.2E-7 below 1E-6.
        return decimal_text(value)
    if isinstance(value, float):
        # JSON has no NaN or infinity.
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (datetime.date, datetime.time)):
        # datetime is a date: "2025-04-01T13:45:00".
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _exact(value: Any) -> Any:
    """A decimal column's value as a ``Decimal``: rows hold a decimal of
    scale 0 as an ``int`` (docs/types.md), which would otherwise go out as
    a JSON number and be left out of the totals."""
    if type(value) is int:
        return Decimal(value)
    return value


def _decimal_columns(columns: Sequence[tuple[str, str]]) -> set[str]:
    """The names of the decimal columns of ``columns``."""
    return {name for name, kind in columns if kind.startswith("decimal")}


def text_cell(value: Any) -> str:
    """A value as the text table shows it: one line, at most CELL_WIDTH
    characters, the pipe that separates cells escaped."""
    if value is None:
        return ""
    shown = json_value(value)
    if isinstance(shown, bool):
        text = "true" if shown else "false"
    elif isinstance(shown, (dict, list)):
        text = json.dumps(shown, ensure_ascii=False)
    else:
        text = str(shown)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= CELL_WIDTH else text[: CELL_WIDTH - 1] + "…"


@dataclass(frozen=True)
class Answer:
    """A tool's result: the structured content and its text."""

    structured: dict[str, Any]
    text: str


NOT_ADDED_UP = re.compile(
    r"days|rate|percent|ratio|(?<![a-z])(avg|average|mean|median|min|minimum|max|maximum)(?![a-z])",
    re.IGNORECASE,
)
"""Decimal columns whose sum means nothing (average payment days, a tax
rate, an average, the largest or smallest of a group, named as SQL names
them, ``max(total)``, or as models alias them, ``avg_total``): left out
of the totals."""


def summed_columns(columns: Sequence[tuple[str, str]]) -> list[str]:
    """The columns an answer totals: the decimal ones (money), but those
    :data:`NOT_ADDED_UP` names. Integers (ids, counts of days) are not."""
    return [
        name
        for name, kind in columns
        if kind.startswith("decimal") and not NOT_ADDED_UP.search(name)
    ]


def _totals(
    columns: Sequence[tuple[str, str]], rows: Iterable[Mapping[str, Any]]
) -> dict[str, str]:
    """The exact sum of each :func:`summed_columns` column over every row."""
    money = set(summed_columns(columns))
    sums = {name: zero_of(kind) for name, kind in columns if name in money}
    for row in rows:
        for name in sums:
            value = _exact(row.get(name))
            if isinstance(value, Decimal) and value.is_finite():
                sums[name] = EXACT.add(sums[name], value)
    return {name: decimal_text(total) for name, total in sums.items()}


def _markdown(
    columns: Sequence[str], rows: Sequence[Mapping[str, Any]], totals: Mapping[str, str]
) -> str:
    lines = [
        "| " + " | ".join(text_cell(c) for c in columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    lines.extend("| " + " | ".join(text_cell(row.get(c)) for c in columns) + " |" for row in rows)
    if totals:
        cells = [totals.get(c, "") for c in columns]
        # Marked whatever its first column holds: a sum there would read
        # as one more row.
        if columns:
            cells[0] = f"**total** {cells[0]}".rstrip()
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rows_answer(
    title: str,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Mapping[str, Any]],
    *,
    max_rows: int,
    narrow: str,
    row_count: int | None = None,
    totals: Mapping[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Answer:
    """Rows as an answer: at most ``max_rows`` of them shown (the first),
    the totals of the decimal columns over all of them, and when rows
    were left out a note saying how many and ``narrow``: how to ask for
    fewer. ``row_count`` is the number of rows in all when ``rows`` holds
    only the first of them (a SQL result read up to the cap), ``totals``
    then the sums over all of them."""
    total_rows = len(rows) if row_count is None else row_count
    shown = list(rows[:max_rows])
    left_out = total_rows - len(shown)
    totals = dict(_totals(columns, rows) if totals is None else totals)
    names = [name for name, _ in columns]
    decimals = _decimal_columns(columns)
    values = [
        {
            name: json_value(_exact(row.get(name)) if name in decimals else row.get(name))
            for name in names
        }
        for row in shown
    ]
    cut = _Cut()
    for row in values:
        for name, value in row.items():
            row[name] = cut.value(value)
    structured: dict[str, Any] = {
        "shape": "rows",
        "columns": [{"name": name, "type": kind} for name, kind in columns],
        "rows": values,
        "row_count": total_rows,
        "rows_left_out": left_out,
        "totals": totals,
    }
    lines = [f"{title}: {total_rows:,} row{'' if total_rows == 1 else 's'}."]
    if shown:
        lines += ["", _markdown(names, shown, totals)]
    if totals and left_out:
        lines.append(f"(totals are over all {total_rows:,} rows)")
    if left_out:
        note = (
            f"{left_out:,} of {total_rows:,} rows left out: this answer shows the first "
            f"{len(shown):,}. To see the rest, {narrow}"
        )
        structured["note"] = note
        lines += ["", note]
    cut_note = cut.note()
    if cut_note:
        structured["note"] = f"{structured['note']} {cut_note}" if left_out else cut_note
        lines += ["", cut_note]
    if extra:
        structured.update(extra)
    return Answer(structured, "\n".join(lines))


class _Cut:
    """Values (JSON-shaped) cut to what an answer holds, and how many were:
    texts to :data:`MAX_TEXT` characters, lists to :data:`MAX_ITEMS`
    items, at any depth (a struct's text, a list of lists), and what is
    still longer than :data:`MAX_NESTED` to the start of its JSON text."""

    def __init__(self) -> None:
        self.texts = 0
        self.lists = 0

    def value(self, value: Any) -> Any:
        kept = self._inner(value)
        if isinstance(kept, (list, dict)):
            text = json.dumps(kept, ensure_ascii=False)
            if len(text) > MAX_NESTED:
                return self._text(text)
        return kept

    def _inner(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._text(value) if len(value) > MAX_TEXT else value
        if isinstance(value, list):
            if len(value) > MAX_ITEMS:
                self.lists += 1
                value = value[:MAX_ITEMS]
            return [self._inner(v) for v in value]
        if isinstance(value, dict):
            return {k: self._inner(v) for k, v in value.items()}
        return value

    def _text(self, text: str) -> str:
        self.texts += 1
        return text[: MAX_TEXT - 1] + "…"

    def note(self) -> str:
        """What was cut and how to read more of it; empty if nothing was."""
        said = []
        if self.texts:
            said.append(
                f"{self.texts:,} text value{'' if self.texts == 1 else 's'} longer than "
                f"{MAX_TEXT:,} characters cut to {MAX_TEXT:,} (ending in …). To see more of "
                "one, select a part of it (substr(column, 2001, 2000))."
            )
        if self.lists:
            said.append(
                f"{self.lists:,} list{'' if self.lists == 1 else 's'} longer than "
                f"{MAX_ITEMS:,} items cut to their first {MAX_ITEMS:,}. To see the rest, "
                f"select a part of one (list_slice(column, {MAX_ITEMS + 1}, {2 * MAX_ITEMS})) "
                "or one row per item (unnest)."
            )
        return " ".join(said)


def function_answer(
    title: str,
    shape: str,
    schema: Sequence[tuple[str, str]],
    value: Any,
    *,
    max_rows: int,
    narrow: str,
) -> Answer:
    """A function's answer of any shape: rows as :func:`rows_answer`
    makes them, one object as its fields, one value as itself."""
    if shape == "rows":
        return rows_answer(title, schema, value, max_rows=max_rows, narrow=narrow)
    decimals = _decimal_columns(schema)
    if shape == "object":
        fields = {str(k): json_value(_exact(v) if k in decimals else v) for k, v in value.items()}
        structured: dict[str, Any] = {
            "shape": "object",
            "columns": [{"name": name, "type": kind} for name, kind in schema],
            "fields": fields,
        }
        lines = [f"{title}:"] + [f"- {k}: {text_cell(v)}" for k, v in value.items()]
        return Answer(structured, "\n".join(lines))
    structured = {
        "shape": "value",
        "columns": [{"name": name, "type": kind} for name, kind in schema],
        "value": json_value(_exact(value) if decimals else value),
    }
    return Answer(structured, f"{title}: {text_cell(value) or 'null'}")


def noted(answer: Answer, notices: Sequence[str]) -> Answer:
    """``answer`` with the notices or warnings PHP printed before it: the
    service answered, but may have answered from a default it fell back
    on (``Undefined array key "limit"``), which the model should tell the
    user rather than take the rows as the whole truth."""
    if not notices:
        return answer
    shown = [
        n if len(n) <= MAX_NOTICE else n[: MAX_NOTICE - 1] + "…" for n in notices[:MAX_NOTICES]
    ]
    more = len(notices) - len(shown)
    structured = {**answer.structured, "notices": shown, "notice_count": len(notices)}
    lines = [
        f"The service printed {len(notices):,} notice{'' if len(notices) == 1 else 's'} "
        "before its answer (PHP warnings: the answer may be incomplete or use defaults; "
        "tell the user):",
        *(f"- {' '.join(n.split())}" for n in shown),
    ]
    if more:
        lines.append(f"- … and {more:,} more")
    return Answer(structured, answer.text + "\n\n" + "\n".join(lines))
