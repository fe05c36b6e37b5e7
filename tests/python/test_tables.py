"""Tables as data: rows, Arrow, pandas, polars, the PyCapsule protocol, and
the row API without any optional dependency."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from conftest import BIG_ROWS, SANDBOX_TOKEN, SECRET_TOKEN, table_body
from erpdata import Client, Dues, Table

ROOT = Path(__file__).resolve().parents[2]
MONEY = ("amount", "tax", "total")


def invoices(client: Client) -> Table:
    table = client.table("sales_invoice")
    assert len(table) == 40
    return table


def test_rows_are_dicts_with_exact_decimals(client: Client) -> None:
    table = invoices(client)
    row = table[0]
    assert list(row) == table.columns
    for key in MONEY:
        assert isinstance(row[key], Decimal) and row[key].as_tuple().exponent == -2
    assert all(r["total"] == r["amount"] + r["tax"] for r in table)
    assert type(row["date"]) is datetime.date
    assert table[-1] == list(table)[-1] and table[1:3] == list(table)[1:3]


def test_to_arrow_types_and_values(client: Client) -> None:
    table = invoices(client)
    arrow = table.to_arrow()
    assert isinstance(arrow, pa.Table) and arrow.num_rows == 40
    assert arrow.column_names == table.columns
    assert pa.types.is_decimal128(arrow.schema.field("amount").type)
    assert arrow.schema.field("amount").type.scale == 2
    assert arrow.schema.field("date").type == pa.date32()
    assert arrow.schema.field("invoice_no").type == pa.string()
    assert arrow.column("total").to_pylist() == [r["total"] for r in table]
    assert arrow.column("date").to_pylist() == [r["date"] for r in table]
    # Any Arrow consumer takes the table through the PyCapsule protocol.
    assert pa.table(table).equals(arrow)
    assert pa.RecordBatchReader.from_stream(table).read_all().equals(arrow)
    assert pa.schema(table) == arrow.schema


def test_to_pandas_is_arrow_backed_by_default(client: Client) -> None:
    table = invoices(client)
    df = table.to_pandas()
    assert list(df.columns) == table.columns
    assert isinstance(df["amount"].dtype, pd.ArrowDtype)
    assert pa.types.is_decimal(df["amount"].dtype.pyarrow_dtype)
    assert df["date"].dtype == pd.ArrowDtype(pa.date32())
    assert list(df["total"]) == [r["total"] for r in table]
    assert df["amount"].sum() == sum(r["amount"] for r in table)


def test_to_pandas_with_numpy_dtypes(client: Client) -> None:
    table = invoices(client)
    df = table.to_pandas(dtype_backend="numpy")
    assert df["amount"].dtype == "float64"
    assert str(df["date"].dtype).startswith("datetime64")
    assert df["amount"].tolist() == [float(r["amount"]) for r in table]


def test_to_polars(client: Client) -> None:
    table = invoices(client)
    df = table.to_polars()
    assert isinstance(df, pl.DataFrame) and df.height == 40
    assert df.schema["date"] == pl.Date
    assert isinstance(df.schema["amount"], pl.Decimal) and df.schema["amount"].scale == 2
    assert df["total"].to_list() == [r["total"] for r in table]


def test_columns_unify_across_batches(client: Client) -> None:
    # 100,000 rows make two batches; "amount" needs more digits in the
    # second, and a key first seen late is null before it.
    rows = [f'{{"n":{i},"amount":{i}.5}}' for i in range(70_000)]
    rows += [f'{{"n":{i},"amount":{i * 1000}.25,"late":"x"}}' for i in range(30_000)]
    body = '{"status":"success","data":[' + ",".join(rows) + "]}"
    table = client._config.parse_table(200, body.encode())
    arrow = table.to_arrow()
    assert arrow.num_rows == 100_000
    assert arrow.schema.field("amount").type.scale == 2
    assert arrow.column("late").null_count == 70_000
    assert table[0] == {"n": 0, "amount": Decimal("0.50"), "late": None}
    assert table[99_999]["amount"] == Decimal("29999000.25")


def test_two_accounts_dues_concatenate_as_decimals(client: Client) -> None:
    # Accounts owe amounts of different sizes; their balance columns still
    # have one type, so pandas concatenates them as decimals, not objects.
    def digits(dues: Dues) -> int:
        return len(str(int(max(abs(r["balance"]) for r in dues.rows))))

    owing = [d for d in (client.receivables(f"C{n:03d}") for n in range(1, 13)) if d.rows]
    owing.sort(key=digits)
    small, large = owing[0], owing[-1]
    assert digits(small) < digits(large), "the sandbox has dues of different sizes"
    frames = [large.to_pandas(), small.to_pandas()]
    decimal = pd.ArrowDtype(pa.decimal128(38, 2))
    assert [frame["balance"].dtype for frame in frames] == [decimal, decimal]
    both = pd.concat(frames, ignore_index=True)
    assert both["balance"].dtype == decimal
    assert list(both["balance"]) == [r["balance"] for r in large.rows + small.rows]


def test_empty_table(client: Client) -> None:
    table = client._config.parse_table(200, b'{"status":"success","data":[]}')
    assert len(table) == 0 and list(table) == [] and table.columns == []
    assert table.to_arrow().num_rows == 0
    assert len(table.to_pandas()) == 0
    assert table.to_polars().height == 0


def test_row_api_without_pyarrow_pandas_or_polars(sandbox_url: str) -> None:
    # A fresh interpreter where the three cannot be imported.
    code = textwrap.dedent(
        f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("pyarrow", "pandas", "polars", "numpy"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        import erpdata
        with erpdata.Client({sandbox_url!r}, project="demo", access_token={SANDBOX_TOKEN!r},
                            company_id=1, year_id=2025) as c:
            t = c.table("sales_invoice")
            rows = sum(len(b) for b in c.stream_table("sales_invoice", batch_rows=8))
            assert len(t) == rows == 40 and t[0]["invoice_no"]
            for method in (t.to_arrow, t.to_pandas, t.to_polars):
                try:
                    method()
                except ImportError as e:
                    assert "pip install 'erpdata[" in str(e), e
                else:
                    raise AssertionError("imported a blocked module")
        assert not any(m.split(".")[0] in ("pyarrow", "pandas", "polars") for m in sys.modules)
        print("ok", len(t))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok 40"


def test_parse_table_of_a_large_body(client: Client) -> None:
    table = client._config.parse_table(200, table_body(5000))
    assert len(table) == 5000 and table[4999]["invoice_no"] == "INV-0004999"


def test_parse_table_splits_a_body_over_4_mib_across_cores_in_order(client: Client) -> None:
    body = table_body(60_000)
    assert len(body) > 4 << 20  # the size above which the core decodes on every core
    table = client._config.parse_table(200, body)
    expected = json.loads(body, parse_float=Decimal)["data"]
    for row in expected:
        row["date"] = datetime.date.fromisoformat(row["date"])
    assert list(table) == expected
    assert table.to_arrow().num_rows == 60_000


def test_indexing_makes_only_the_rows_it_reaches(big_sandbox_url: str) -> None:
    # A row, a slice or a notebook's preview of a large table makes the
    # rows around what it reads, not every row of the table.
    with Client(
        big_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025
    ) as c:
        table = c.table("sales_invoice")
        every = list(c.table("sales_invoice"))
    assert len(table) == len(every) == BIG_ROWS
    for i in (0, 1, 4095, 4096, 4097, BIG_ROWS - 1, -1, -4096, -BIG_ROWS, True):
        assert table[i] == every[i], i
    for cut in (
        slice(10, 20),
        slice(4090, 4100),
        slice(None, 5),
        slice(-5, None),
        slice(None, None, 7001),
        slice(5000, 10, -3),
        slice(BIG_ROWS, BIG_ROWS + 9),
        slice(7, 7),
    ):
        assert table[cut] == every[cut], cut
    assert "<table" in table._repr_html_()
    for i in (BIG_ROWS, -BIG_ROWS - 1):
        with pytest.raises(IndexError, match="out of range"):
            table[i]
    with pytest.raises(TypeError):
        table["amount"]  # type: ignore[call-overload]
    assert table._rows is None, "every row was made"
    # A row is one dict, however it is reached: changed, it stays changed.
    row = table[4096]
    assert table[4096] is row and table[4090:4100][6] is row
    row["remarks"] = "changed"
    rows = list(table)
    assert rows[4096] is row and rows[4096]["remarks"] == "changed"
    assert table[-1] is rows[-1] and rows[:4096] == every[:4096]
