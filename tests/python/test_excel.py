"""Excel workbooks read back as a reader opens them: openpyxl for the
values, number formats, dates, formulas, fills and the About sheet; the
file's XML for the token; and LibreOffice, headless, converting one small
workbook to PDF, rendered to PNG with pdftoppm (ERPDATA_LIBREOFFICE, set
by `make test-python` through scripts/libreoffice.sh; the picture is kept
at ERPDATA_XLSX_SCREENSHOT)."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
import tracemalloc
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import openpyxl
import pytest

import erpdata
from conftest import FAKE_TOKEN, SANDBOX_TOKEN, missing, need
from erpdata import cli as command_line
from erpdata.excel import EXACT_DIGITS, SHEET_ROWS, Sheet, write_excel
from test_cli import answering, cli, env_for, plain_cli

AS_OF = "2025-12-31"
HIGHLIGHT = "FFF8CBAD"  # erpdata.excel.HIGHLIGHT as openpyxl spells it
HIGHLIGHT_RGB = (248, 203, 173)
AGING_COLUMNS = ["acid", "current", "1-30", "31-60", "61-90", "91+", "undated", "total"]


def load(path: Path, data_only: bool = False) -> Any:
    return openpyxl.load_workbook(path, data_only=data_only)


def values(ws: Any) -> list[list[Any]]:
    return [list(row) for row in ws.iter_rows(values_only=True)]


def exact(number: float | int, scale: int) -> Decimal:
    """A number Excel holds, read back at its column's scale."""
    return Decimal(repr(number)).quantize(Decimal(1).scaleb(-scale))


def xml_text(path: Path) -> str:
    """Every part of the workbook's zip, as text."""
    with zipfile.ZipFile(path) as book:
        return "\n".join(book.read(name).decode("utf-8") for name in book.namelist())


def about(wb: Any) -> dict[str, Any]:
    """The About sheet's label: value entries (up to the sheet list)."""
    entries: dict[str, Any] = {}
    for label, value, *_ in values(wb["About"])[2:]:
        if label is None:
            break
        entries[label] = value
    return entries


def sheet_list(wb: Any) -> list[tuple[str, int, str]]:
    rows = values(wb["About"])
    start = next(i for i, row in enumerate(rows) if row[:3] == ["Sheet", "Rows", "Holds"])
    listed = []
    for row in rows[start + 1 :]:
        if row[0] is None:
            break
        listed.append((row[0], row[1], row[2]))
    return listed


@pytest.fixture
def env(sandbox_url: str) -> dict[str, str]:
    return env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)


# -- values and formats ------------------------------------------------------------


def test_a_table_keeps_its_types_and_formats(client: erpdata.Client, tmp_path: Path) -> None:
    table = client.table("sales_invoice")
    path = tmp_path / "invoices.xlsx"
    result = table.to_excel(path, sheet="sales_invoice", about={"Table": "sales_invoice"})
    assert result.path == str(path) and result.sheets == {"sales_invoice": len(table)}
    assert result.text_values == 0
    wb = load(path)
    assert wb.sheetnames == ["sales_invoice", "About"]
    ws = wb["sales_invoice"]
    header = list(ws[1])
    assert [c.value for c in header] == table.columns
    assert all(c.font.b for c in header)
    assert ws.freeze_panes == "A2"
    last = openpyxl.utils.get_column_letter(len(table.columns))
    assert ws.auto_filter.ref == f"A1:{last}{len(table) + 1}"
    assert ws.max_row == len(table) + 1
    seen = set()
    for r, row in enumerate(table, start=2):
        for c, (name, kind) in enumerate(table.schema, start=1):
            cell, value = ws.cell(r, c), row[name]
            if value is None:
                assert cell.value is None, (r, name)
                continue
            seen.add(kind)
            if kind == "decimal(38,2)":
                assert isinstance(cell.value, (int, float)), (r, name, cell.value)
                assert cell.number_format == "#,##0.00"
                assert exact(cell.value, 2) == value
            elif kind == "int":
                assert cell.value == value and cell.number_format == "0"
            elif kind == "date":
                assert cell.is_date and cell.number_format == "yyyy-mm-dd"
                assert cell.value == datetime.datetime.combine(value, datetime.time())
            elif kind == "timestamp":
                assert cell.is_date and cell.number_format == "yyyy-mm-dd hh:mm:ss"
                assert cell.value == value
            else:
                assert kind == "string"
                assert cell.data_type == "s" and cell.value == value
                assert cell.number_format == "@"
    assert seen == {"string", "date", "decimal(38,2)", "int", "timestamp"}
    # Wide enough for each column's longest text and its header.
    for c, (name, kind) in enumerate(table.schema, start=1):
        width = ws.column_dimensions[openpyxl.utils.get_column_letter(c)].width
        texts = [r[name] for r in table if kind == "string" and r[name] is not None]
        assert width >= max([len(name), *map(len, texts)]), name
    assert about(wb)["Table"] == "sales_invoice"


