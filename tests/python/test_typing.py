"""Column typing through the clients: values a PHP service sends as
strings become Decimals, dates and timestamps; ``schema_overrides`` (type
names and pyarrow types) and ``infer_strings`` on every method that
returns rows; bad overrides refused with nothing sent; a stream keeps one
schema and says which column and row do not fit it."""

from __future__ import annotations

import asyncio
import datetime
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import erpdata
import fault_api
from conftest import SANDBOX_TOKEN, RawServer
from erpdata import AsyncClient, Client

Send = Callable[[bytes], None]

MYSQLND_ROWS: list[dict[str, Any]] = [
    {
        "invoice_no": "INV-1",
        "date": "2025-01-05",
        "amount": "1500.00",
        "items": 3,
        "posted_at": "2025-01-05 09:31:07",
        "cleared_on": "0000-00-00",
        "remarks": None,
        "acid": "C001",
    },
    {
        "invoice_no": "INV-2",
        "date": "2025-01-06",
        "amount": "-20.50",
        "items": 12,
        "posted_at": "2025-01-06 17:02:59.250000",
        "cleared_on": "2025-02-01",
        "remarks": "Net 30",
        "acid": "42",
    },
]
"""Rows as a PHP service with mysqlnd sends them: DECIMAL and DATE as
strings, INT native, a zero date."""


def answer_with(body: bytes) -> Callable[[Send], None]:
    def answer(send: Send) -> None:
        send(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\n\r\n" % len(body)
            + body
        )

    return answer


def success(rows: list[dict[str, Any]]) -> bytes:
    return json.dumps({"status": "success", "data": rows}).encode()


@pytest.fixture
def mysqlnd(raw_server: Callable[[Callable[[Send], None]], RawServer]) -> RawServer:
    """A service answering every request (table or dues) with MYSQLND_ROWS."""
    return raw_server(answer_with(success(MYSQLND_ROWS)))


def client_for(url: str, **kw: Any) -> Client:
    return Client(
        url,
        project="demo",
        access_token=SANDBOX_TOKEN,
        company_id=1,
        year_id=2025,
        timeout=10.0,
        **kw,
    )


def async_client_for(url: str) -> AsyncClient:
    return AsyncClient(
        url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025, timeout=10.0
    )


# -- the default rule ----------------------------------------------------------------


def test_strings_become_decimals_dates_and_timestamps(mysqlnd: RawServer) -> None:
    with client_for(mysqlnd.url) as c:
        table = c.table("sales_invoice")
        dues = c.receivables("C001")
        streamed = [row for batch in c.stream_table("sales_invoice", batch_rows=1) for row in batch]
    first, second = table
    assert first["amount"] == Decimal("1500.00") and str(first["amount"]) == "1500.00"
    assert type(first["amount"]) is Decimal and type(first["items"]) is int
    assert first["date"] == datetime.date(2025, 1, 5) and type(first["date"]) is datetime.date
    assert first["posted_at"] == datetime.datetime(2025, 1, 5, 9, 31, 7)
    assert second["posted_at"] == datetime.datetime(2025, 1, 6, 17, 2, 59, 250000)
    assert first["posted_at"].tzinfo is None
    assert first["cleared_on"] is None  # MySQL's zero date
    assert second["cleared_on"] == datetime.date(2025, 2, 1)
    assert first["acid"] == "C001" and second["acid"] == "42"  # not every value a number: text
    schema = table.to_arrow().schema
    assert schema.field("amount").type == pa.decimal128(38, 2)
    assert schema.field("posted_at").type == pa.timestamp("us")
    assert schema.field("cleared_on").type == pa.date32()
    # Dues rows are typed by the same rule.
    assert dues.rows[0]["amount"] == Decimal("1500.00") and type(dues.rows[0]["amount"]) is Decimal
    assert dues.rows[0]["date"] == datetime.date(2025, 1, 5) and dues.rows[0]["cleared_on"] is None
    assert dues.rows[1]["posted_at"] == datetime.datetime(2025, 1, 6, 17, 2, 59, 250000)
    # A stream types alike (decimals at precision 38, as in the table).
    assert streamed == list(table)


def test_dues_keep_each_rows_keys_and_the_digits_sent(raw_server: Any) -> None:
    rows = [
        {"doc_no": "INV-1", "balance": "1034.5"},
        {"doc_no": "INV-2", "balance": "7.25", "note": "x"},
    ]
    server = raw_server(answer_with(success(rows)))
    with client_for(server.url) as c:
        dues = c.receivables("C001")
    assert dues.rows == [
        {"doc_no": "INV-1", "balance": Decimal("1034.5")},
        {"doc_no": "INV-2", "balance": Decimal("7.25"), "note": "x"},
    ]
    assert str(dues.rows[0]["balance"]) == "1034.5"


