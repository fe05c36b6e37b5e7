"""Reports of the finance views: a readable table on a terminal (with
rich when it is installed, else plain aligned text), and a self-contained
HTML page (the table, its totals and a bar chart drawn with matplotlib,
embedded as a PNG: nothing to fetch to view it).

The HTML reports need ``erpdata[report]`` (rich, matplotlib)::

    from erpdata import report
    aging = client.aging(as_of="2025-12-31")
    report.print_table(aging, title="Receivables aging")
    Path("aging.html").write_text(report.aging_html(aging, as_of="2025-12-31"))
"""

from __future__ import annotations

import base64
import datetime
import importlib
import io
import sys
import unicodedata
from decimal import Decimal
from html import escape
from typing import IO, Any

from ._models import Table, _need

__all__ = ["totals", "print_table", "aging_html", "credit_status_html"]

# Columns of an aging table that are not buckets.
_NOT_BUCKETS = ("acid", "total")


def _is_number(kind: str) -> bool:
    return kind == "int" or kind.startswith("decimal")


def totals(table: Table) -> dict[str, Decimal]:
    """The sum of each numeric column (exact), by column name."""
    numeric = [name for name, kind in table.schema if _is_number(kind)]
    sums = {name: Decimal(0) for name in numeric}
    for row in table:
        for name in numeric:
            value = row[name]
            if value is not None:
                sums[name] += value
    return sums


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime.datetime):
        # As MySQL sends it and the command line writes it, not ISO's "T".
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        # Fixed point: "0.00000000" at scale 8, not "0E-8".
        return f"{value:,f}"
    return str(value)


# Characters that reorder the text around them (the Unicode bidi controls):
# a terminal would show a cell's figures in another order than they are.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _terminal(text: str) -> str:
    """``text`` as a terminal may show it: each control character (the
    ESC of an escape sequence, a carriage return, a newline) and bidi
    control as its escape (``\\x1b``), so that the ERP's data can neither
    drive the terminal nor break the table's lines."""
    if text.isprintable() and not _BIDI.intersection(text):
        return text
    return "".join(
        c.encode("unicode_escape").decode("ascii")
        if unicodedata.category(c) == "Cc" or c in _BIDI
        else c
        for c in text
    )


def print_table(
    table: Table,
    *,
    title: str | None = None,
    file: IO[str] | None = None,
    with_totals: bool = True,
) -> None:
    """``table`` on ``file`` (default: stdout): numbers right-aligned with
    thousands separators, a totals row of the numeric columns
    (``with_totals``). A rich table when rich is installed
    (``erpdata[report]``), else the same as plain aligned text."""
    schema = [(_terminal(name), kind) for name, kind in table.schema]
    cells = [[_terminal(_text(row[name])) for name, _ in table.schema] for row in table]
    sums = totals(table) if with_totals else {}
    footer = [
        _total_label(i, _text(sums[name])) if name in sums and _summable(name) else _total_label(i)
        for i, (name, _) in enumerate(table.schema)
    ]
    if title is not None:
        title = _terminal(title)
    show_footer = with_totals and len(cells) > 0
    right = [_is_number(kind) for _, kind in schema]
    try:
        rich_console = importlib.import_module("rich.console")
        rich_table = importlib.import_module("rich.table")
        rich_text = importlib.import_module("rich.text")
    except ImportError:
        _print_plain(schema, cells, footer if show_footer else None, right, title, file)
        return
    # Text objects, not strings: rich would read a string's [brackets] as
    # markup (a customer "Acme [ltd]" shown as "Acme", "[/]" an error) and
    # :names: as emoji.
    text = rich_text.Text
    out = rich_table.Table(title=None if title is None else text(title), show_footer=show_footer)
    for (name, _), foot, numeric in zip(schema, footer, right):
        out.add_column(
            text(name), justify="right" if numeric else "left", footer=text(foot), no_wrap=True
        )
    for row_cells in cells:
        out.add_row(*map(text, row_cells))
    widths = [max(len(name), 5, len(foot)) for (name, _), foot in zip(schema, footer)]
    for row_cells in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row_cells)]
    # Wide enough for every cell: a report is read whole, never elided.
    natural = sum(w + 3 for w in widths) + 1
    rich_console.Console(file=file, width=natural).print(out)