def parsed(body: bytes) -> erpdata.Table:
    """A table from an answer's body, as the core parses it."""
    config = erpdata._core.Config(
        "https://erp.example.com/", project="demo", access_token=FAKE_TOKEN
    )
    table: erpdata.Table = config.parse_table(200, body)
    return table


def test_what_excel_cannot_hold_is_exact_text_with_a_note(tmp_path: Path) -> None:
    long_text = "x" * 40_000
    rows = [
        ('"007"', '"12345678901234567.89"', "12345678901234567", '"1899-12-31"', '{"a":[1,2]}'),
        ('"010"', '"1234567890123.45"', "3", '"2025-01-01"', "null"),
        ('"011"', '"123456789012345.00"', "100000000000000000000", '"1900-01-01"', "null"),
        (f'"{long_text}"', '"1234567890123456.00"', "-999999999999999", "null", "null"),
    ]
    names = ("code", "amount", "n", "day", "extra")
    objects = ("{" + ",".join(f'"{k}":{v}' for k, v in zip(names, row)) + "}" for row in rows)
    body = '{"status":"success","data":[' + ",".join(objects) + "]}"
    table = parsed(body.encode())
    assert dict(table.schema)["amount"] == "decimal(38,2)"
    path = tmp_path / "odd.xlsx"
    result = table.to_excel(path)
    ws = load(path)["Sheet1"]
    got = values(ws)[1:]
    # Text stays text: an id keeps its zeros.
    assert [r[0] for r in got[:3]] == ["007", "010", "011"]
    assert len(got[3][0]) == 32_767 and ws["A5"].comment is not None
    # 17 and 16 significant digits: exact text, with a note saying why.
    assert ws["B2"].value == "12345678901234567.89" and ws["B2"].data_type == "s"
    assert f"more than {EXACT_DIGITS} significant digits" in ws["B2"].comment.text
    assert ws["B5"].value == "1234567890123456.00" and ws["B5"].comment is not None
    # 15 significant digits (trailing zeros are the scale): numbers, exact.
    assert exact(ws["B3"].value, 2) == Decimal("1234567890123.45")
    assert exact(ws["B4"].value, 2) == Decimal("123456789012345.00")
    assert ws["B3"].number_format == "#,##0.00" and ws["B3"].comment is None
    # Integers by the same rule: 1E20 has one significant digit.
    assert ws["C2"].value == "12345678901234567" and ws["C2"].comment is not None
    assert ws["C3"].value == 3 and ws["C4"].value == 10**20
    assert ws["C5"].value == -999999999999999 and ws["C5"].comment is None
    # Excel's dates begin in 1900: an earlier one is ISO text, with a note.
    assert ws["D2"].value == "1899-12-31" and "1900" in ws["D2"].comment.text
    assert ws["D3"].value == datetime.datetime(2025, 1, 1) and ws["D3"].is_date
    assert ws["D4"].value == datetime.datetime(1900, 1, 1)
    # Nested JSON as its text.
    assert ws["E2"].value == '{"a":[1,2]}'
    assert result.text_values == 5
    wb = load(path)
    assert any("5 values are written as text" in str(r[0]) for r in values(wb["About"]))


def test_a_small_decimal_written_as_text_keeps_its_fixed_point(tmp_path: Path) -> None:
    # 18 significant digits under 1E-6: exact text, which str() wrote in
    # exponent form ("1.23456789012345678E-7"), not the digits sent.
    body = b'{"status":"success","data":[{"rate":"0.000000123456789012345678"}]}'
    path = tmp_path / "rate.xlsx"
    assert parsed(body).to_excel(path).text_values == 1
    cell = load(path)["Sheet1"]["A2"]
    assert cell.value == "0.000000123456789012345678" and cell.data_type == "s"
    assert cell.comment is not None and "E-" not in cell.comment.text