def test_a_whole_table_is_typed_over_all_its_rows(raw_server: Any) -> None:
    # Two batches of the table decoder (65,536 rows each); one value in
    # the second makes the whole column text, each value as sent.
    rows: list[dict[str, Any]] = [{"n": i, "amount": f"{i}.50"} for i in range(70_000)]
    rows[-1]["amount"] = "n/a"
    server = raw_server(answer_with(success(rows)))
    with client_for(server.url) as c:
        table = c.table("sales_invoice")
        assert table.to_arrow().schema.field("amount").type == pa.string()
        assert table[0]["amount"] == "0.50" and table[69_999]["amount"] == "n/a"
        # A stream cannot see the future: its first batch fixed a decimal.
        with pytest.raises(erpdata.DecodeError) as info:
            for _ in c.stream_table("sales_invoice", batch_rows=50_000):
                pass
    message = str(info.value)
    assert "`amount`" in message and "row 70000" in message and '"n/a"' in message
    assert "50000 of them delivered" in message
    assert info.value.rows_received == 69_999  # the refused row not among them


# -- schema_overrides and infer_strings ----------------------------------------------------

OVERRIDES = {
    "names": {"amount": "decimal(14,4)", "items": "string", "acid": "string", "date": "timestamp"},
    "pyarrow": {
        "amount": pa.decimal128(14, 4),
        "items": pa.large_string(),
        "acid": pa.string(),
        "date": pa.timestamp("ms"),
    },
}


def check_overridden_rows(rows: list[dict[str, Any]]) -> None:
    assert rows[0]["amount"] == Decimal("1500.0000") and str(rows[0]["amount"]) in (
        "1500.0000",
        "1500.00",
    )
    assert rows[0]["items"] == "3" and rows[1]["items"] == "12"
    assert rows[1]["acid"] == "42"
    assert rows[0]["date"] == datetime.datetime(2025, 1, 5)  # a date as midnight
    # Columns not declared keep the rule.
    assert rows[0]["posted_at"] == datetime.datetime(2025, 1, 5, 9, 31, 7)


@pytest.mark.parametrize("spelling", sorted(OVERRIDES))
def test_schema_overrides_on_table_stream_and_dues(mysqlnd: RawServer, spelling: str) -> None:
    overrides = OVERRIDES[spelling]
    with client_for(mysqlnd.url) as c:
        table = c.table("sales_invoice", schema_overrides=overrides)
        batches = list(
            c.stream_table(
                "sales_invoice", batch_rows=1, batch_format="arrow", schema_overrides=overrides
            )
        )
        streamed = [
            row
            for batch in c.stream_table("sales_invoice", batch_rows=1, schema_overrides=overrides)
            for row in batch
        ]
        dues = c.dues("C001", "receipt", schema_overrides=overrides)
        payables = c.payables("S001", schema_overrides=overrides)
        many = c.dues_many(["C001", "C002"], "receipt", schema_overrides=overrides)
    schema = table.to_arrow().schema
    assert schema.field("amount").type == pa.decimal128(14, 4)
    assert schema.field("items").type == pa.string()
    assert schema.field("date").type == pa.timestamp("us")
    check_overridden_rows(list(table))
    assert table[0]["amount"].as_tuple().exponent == -4
    assert all(b.schema == batches[0].schema for b in batches)
    assert batches[0].schema.field("amount").type == pa.decimal128(14, 4)
    check_overridden_rows(streamed)
    for d in (dues, payables, many["C001"], many["C002"]):
        check_overridden_rows(d.rows)
        assert type(d.rows[0]["amount"]) is Decimal


def test_schema_overrides_on_the_async_client(mysqlnd: RawServer) -> None:
    overrides: dict[str, Any] = {
        "amount": pa.decimal128(14, 4),
        "items": "string",
        "acid": "string",
        "date": "timestamp",
    }

    async def main() -> None:
        async with async_client_for(mysqlnd.url) as c:
            table = await c.table("sales_invoice", schema_overrides=overrides)
            check_overridden_rows(list(table))
            streamed = [
                r
                async for batch in c.stream_table(
                    "sales_invoice", batch_rows=1, schema_overrides=overrides
                )
                for r in batch
            ]
            check_overridden_rows(streamed)
            check_overridden_rows((await c.receivables("C001", schema_overrides=overrides)).rows)
            check_overridden_rows((await c.payables("S001", schema_overrides=overrides)).rows)
            check_overridden_rows(
                (await c.dues("C001", "payment", schema_overrides=overrides)).rows
            )
            many = await c.dues_many(["C001"], "receipt", schema_overrides=overrides)
            check_overridden_rows(many["C001"].rows)
            plain = await c.table("sales_invoice", infer_strings=False)
            assert plain[0]["amount"] == "1500.00"

    asyncio.run(main())


