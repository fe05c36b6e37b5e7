"""HTML for notebooks (``_repr_html_``): a table's size, its columns with
their types, its first rows and any notices; every value escaped."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from decimal import Decimal
from html import escape
from typing import Any

from ._checks import counted
from ._text import decimal_text

PREVIEW_ROWS = 10
"""Rows shown in a notebook; the rest is counted, not rendered."""

_STYLE = (
    "<style>.erpdata table{border-collapse:collapse;font-size:13px}"
    ".erpdata th,.erpdata td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}"
    ".erpdata td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".erpdata .type{color:#888;font-weight:normal;font-size:11px}"
    ".erpdata .notice{color:#a15c00}</style>"
)


def cell(value: Any) -> str:
    """One value as an HTML table cell."""
    if value is None:
        return '<td class="null" style="color:#aaa">null</td>'
    if isinstance(value, bool):
        return f"<td>{'true' if value else 'false'}</td>"
    if isinstance(value, Decimal):
        return f'<td class="num">{escape(decimal_text(value))}</td>'
    if isinstance(value, (int, float)):
        return f'<td class="num">{escape(str(value))}</td>'
    if isinstance(value, datetime.date):
        return f"<td>{escape(value.isoformat(' ') if isinstance(value, datetime.datetime) else value.isoformat())}</td>"
    text = str(value)
    if len(text) > 80:
        text = text[:79] + "…"
    return f"<td>{escape(text)}</td>"


def table_html(
    title: str,
    schema: Sequence[tuple[str, str]],
    rows: Sequence[dict[str, Any]],
    total_rows: int,
    notices: Sequence[str] = (),
) -> str:
    """A titled preview: ``title`` and ``total_rows``, a header of column
    names with their types, the first :data:`PREVIEW_ROWS` rows."""
    head = "".join(
        f'<th>{escape(name)}<br><span class="type">{escape(kind)}</span></th>'
        for name, kind in schema
    )
    body = "".join(
        "<tr>" + "".join(cell(row.get(name)) for name, _ in schema) + "</tr>"
        for row in rows[:PREVIEW_ROWS]
    )
    more = total_rows - min(total_rows, PREVIEW_ROWS)
    rest = f"<p>… {counted(more, 'more row')}</p>" if more > 0 else ""
    noted = "".join(f'<p class="notice">notice: {escape(n)}</p>' for n in notices)
    return (
        f'<div class="erpdata">{_STYLE}<p><b>{escape(title)}</b>: {counted(total_rows, "row")}, '
        f"{counted(len(schema), 'column')}</p><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>{rest}{noted}</div>"
    )


def fields_html(title: str, schema: Sequence[tuple[str, str]], fields: dict[str, Any]) -> str:
    """One object's fields, a row each."""
    types = dict(schema)
    body = "".join(
        f'<tr><th>{escape(k)}<br><span class="type">{escape(types.get(k, ""))}</span></th>{cell(v)}</tr>'
        for k, v in fields.items()
    )
    return f'<div class="erpdata">{_STYLE}<p><b>{escape(title)}</b></p><table>{body}</table></div>'