def test_numbers_past_excels_range_are_exact_text(tmp_path: Path) -> None:
    # Row dicts may hold what no decimal(38,s) column does: a double
    # would make these infinity (refused by xlsxwriter) or zero (silently).
    given = [
        {"n": 10**400, "amount": Decimal("1E+400")},
        {"n": 10**308, "amount": Decimal("1E-400")},
        {"n": -(10**307), "amount": Decimal("NaN")},
        {"n": 5, "amount": Decimal("-9.99999999999999E+307")},
    ]
    path = tmp_path / "range.xlsx"
    result = write_excel(path, {"S": Sheet(given, totals=["amount"])})
    assert result.text_values == 5
    ws = load(path)["S"]
    got = values(ws)[1:5]
    assert [r[0] for r in got] == [str(10**400), str(10**308), -1e307, 5]
    assert [r[1] for r in got[:3]] == ["1E+400", "1E-400", "NaN"]
    assert got[3][1] == float("-9.99999999999999E+307")
    assert "outside the numbers Excel holds" in ws["A2"].comment.text
    assert "outside the numbers Excel holds" in ws["B3"].comment.text
    assert "not a number" in ws["B4"].comment.text
    assert "3 values of this column are text" in ws["B6"].comment.text


def test_the_total_of_floats_is_shown_as_they_are(tmp_path: Path) -> None:
    # Row dicts from elsewhere (pandas' records) may hold floats: written
    # in General, as their total must be (it showed 4 for 3.85 at the
    # format #,##0).
    given: list[dict[str, Any]] = [
        {"acid": "C001", "amount": 1.25, "paid": Decimal("2.50")},
        {"acid": "C002", "amount": 2.5, "paid": Decimal(1)},
        {"acid": "C003", "amount": 0.1, "paid": None},
    ]
    path = tmp_path / "floats.xlsx"
    write_excel(path, {"S": Sheet(given, totals=True)})
    ws, cached = load(path)["S"], load(path, data_only=True)["S"]
    assert ws["B5"].value == "=SUM(B2:B4)" and ws["B5"].number_format == "General"
    assert cached["B5"].value == 3.85
    assert ws["C5"].number_format == "#,##0.00" and cached["C5"].value == 3.5


def test_a_total_in_the_first_column_says_it_is_the_total(tmp_path: Path) -> None:
    # No cell is left for the label "Total" when the first column is
    # summed: the number's format says it, or the row reads as one more.
    given = [{"amount": Decimal("-10.25"), "n": 1}, {"amount": Decimal("2.00"), "n": 2}]
    path = tmp_path / "first.xlsx"
    write_excel(path, {"S": Sheet(given, totals=True)})
    ws = load(path)["S"]
    assert values(ws)[-1] == ["=SUM(A2:A3)", "=SUM(B2:B3)"]
    assert ws["A4"].number_format == '"Total "#,##0.00;"Total "-#,##0.00'
    assert ws["B4"].number_format == "#,##0"


def test_the_totals_leave_out_the_ids_a_table_carries(
    client: erpdata.Client, tmp_path: Path
) -> None:
    # compid and yearid, as a PHP service's SELECT * sends them, are not
    # amounts: they got SUMs of 40 and 81,000 under them.
    invoices = client.table("sales_invoice")
    path = tmp_path / "invoices.xlsx"
    write_excel(path, {"Invoices": Sheet(invoices, totals=True)})
    rows = values(load(path)["Invoices"])
    header, last = rows[0], rows[-1]
    summed = [name for name, cell in zip(header, last) if str(cell).startswith("=SUM(")]
    assert summed == ["amount", "tax", "total", "items"], last
    assert last[0] == "Total"
    # Row dicts without types decide by the values: an id is left out there too.
    given = [{"id": 1, "customer_id": 7, "amount": Decimal("2.50")}]
    path = tmp_path / "ids.xlsx"
    write_excel(path, {"S": Sheet(given, totals=True)})
    assert values(load(path)["S"])[-1] == ["Total", None, "=SUM(C2:C2)"]
    # Named, an id column is summed as asked.
    write_excel(path, {"S": Sheet(given, totals=["id", "amount"])})
    assert values(load(path)["S"])[-1] == ["=SUM(A2:A2)", None, "=SUM(C2:C2)"]


# -- aging and credit status ---------------------------------------------------------


def finance_book(client: erpdata.Client, path: Path) -> tuple[erpdata.Table, erpdata.Table]:
    aging = client.aging(as_of=AS_OF)
    status = client.credit_status(as_of=AS_OF)
    write_excel(
        path,
        {
            "Receivables aging": Sheet(aging, totals=True),
            "Credit status": Sheet(status, totals=True, highlight="over_limit"),
        },
        about={
            "Function": "aging, credit_status",
            "Company": client.company_id,
            "Year": client.year_id,
            "As of": datetime.date.fromisoformat(AS_OF),
        },
    )
    return aging, status