def _print_plain(
    schema: list[tuple[str, str]],
    cells: list[list[str]],
    footer: list[str] | None,
    right: list[bool],
    title: str | None,
    file: IO[str] | None,
) -> None:
    """The table as aligned text: a title line, the header, a rule, the
    rows, and the totals under a second rule."""
    out = sys.stdout if file is None else file
    widths = [len(name) for name, _ in schema]
    for row_cells in [*cells, *([footer] if footer else [])]:
        widths = [max(w, len(c)) for w, c in zip(widths, row_cells)]

    def line(values: list[str]) -> str:
        return "  ".join(
            v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    lines = [title] if title else []
    lines += [line([name for name, _ in schema]), rule]
    lines += [line(c) for c in cells]
    if footer:
        lines += [rule, line(footer)]
    out.write("\n".join(lines) + "\n")


def _png(figure: Any) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _check_html() -> None:
    """Raises the ImportError naming ``erpdata[report]`` when an HTML
    report cannot be drawn (matplotlib is missing)."""
    _pyplot()


def _pyplot() -> Any:
    matplotlib = _need("matplotlib", "report", "an HTML report")
    matplotlib.use("Agg")  # no display: the chart is drawn into the page
    return _need("matplotlib.pyplot", "report", "an HTML report")


def _thousands(axis: Any) -> None:
    ticker = _need("matplotlib.ticker", "report", "an HTML report")
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))


def _label(text: str) -> str:
    """Text for the chart as it is: matplotlib reads text between two
    ``$`` as math (a customer ``$x^2$`` drawn as a formula, one holding
    ``$\\frac$`` an error that failed the report)."""
    return text.replace("$", r"\$")


def aging_chart(table: Table, title: str) -> str:
    """A bar chart of the aging buckets' totals, as base64 PNG."""
    plt = _pyplot()
    sums = totals(table)
    buckets = [n for n, _ in table.schema if n not in _NOT_BUCKETS]
    figure, axes = plt.subplots(figsize=(7, 3.2))
    values = [float(sums.get(b, 0)) for b in buckets]
    bars = axes.bar([_label(b) for b in buckets], values, color="#1f77b4")
    axes.bar_label(bars, labels=[f"{sums.get(b, 0):,.0f}" for b in buckets], fontsize=8)
    axes.set_title(_label(title))
    axes.set_ylabel("balance")
    _thousands(axes.yaxis)
    axes.spines[["top", "right"]].set_visible(False)
    try:
        return _png(figure)
    finally:
        plt.close(figure)


CHART_CUSTOMERS = 40
"""The most customers the credit chart draws: one bar each, a chart of
8,000 took 203 s and 2 GB to draw, for a page of 18.7 MB no one could
read. The table below it lists every customer."""


def charted_customers(table: Table) -> list[dict[str, Any]]:
    """The rows the credit chart draws: every row when they fit, else those
    over their limit first, then by outstanding, largest first."""
    rows = list(table)
    if len(rows) <= CHART_CUSTOMERS:
        return rows

    def rank(row: dict[str, Any]) -> tuple[bool, Decimal]:
        return (not row["over_limit"], -Decimal(row["outstanding"] or 0))

    return sorted(rows, key=rank)[:CHART_CUSTOMERS]