def test_infer_strings_off_keeps_strings(mysqlnd: RawServer) -> None:
    with client_for(mysqlnd.url) as c:
        table = c.table("sales_invoice", infer_strings=False)
        streamed = [r for b in c.stream_table("sales_invoice", infer_strings=False) for r in b]
        dues = c.receivables("C001", infer_strings=False)
        # A declared type still applies.
        declared = c.table(
            "sales_invoice", infer_strings=False, schema_overrides={"amount": "decimal"}
        )
    for rows in (list(table), streamed, dues.rows):
        assert rows[0]["amount"] == "1500.00" and rows[0]["date"] == "2025-01-05"
        assert rows[0]["cleared_on"] == "0000-00-00"  # text, as sent
        assert rows[0]["items"] == 3  # JSON numbers are still typed
    assert table.to_arrow().schema.field("amount").type == pa.string()
    assert declared[0]["amount"] == Decimal("1500.00") and declared[0]["date"] == "2025-01-05"


def test_a_value_a_declared_type_cannot_take(mysqlnd: RawServer) -> None:
    with client_for(mysqlnd.url) as c:
        with pytest.raises(erpdata.DecodeError) as info:
            c.table("sales_invoice", schema_overrides={"acid": "int"})
    message = str(info.value)
    assert "`acid`" in message and "row 1" in message and '"C001"' in message


# -- bad overrides: refused before anything is sent ------------------------------------------

BAD_OVERRIDES: list[Any] = [
    pytest.param("amount=decimal", "schema_overrides", id="a string"),
    pytest.param([("amount", "int")], "schema_overrides", id="a list of pairs"),
    pytest.param({1: "int"}, "schema_overrides", id="a key not a str"),
    pytest.param({" ": "int"}, "schema_overrides", id="a blank column name"),
    pytest.param({"amount": "money"}, 'schema_overrides["amount"]', id="an unknown name"),
    pytest.param({"amount": "decimal(39,2)"}, 'schema_overrides["amount"]', id="too many digits"),
    pytest.param({"amount": pa.float64()}, 'schema_overrides["amount"]', id="pyarrow float64"),
    pytest.param(
        {"t": pa.timestamp("us", tz="UTC")},
        'schema_overrides["t"]',
        id="pyarrow timestamp with a zone",
    ),
    pytest.param({"amount": 5}, 'schema_overrides["amount"]', id="an int"),
    pytest.param({"amount": None}, 'schema_overrides["amount"]', id="None"),
    pytest.param({"a\x00": "int"}, 'schema_overrides["a\\0"]', id="a control character"),
]


def call_every_method(client: Any, **typing: Any) -> Iterator[Callable[[], Any]]:
    """Each method that returns rows, called with ``typing``; the async
    client's calls run to their end on a new event loop."""
    calls: dict[str, Callable[[], Any]] = {
        "table": lambda: client.table("account", **typing),
        "stream_table": lambda: client.stream_table("account", **typing),
        "dues": lambda: client.dues("C001", "receipt", **typing),
        "receivables": lambda: client.receivables("C001", **typing),
        "payables": lambda: client.payables("S001", **typing),
        "dues_many": lambda: client.dues_many(["C001", "C002"], "receipt", **typing),
    }
    for call in calls.values():
        if isinstance(client, AsyncClient):

            def run(call: Callable[[], Any] = call) -> Any:
                async def main() -> Any:
                    made = call()
                    if hasattr(made, "__aiter__"):
                        return [b async for b in made]
                    return await made

                return asyncio.run(main())

            yield run
        else:
            yield call


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(("overrides", "field"), BAD_OVERRIDES)
def test_bad_overrides_are_refused_before_sending(
    sandbox_url: str, kind: str, overrides: Any, field: str
) -> None:
    before = fault_api.total(sandbox_url)
    cls = Client if kind == "sync" else AsyncClient
    client = cls(
        sandbox_url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
    )
    for call in call_every_method(client, schema_overrides=overrides):
        with pytest.raises(erpdata.InvalidInputError) as info:
            call()
        assert info.value.field == field, str(info.value)
        assert field in str(info.value)
    for call in call_every_method(client, infer_strings="no"):
        with pytest.raises(erpdata.InvalidInputError) as info:
            call()
        assert info.value.field == "infer_strings"
    assert fault_api.total(sandbox_url) == before, "a request was sent"