def test_aging_and_credit_status_have_totals_highlights_and_an_about_sheet(
    client: erpdata.Client, tmp_path: Path
) -> None:
    path = tmp_path / "finance.xlsx"
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
    aging, status = finance_book(client, path)
    wb, cached = load(path), load(path, data_only=True)
    assert wb.sheetnames == ["Receivables aging", "Credit status", "About"]

    ws = wb["Receivables aging"]
    rows = values(ws)
    assert rows[0] == AGING_COLUMNS  # buckets in order
    assert [r[0] for r in rows[1:-1]] == [r["acid"] for r in aging]
    totals = rows[-1]
    end = len(aging) + 1
    assert totals[0] == "Total" and ws.cell(end + 1, 1).font.b
    for c, name in enumerate(AGING_COLUMNS[1:], start=2):
        letter = openpyxl.utils.get_column_letter(c)
        assert totals[c - 1] == f"=SUM({letter}2:{letter}{end})"
        want = sum((r[name] for r in aging), Decimal(0))
        # The cached result, which a viewer that does not recalculate shows.
        assert exact(cached["Receivables aging"].cell(end + 1, c).value, 2) == want
        assert ws.cell(end + 1, c).number_format == "#,##0.00"
    # The filter covers the accounts, not the totals row.
    assert ws.auto_filter.ref == f"A1:H{end}"

    ws = wb["Credit status"]
    rows = values(ws)
    columns = rows[0]
    footer = dict(zip(columns, rows[-1]))
    summed = {"credit_limit", "outstanding", "available", "overdue"}
    for name in columns:
        if name in summed:
            assert str(footer[name]).startswith("=SUM("), name
        elif name != "acid":
            assert footer[name] is None, name  # days and flags are not added up
    over = [r["over_limit"] for r in status]
    assert True in over and False in over
    for r, lit in enumerate(over, start=2):
        fills = {ws.cell(r, c).fill.fgColor.rgb for c in range(1, len(columns) + 1)}
        kinds = {ws.cell(r, c).fill.fill_type for c in range(1, len(columns) + 1)}
        if lit:
            assert fills == {HIGHLIGHT} and kinds == {"solid"}, r
        else:
            assert kinds == {None}, r
    assert ws.cell(2, columns.index("over_limit") + 1).value is over[0]

    entries = about(wb)
    assert entries["Function"] == "aging, credit_status"
    assert entries["Company"] == "1" and entries["Year"] == "2025"
    assert entries["As of"] == datetime.datetime(2025, 12, 31)
    assert wb["About"]["B6"].number_format == "yyyy-mm-dd"
    assert entries["erpdata"] == erpdata.__version__
    written = entries["Written (UTC)"]
    assert before <= written <= before + datetime.timedelta(minutes=5)
    assert sheet_list(wb) == [
        ("Receivables aging", len(aging), "every row"),
        ("Credit status", len(status), "every row"),
    ]
    assert SANDBOX_TOKEN not in xml_text(path)


# -- streams, long tables, memory ------------------------------------------------------


def test_a_stream_continues_on_more_sheets(client: erpdata.Client, tmp_path: Path) -> None:
    table = client.table("sales_invoice")
    assert len(table) == 40
    path = tmp_path / "stream.xlsx"
    with client.stream_table("sales_invoice", batch_rows=7) as stream:
        # 15 rows a sheet, one of them the totals row: 14, 14, 12.
        result = write_excel(
            path, {"sales_invoice": Sheet(stream, totals=["amount"])}, rows_per_sheet=15
        )
    names = ["sales_invoice", "sales_invoice (2)", "sales_invoice (3)"]
    assert result.sheets == dict(zip(names, [14, 14, 12])) and result.rows == 40
    wb = load(path)
    assert wb.sheetnames == [*names, "About"]
    got = []
    for name in names:
        rows = values(wb[name])
        assert rows[0] == table.columns and wb[name].freeze_panes == "A2"
        got += rows[1:]
    assert got[-1][0] == "Total"
    no, amount = table.columns.index("invoice_no"), table.columns.index("amount")
    assert [r[no] for r in got[:-1]] == [r["invoice_no"] for r in table]
    assert [exact(r[amount], 2) for r in got[:-1]] == [r["amount"] for r in table]
    col = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[amount]
    assert got[-1][amount] == (
        f"=SUM('sales_invoice'!{col}2:{col}15,'sales_invoice (2)'!{col}2:{col}15,"
        f"'sales_invoice (3)'!{col}2:{col}13)"
    )
    total = load(path, data_only=True)["sales_invoice (3)"][f"{col}14"].value
    assert exact(total, 2) == sum((r["amount"] for r in table), Decimal(0))
    assert sheet_list(wb)[1] == (
        "sales_invoice (2)",
        14,
        "rows 15 to 28 of the 40 of 'sales_invoice'",
    )