def credit_chart(table: Table, title: str) -> str:
    """Outstanding against credit limit per customer (at most
    :data:`CHART_CUSTOMERS` of them: see :func:`charted_customers`), as
    base64 PNG."""
    plt = _pyplot()
    rows = charted_customers(table)
    names = [_label(str(r["acid"])) for r in rows]
    figure, axes = plt.subplots(figsize=(7, 0.35 * max(len(rows), 4) + 1))
    limits = [float(r["credit_limit"] or 0) for r in rows]
    owed = [float(r["outstanding"] or 0) for r in rows]
    axes.barh(names, limits, color="#c7d9ea", label="credit limit")
    axes.barh(
        names,
        owed,
        height=0.5,
        color=["#d62728" if r["over_limit"] else "#1f77b4" for r in rows],
        label="outstanding",
    )
    axes.invert_yaxis()
    _thousands(axes.xaxis)
    axes.legend(loc="lower right", fontsize=8)
    axes.set_title(_label(title))
    axes.spines[["top", "right"]].set_visible(False)
    try:
        return _png(figure)
    finally:
        plt.close(figure)


def _page(title: str, subtitle: str, chart: str, chart_alt: str, table: Table) -> str:
    sums = totals(table)
    schema = table.schema
    head = "".join(
        f'<th class="{"num" if _is_number(k) else ""}">{escape(n)}</th>' for n, k in schema
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"num" if _is_number(k) else ""}">{escape(_text(row[n]))}</td>'
            for n, k in schema
        )
        + "</tr>"
        for row in table
    )
    foot = "".join(
        f'<td class="num" data-column="{escape(n)}">{escape(_total_label(i, _text(sums[n])))}</td>'
        if n in sums and _summable(n)
        else f"<td>{_total_label(i)}</td>"
        for i, (n, _) in enumerate(schema)
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em;color:#222}}
table{{border-collapse:collapse;font-size:14px;margin-top:1em}}
th,td{{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}}
td.num,th.num{{text-align:right;font-variant-numeric:tabular-nums}}
tfoot td{{font-weight:bold;border-top:2px solid #222}}
.meta{{color:#666}}
</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="meta">{escape(subtitle)}</p>
<img id="chart" alt="{escape(chart_alt)}" src="data:image/png;base64,{chart}">
<table id="report"><thead><tr>{head}</tr></thead>
<tbody>{body}</tbody>
<tfoot><tr class="totals">{foot}</tr></tfoot></table>
</body></html>
"""


def _total_label(column: int, total: str = "") -> str:
    """A cell of the totals row: the first says "Total", before its sum
    when it has one (a sum alone there would read as one more row)."""
    if column != 0:
        return total
    return f"Total {total}".rstrip()


_ID_COLUMNS = frozenset({"id", "compid", "yearid"})
"""Integer columns that name rows, not amounts: the row id and the
company and year every row of a PHP service's ``SELECT *`` carries."""


def _summable(name: str) -> bool:
    """Whether a numeric column's total means something: not days, not a
    per-account figure such as an average, and not an id (``id``,
    ``compid``, ``yearid``, a name ending in ``_id``): company 1's
    invoices of 2025 would total ``40`` and ``81,000`` there."""
    folded = name.lower()
    return "days" not in folded and folded not in _ID_COLUMNS and not folded.endswith("_id")


def aging_html(
    table: Table, *, as_of: datetime.date | str, title: str = "Receivables aging"
) -> str:
    """A self-contained HTML report of an aging table: the totals per
    bucket as a bar chart, then every account and the totals row."""
    subtitle = f"As of {as_of}: {len(table)} accounts, total {_text(totals(table).get('total', 0))}"
    return _page(title, subtitle, aging_chart(table, title), "balance by age bucket", table)


def credit_status_html(
    table: Table, *, as_of: datetime.date | str, title: str = "Customer credit status"
) -> str:
    """A self-contained HTML report of a credit-status table: outstanding
    against each customer's limit as a chart, then the table."""
    over = sum(1 for r in table if r["over_limit"])
    subtitle = f"As of {as_of}: {len(table)} customers, {over} over their credit limit"
    alt = "outstanding against credit limit"
    if len(table) > CHART_CUSTOMERS:
        shown = f"the {CHART_CUSTOMERS} customers over their limit or owing the most"
        subtitle += f". The chart shows {shown}; the table lists all {len(table)}"
        alt += f", {shown}"
    return _page(title, subtitle, credit_chart(table, title), alt, table)
