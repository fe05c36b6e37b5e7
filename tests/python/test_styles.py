"""The sandbox's three answer styles (``/_style/STYLE/`` base URLs):
``native`` (money and integers as JSON numbers), ``mysqlnd`` (money as
strings, the default) and ``strings`` (every value a string, as
``mysqli_query`` sends) type to the same Arrow schema, the same values and
the same Python rows, whole or streamed."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import SANDBOX_TOKEN
from erpdata import Client

STYLES = ("native", "mysqlnd", "strings")


@pytest.fixture(scope="module")
def styled(sandbox_url: str) -> Iterator[dict[str, Client]]:
    """A client per style, and ``"default"`` for the plain base URL."""
    base = sandbox_url.rstrip("/")
    urls = {style: f"{base}/_style/{style}/" for style in STYLES}
    urls["default"] = sandbox_url
    clients = {
        style: Client(
            url,
            project="demo",
            access_token=SANDBOX_TOKEN,
            company_id=1,
            year_id=2025,
            timeout=10.0,
        )
        for style, url in urls.items()
    }
    yield clients
    for client in clients.values():
        client.close()


def raw_table(client: Client, table: str) -> str:
    """The table answer's body as sent, fetched with the request the core
    describes."""
    request = client._config.invoke("table", {"name": table}).request()
    answer = httpx.request(
        request.method, request.url, headers=request.headers, content=request.body, timeout=10
    )
    answer.raise_for_status()
    return answer.text


def test_the_styles_differ_on_the_wire(styled: dict[str, Client]) -> None:
    # What the core sees really differs, so the tests below prove something.
    raw = {style: raw_table(styled[style], "sales_invoice") for style in STYLES}
    assert '"amount":"' not in raw["native"] and '"items":' in raw["native"]
    assert '"amount":"' in raw["mysqlnd"] and '"items":"' not in raw["mysqlnd"]
    assert '"amount":"' in raw["strings"] and '"items":"' in raw["strings"]
    assert '"cleared_on":"0000-00-00"' in raw["mysqlnd"]
    assert '"balance":"' not in styled["native"].receivables("C001").raw
    assert '"balance":"' in styled["mysqlnd"].receivables("C001").raw


@pytest.mark.parametrize("table", ["sales_invoice", "account"])
def test_every_style_gives_the_same_table(styled: dict[str, Client], table: str) -> None:
    tables = {style: styled[style].table(table) for style in (*STYLES, "default")}
    arrow = {style: t.to_arrow() for style, t in tables.items()}
    reference = arrow["native"]
    for style in (*STYLES, "default"):
        assert arrow[style].schema.equals(reference.schema, check_metadata=True), style
        assert arrow[style].equals(reference), style
        assert list(tables[style]) == list(tables["native"]), style
    types = {f.name: f.type for f in reference.schema}
    if table == "sales_invoice":
        assert pa.types.is_decimal128(types["amount"]) and types["amount"].scale == 2
        assert types["date"] == pa.date32() and types["cleared_on"] == pa.date32()
        assert types["posted_at"] == pa.timestamp("us") and types["items"] == pa.int64()
        rows = list(tables["strings"])
        assert any(r["cleared_on"] is None for r in rows), "zero dates are None"
        assert all(type(r["posted_at"]) is datetime.datetime for r in rows)
        assert all(type(r["total"]) is Decimal for r in rows)
    else:
        assert pa.types.is_decimal128(types["credit_limit"])
        assert types["created_at"] == pa.timestamp("us")
        assert types["acid"] == pa.string()


@pytest.mark.parametrize("table", ["sales_invoice", "account"])
def test_every_style_streams_one_schema(styled: dict[str, Client], table: str) -> None:
    streamed: dict[str, list[pa.RecordBatch]] = {
        style: list(styled[style].stream_table(table, batch_rows=7, batch_format="arrow"))
        for style in STYLES
    }
    schema = streamed["native"][0].schema
    for style, batches in streamed.items():
        assert all(b.schema == schema for b in batches), style
        assert pa.Table.from_batches(batches).equals(pa.Table.from_batches(streamed["native"])), (
            style
        )
    whole = styled["native"].table(table).to_arrow()
    streamed_table = pa.Table.from_batches(streamed["mysqlnd"])
    assert streamed_table.to_pylist() == whole.to_pylist()


def test_every_style_gives_the_same_dues(styled: dict[str, Client]) -> None:
    dues = {style: styled[style].receivables("C001").rows for style in STYLES}
    assert dues["native"], "C001 has open invoices"
    for style in STYLES:
        assert dues[style] == dues["native"], style
    row = dues["strings"][0]
    assert type(row["balance"]) is Decimal and type(row["date"]) is datetime.date
    payables = {style: styled[style].payables("S001").rows for style in STYLES}
    assert payables["mysqlnd"] == payables["native"] == payables["strings"]


def test_strings_kept_as_sent_differ_by_style(styled: dict[str, Client]) -> None:
    # With string inference off, what was sent as text stays text: the
    # styles then differ exactly where they send strings.
    native = styled["native"].table("account", infer_strings=False)
    strings = styled["strings"].table("account", infer_strings=False)
    assert type(native[0]["credit_limit"]) is Decimal
    assert type(strings[0]["credit_limit"]) is str
    assert Decimal(strings[0]["credit_limit"]) == native[0]["credit_limit"]
    # Declared types make them agree again.
    declared: dict[str, Any] = {
        "credit_limit": "decimal(18,2)",
        "credit_days": "int",
        "created_at": "timestamp",
    }
    again = [
        styled[s].table("account", infer_strings=False, schema_overrides=declared)
        for s in ("native", "strings")
    ]
    for column in declared:
        assert again[0].to_arrow().column(column).equals(again[1].to_arrow().column(column)), column


def test_a_streamed_sales_invoice_written_to_parquet(
    styled: dict[str, Client], tmp_path: Path
) -> None:
    path = tmp_path / "sales_invoice.parquet"
    with styled["strings"].stream_table(
        "sales_invoice", batch_rows=9, batch_format="arrow"
    ) as stream:
        writer = None
        for batch in stream:
            if writer is None:
                writer = pq.ParquetWriter(path, batch.schema)
            writer.write_batch(batch)
        assert writer is not None
        writer.close()
    written = pq.read_table(path)
    assert written.num_rows == len(styled["native"].table("sales_invoice"))
    assert written.to_pylist() == styled["native"].table("sales_invoice").to_arrow().to_pylist()