def test_arrow_batches_write_as_row_batches_do(client: erpdata.Client, tmp_path: Path) -> None:
    with client.stream_table("sales_invoice", batch_rows=16) as rows:
        write_excel(tmp_path / "rows.xlsx", {"sales_invoice": rows})
    with client.stream_table("sales_invoice", batch_rows=16, batch_format="arrow") as batches:
        write_excel(tmp_path / "arrow.xlsx", {"sales_invoice": batches})
    from_rows = load(tmp_path / "rows.xlsx")["sales_invoice"]
    from_arrow = load(tmp_path / "arrow.xlsx")["sales_invoice"]
    assert values(from_arrow) == values(from_rows) and from_rows.max_row == 41
    formats = [[c.number_format for c in row] for row in from_rows.iter_rows()]
    assert [[c.number_format for c in row] for row in from_arrow.iter_rows()] == formats


def synthetic(rows: int, batch: int = 1_000) -> Iterator[list[dict[str, Any]]]:
    """Invoice-like rows made a batch at a time, never all at once."""
    day = datetime.date(2025, 1, 1)
    for start in range(0, rows, batch):
        yield [
            {
                "invoice_no": f"INV-{i:07d}",
                "date": day + datetime.timedelta(days=i % 365),
                "customer": f"C{i % 97:03d}",
                "amount": Decimal(i % 100_000) / 100,
                "items": i % 17,
                "posted_at": datetime.datetime(2025, 1, 1) + datetime.timedelta(seconds=i),
            }
            for i in range(start, min(start + batch, rows))
        ]


def peak_while_writing(rows: int, path: Path) -> int:
    tracemalloc.start()
    try:
        write_excel(path, {"rows": synthetic(rows)})
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_bounded_by_a_batch_not_the_table(tmp_path: Path) -> None:
    peak_while_writing(10, tmp_path / "warm.xlsx")  # imports, formats: not rows
    small = peak_while_writing(2_000, tmp_path / "small.xlsx")
    large = peak_while_writing(8_000, tmp_path / "large.xlsx")
    # Four times the rows, the same peak: rows go to disk as they come
    # (constant_memory), not into a model of the whole sheet, which would
    # take three times as much here.
    assert large < small * 1.2, (small, large)
    ws = openpyxl.load_workbook(tmp_path / "large.xlsx", read_only=True)["rows"]
    assert ws.max_row == 8_001


# -- refusals ---------------------------------------------------------------------------


def test_bad_arguments_name_the_field(client: erpdata.Client, tmp_path: Path) -> None:
    table = client.table("account")
    path = tmp_path / "out.xlsx"
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"sheets": {"a/b": table}}, "sheets", "'/'"),
        ({"sheets": {"x" * 32: table}}, "sheets", "31"),
        ({"sheets": {"About": table}}, "sheets", "reserved"),
        ({"sheets": {"T": table, "t": table}}, "sheets", "Excel ignores case"),
        ({"sheets": {}}, "sheets", "dict of sheet name"),
        ({"sheets": {"T": 42}}, "sheets", "got int"),
        ({"sheets": {"T": Sheet(table, highlight="over_limit")}}, "highlight", "'over_limit'"),
        ({"sheets": {"T": Sheet(table, totals=["balance"])}}, "totals", "'balance'"),
        ({"sheets": {"T": table}, "rows_per_sheet": 1}, "rows_per_sheet", "from 2"),
        ({"sheets": {"T": table}, "rows_per_sheet": SHEET_ROWS + 1}, "rows_per_sheet", "from 2"),
        ({"sheets": {"T": table}, "path": tmp_path / "nowhere" / "x.xlsx"}, "path", "does not"),
        ({"sheets": {"T": [{"a": 1}, {"b": 2}]}}, "sheets", "'b'"),
    ]
    for kwargs, field, words in cases:
        target = kwargs.pop("path", path)
        with pytest.raises(erpdata.InvalidInputError) as caught:
            write_excel(target, **kwargs)
        assert caught.value.field == field, kwargs
        assert words in str(caught.value), (kwargs, str(caught.value))
    # Nothing was left behind by any of them, nor by a stream failing
    # part-way: the file appears whole or not at all.
    path.write_bytes(b"the old file")

    def failing() -> Iterator[list[dict[str, Any]]]:
        yield [{"a": 1}]
        raise erpdata.TransportError("connection reset")

    with pytest.raises(erpdata.TransportError):
        write_excel(path, {"T": failing()})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.xlsx"]
    # Nor a file of the rows it had written open (Linux lists a process's
    # open files; a deleted one keeps its name).
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            held.append(os.readlink(f"/proc/self/fd/{fd}"))
        except FileNotFoundError:  # the listing's own, closed since
            pass
    assert not [name for name in held if "erpdata-xlsx-" in name], held
    assert path.read_bytes() == b"the old file"