def test_unsupported_pyarrow_types_say_so() -> None:
    from erpdata._typing import arrow_type_name, typing_options

    with pytest.raises(erpdata.InvalidInputError) as info:
        typing_options({"x": pa.float64()}, True)
    assert "pyarrow type" in info.value.reason and "double" in info.value.reason
    names = {
        pa.string(): "string",
        pa.large_string(): "string",
        pa.int8(): "int",
        pa.uint64(): "int",
        pa.int64(): "int",
        pa.decimal128(14, 2): "decimal(14,2)",
        pa.date32(): "date",
        pa.date64(): "date",
        pa.timestamp("s"): "timestamp",
        pa.timestamp("ns"): "timestamp",
        pa.bool_(): "bool",
    }
    for data_type, name in names.items():
        assert arrow_type_name(data_type) == name, data_type
    for data_type in (
        pa.float32(),
        pa.binary(),
        pa.timestamp("us", tz="UTC"),
        pa.list_(pa.int64()),
        pa.null(),
    ):
        assert arrow_type_name(data_type) is None, data_type


# -- a stream: one schema ----------------------------------------------------------------------


def test_a_stream_writes_parquet_batch_by_batch(raw_server: Any, tmp_path: Path) -> None:
    # Batch by batch, a later column is null at first; 1.50 and 123456.75
    # are both decimal(38,2), in the stream as in the whole table.
    rows: list[dict[str, Any]] = [
        {"n": i, "amount": "1.50", "d": "2025-01-01", "note": None} for i in range(3)
    ]
    rows += [{"n": 3 + i, "amount": "123456.75", "d": "2025-12-31", "note": "x"} for i in range(3)]
    server = raw_server(answer_with(success(rows)))
    path = tmp_path / "stream.parquet"
    with client_for(server.url) as c:
        stream = c.stream_table("sales_invoice", batch_rows=2, batch_format="arrow")
        first = next(stream)
        with pq.ParquetWriter(path, first.schema) as writer:
            writer.write_batch(first)
            for batch in stream:
                assert batch.schema == first.schema
                writer.write_batch(batch)
        whole = c.table("sales_invoice")
    written = pq.read_table(path)
    assert first.schema.field("amount").type == pa.decimal128(38, 2)
    assert whole.to_arrow().schema.field("amount").type == pa.decimal128(38, 2)
    assert first.schema.field("note").type == pa.string()
    assert written.column("amount").to_pylist() == whole.to_arrow().column("amount").to_pylist()
    assert written.column("d").to_pylist()[-1] == datetime.date(2025, 12, 31)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_stream_misfit_names_column_and_row(raw_server: Any, kind: str) -> None:
    rows = [{"amount": "1.50"}, {"amount": "2.00"}, {"amount": "n/a"}, {"amount": "4.00"}]
    server = raw_server(answer_with(success(rows)))
    got: list[Any] = []

    async def astream() -> None:
        async with async_client_for(server.url) as c:
            async for batch in c.stream_table("sales_invoice", batch_rows=2):
                got.append(batch)

    with pytest.raises(erpdata.DecodeError) as info:
        if kind == "sync":
            with client_for(server.url) as c:
                for batch in c.stream_table("sales_invoice", batch_rows=2):
                    got.append(batch)
        else:
            asyncio.run(astream())
    message = str(info.value)
    for part in ("`amount`", "row 3", '"n/a"', "decimal(38,2)", "declare"):
        assert part in message, (part, message)
    assert got == [[{"amount": Decimal("1.50")}, {"amount": Decimal("2.00")}]]
    # Declared as text, the same answer streams.
    with client_for(server.url) as c:
        rows_out = [
            r
            for b in c.stream_table(
                "sales_invoice", batch_rows=2, schema_overrides={"amount": "string"}
            )
            for r in b
        ]
    assert [r["amount"] for r in rows_out] == ["1.50", "2.00", "n/a", "4.00"]


def test_a_column_first_seen_after_a_streams_first_batch(raw_server: Any) -> None:
    rows: list[dict[str, Any]] = [{"a": 1}, {"a": 2, "late": "x"}]
    server = raw_server(answer_with(success(rows)))
    with client_for(server.url) as c:
        with pytest.raises(erpdata.DecodeError) as info:
            list(c.stream_table("sales_invoice", batch_rows=1))
        assert "`late`" in str(info.value) and "row 2" in str(info.value)
        declared = list(
            c.stream_table("sales_invoice", batch_rows=1, schema_overrides={"late": "string"})
        )
    assert declared == [[{"a": 1, "late": None}], [{"a": 2, "late": "x"}]]