def test_a_folder_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    def rows() -> Iterator[list[dict[str, Any]]]:
        yield [{"a": 1}]
        raise AssertionError("read rows for a workbook it cannot write")

    with pytest.raises(erpdata.InvalidInputError) as caught:
        write_excel(tmp_path, {"S": rows()})
    assert caught.value.field == "path" and "is a folder" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_no_file_can_be_made_in_is_said_before_the_rows_are_read() -> None:
    # /proc exists, but no file can be made in it: xlsxwriter said so when
    # the workbook was assembled, after every row, as a FileCreateError
    # naming the hidden partial file.
    read: list[int] = []

    def rows() -> Iterator[list[dict[str, Any]]]:
        read.append(1)
        yield [{"a": 1}]

    with pytest.raises(OSError) as caught:
        write_excel("/proc/erpdata.xlsx", {"S": rows()})
    assert read == [], "read rows for a workbook it cannot write"
    assert caught.value.errno is not None and caught.value.strerror
    assert caught.value.filename == "/proc/erpdata.xlsx", caught.value
    assert "partial" not in str(caught.value)


def test_sheet_names_are_checked_as_excel_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "names.xlsx"
    # A control character would be written into the workbook's XML (a
    # file no reader opens), or changed by the reader (a tab): refused.
    for name, words in [
        ("Dues\x01", "control character"),
        ("Dues\tC001", "control character"),
        # Excel counts UTF-16 units: 16 emoji are 32 (xlsxwriter refused
        # them late, with an error of its own).
        ("\U0001f4b0" * 16, "32 characters as Excel counts them"),
    ]:
        with pytest.raises(erpdata.InvalidInputError) as caught:
            write_excel(path, {name: [{"a": 1}]})
        assert caught.value.field == "sheets" and words in str(caught.value), name
    assert not path.exists()
    # A long table's continuation names are cut to Excel's 31 as well.
    name = "\U0001f4b0" * 15
    result = write_excel(path, {name: [{"a": i} for i in range(5)]}, rows_per_sheet=2)
    assert list(result.sheets.values()) == [2, 2, 1]
    names = load(path).sheetnames
    assert names[0] == name and names[1:3] == [name[:13] + " (2)", name[:13] + " (3)"]
    assert all(len(n.encode("utf-16-le")) // 2 <= 31 for n in names)


def test_without_xlsxwriter_the_error_names_the_extra(
    client: erpdata.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = client.table("account")
    monkeypatch.setitem(sys.modules, "xlsxwriter", None)
    with pytest.raises(ImportError) as caught:
        table.to_excel(tmp_path / "a.xlsx")
    assert str(caught.value) == "an Excel workbook needs xlsxwriter: pip install 'erpdata[excel]'"
    assert not (tmp_path / "a.xlsx").exists()


# -- the command line ------------------------------------------------------------------


def test_every_command_that_prints_rows_writes_a_workbook(
    env: dict[str, str], client: erpdata.Client, tmp_path: Path
) -> None:
    expected = {
        "table": (["table", "sales_invoice"], "sales_invoice", len(client.table("sales_invoice"))),
        "dues": (
            ["dues", "C001", "--kind", "receipt"],
            "Receivables",
            len(client.receivables("C001").rows),
        ),
        "dues-table": (
            ["dues-table", "C001", "C002", "--kind", "receipt"],
            "Receivables",
            len(client.dues_table(["C001", "C002"], "receipt")),
        ),
        "dues-summary": (["dues-summary"], "dues_summary", len(client.dues_summary().rows)),
        "aging": (
            ["aging", "--as-of", AS_OF],
            "Receivables aging",
            len(client.aging(as_of=AS_OF)),
        ),
        "credit-status": (
            ["credit-status", "--as-of", AS_OF, "--no-pay-days"],
            "Credit status",
            len(client.credit_status(as_of=AS_OF, pay_days=False)),
        ),
    }
    for command, (args, sheet, rows) in expected.items():
        out = tmp_path / f"{command}.xlsx"
        done = cli([*args, "--format", "xlsx", "-o", str(out)], env)
        assert done.returncode == 0, (command, done.stderr)
        assert SANDBOX_TOKEN not in done.stdout + done.stderr
        assert done.stdout == ""
        wb = load(out)
        assert wb.sheetnames == [sheet, "About"], command
        totals = 1 if command in ("aging", "credit-status") else 0
        assert wb[sheet].max_row == 1 + rows + totals, command
        entries = about(wb)
        assert entries["Command"] == f"erpdata {command}"
        assert entries["Project"] == "demo"
        if command in ("aging", "credit-status"):
            # The company chose only the account table: the dues query takes
            # none, so "Company" would be misread as whose dues these are.
            assert entries["Accounts of company"] == "1" and "Company" not in entries
            assert entries["Accounts of year"] == "2025" and "Year" not in entries
        else:
            assert entries["Company"] == "1"
        assert SANDBOX_TOKEN not in xml_text(out), command
    entries = about(load(tmp_path / "aging.xlsx"))
    assert entries["As of"] == datetime.datetime(2025, 12, 31)
    assert entries["Accounts"] == "every customer of the account table"
    assert entries["Buckets (days)"] == "30, 60, 90"
    assert about(load(tmp_path / "table.xlsx"))["Table"] == "sales_invoice"


def test_a_workbook_that_cannot_replace_its_target_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read-only target (or one open in Excel on Windows): the error
    # named the hidden .book.xlsx.1a2b3c4d5e6f.partial beside it.
    import errno

    target = tmp_path / "book.xlsx"
    target.write_bytes(b"the last good copy")

    def refused(src: Any, dst: Any) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted", str(src), str(dst))

    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(PermissionError) as info:
        write_excel(target, {"S": [{"a": 1}]})
    assert info.value.filename == str(target) and ".partial" not in str(info.value)
    assert target.read_bytes() == b"the last good copy"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.xlsx"]


def test_the_command_line_refuses_what_it_cannot_write(
    env: dict[str, str], tmp_path: Path, refused_url: str
) -> None:
    done = cli(["aging", "--format", "xlsx"], env)
    assert done.returncode == 2
    assert "--format xlsx needs -o FILE" in done.stderr
    # An ajax call's parameters are in the About sheet, but one that may
    # hold a credential only by name.
    out = tmp_path / "ajax.xlsx"
    args = ["ajax", "getduesSumm", "acid=C001", f"api_key={SANDBOX_TOKEN}"]
    done = cli([*args, "--format", "xlsx", "-o", str(out)], env)
    assert done.returncode == 0, done.stderr
    entries = about(load(out))
    assert entries["Function"] == "getduesSumm" and entries["acid"] == "C001"
    assert entries["api_key"] == "(not shown)"
    assert SANDBOX_TOKEN not in xml_text(out)
    # An answer of one object is one row, as in csv: its shape is known
    # only once it has arrived, and xlsx was refused then, after the call.
    with erpdata.Client(env["ERPDATA_BASE_URL"], project="demo") as c:
        net = c.net_profit("2025-01-01", "2025-06-30").fields
    out = tmp_path / "net.xlsx"
    done = cli(["net-profit", "2025-01-01", "2025-06-30", "-o", str(out)], env)
    assert done.returncode == 0, done.stderr
    wb = load(out)
    assert wb.sheetnames == ["net_profit", "About"]
    header, row = values(wb["net_profit"])
    assert header == list(net) == ["sdate", "edate", "income", "expenses", "net_profit"]
    assert [d.date() for d in row[:2]] == [net["sdate"], net["edate"]]
    assert [exact(v, 2) for v in row[2:]] == [net["income"], net["expenses"], net["net_profit"]]
    # Without the extra, said before anything is asked: nothing listens here.
    nowhere = {**env, "ERPDATA_BASE_URL": refused_url}
    for command in (["table", "account"], ["aging"], ["dues", "C001", "--kind", "receipt"]):
        out = tmp_path / "x.xlsx"
        done = plain_cli([*command, "--format", "xlsx", "-o", str(out)], nowhere, tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr == (
            "erpdata: error: --format xlsx needs xlsxwriter: pip install 'erpdata[excel]'\n"
        )
        assert not out.exists()


def test_a_sheet_named_after_a_table_is_a_name_excel_takes(raw_server: Any, tmp_path: Path) -> None:
    # Excel keeps "History" for itself and "About" ends the workbook: a
    # table of either name was refused once it had arrived. A sheet name
    # is at most 31 characters, none of []:*?/\ .
    body = b'{"status":"success","data":[{"id":1,"name":"a"}]}'
    server = raw_server(answering(body))
    env = env_for(server.url, ERPDATA_ACCESS_TOKEN=FAKE_TOKEN)
    long = "general_ledger_entries_of_every_branch_2025"
    for table, sheet in [
        ("History", "History_"),
        ("history", "history_"),
        ("about", "about_"),
        (long, long[:31]),
    ]:
        out = tmp_path / f"{table}.xlsx"
        done = cli(["table", table, "--format", "xlsx", "-o", str(out)], env)
        assert done.returncode == 0, (table, done.stderr)
        wb = load(out)
        assert wb.sheetnames == [sheet, "About"], table
        assert values(wb[sheet]) == [["id", "name"], [1, "a"]], table
        assert about(wb)["Table"] == table
    # Names made from any text are valid and each its own, case aside.
    rows = [{"a": 1}]
    given = {
        "dues [C001]": rows,
        "dues _C001_": rows,
        "a:b*c?d/e\\f": rows,
        "HISTORY": rows,
        "'quoted'": rows,
        "x" * 40: rows,
        "x" * 41: rows,
    }
    path = tmp_path / "names.xlsx"
    write_excel(path, command_line._sheet_names(given))
    assert load(path).sheetnames == [
        "dues _C001_",
        "dues _C001_ (2)",
        "a_b_c_d_e_f",
        "HISTORY_",
        "_quoted_",
        "x" * 31,
        "x" * 27 + " (2)",
        "About",
    ]


# -- as LibreOffice shows it -------------------------------------------------------------


def libreoffice() -> str:
    found = os.environ.get("ERPDATA_LIBREOFFICE") or shutil.which("libreoffice")
    if not found or not shutil.which("pdftoppm"):
        missing("no LibreOffice and pdftoppm (scripts/libreoffice.sh could not install them)")
    return found


def render(pdf: Path, page: int, out: Path) -> Any:
    """Page ``page`` of ``pdf`` as a PNG at ``out``, cut to what is drawn
    (and a margin); returns its RGB image."""
    image = need("PIL.Image")
    ops = need("PIL.ImageOps")
    subprocess.run(
        ["pdftoppm", "-png", "-r", "110", "-f", str(page), "-l", str(page), "-singlefile"]
        + [str(pdf), str(out.with_suffix(""))],
        capture_output=True,
        timeout=60,
        check=True,
    )
    with image.open(out) as picture:
        rgb = picture.convert("RGB")
    left, top, right, bottom = ops.invert(rgb.convert("L")).getbbox()
    rgb = rgb.crop((max(left - 24, 0), max(top - 24, 0), right + 24, bottom + 24))
    rgb.save(out)
    return rgb


def colours(rgb: Any) -> dict[tuple[int, int, int], int]:
    width, height = rgb.size
    return {c: n for n, c in rgb.getcolors(maxcolors=width * height)}


def test_libreoffice_shows_the_totals_and_the_over_limit_customers(
    client: erpdata.Client, tmp_path: Path
) -> None:
    office = libreoffice()
    book = tmp_path / "finance.xlsx"
    aging, status = finance_book(client, book)
    profile = (tmp_path / "profile").as_uri()
    subprocess.run(
        [office, f"-env:UserInstallation={profile}", "--headless", "--convert-to", "pdf"]
        + ["--outdir", str(tmp_path), str(book)],
        capture_output=True,
        timeout=180,
        check=True,
    )
    pdf = tmp_path / "finance.pdf"
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    # Every figure as finance reads it, and the totals of the formulas.
    total = sum((r["total"] for r in aging), Decimal(0))
    assert f"{total:,}" in text
    for row in status:
        assert f"{row['outstanding']:,}" in text
    assert text.count("TRUE") == sum(1 for r in status if r["over_limit"])
    assert "About this workbook" in text and erpdata.__version__ in text
    assert SANDBOX_TOKEN not in text
    # One page a sheet: the aging, the credit status, the About sheet.
    shot = Path(os.environ.get("ERPDATA_XLSX_SCREENSHOT", tmp_path / "aging-xlsx.png"))
    shot.parent.mkdir(parents=True, exist_ok=True)
    aging_page = render(pdf, 1, shot)
    credit_page = render(pdf, 2, shot.with_name("credit-status-xlsx.png"))
    assert HIGHLIGHT_RGB not in colours(aging_page)
    over = sum(1 for r in status if r["over_limit"])
    lit = colours(credit_page).get(HIGHLIGHT_RGB, 0)
    assert lit > 1_000 * over, f"{lit} pixels of the highlight for {over} rows"
