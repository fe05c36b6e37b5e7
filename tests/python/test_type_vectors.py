"""Runs every typing vector (tests/vectors/types*.json) through the native
module, as tests/vectors/README.md specifies: a whole table through
``Config.parse_table`` (or a collecting decoder when the case gives
``batch_rows``), a stream through the streaming decoder with one schema;
each column's Arrow type and values, and the Python row values, against
the vector's canonical text."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

import erpdata
from erpdata import Table
from erpdata._core import Batch, Typing
from erpdata._core._testing import TableDecoder
from erpdata._typing import typing_options
from test_vectors import DEFAULT_RESPONSE_CONFIG, ERRORS, load, make_config

TYPE_CASES = load("types*.json")


def test_type_vectors_exist() -> None:
    assert len(TYPE_CASES) >= 30


def type_name(field: pa.Field) -> str:
    """The vectors' name of an Arrow field's type."""
    t = field.type
    metadata = field.metadata or {}
    if metadata.get(b"erpdata.type") == b"json":
        assert t == pa.string(), field
        return "json"
    if pa.types.is_decimal128(t):
        return f"decimal({t.precision},{t.scale})"
    if t == pa.int64():
        return "int"
    if t == pa.date32():
        return "date"
    if pa.types.is_timestamp(t):
        assert t.unit == "us" and t.tz is None, field
        return "timestamp"
    if t == pa.string() or (pa.types.is_dictionary(t) and t.value_type == pa.string()):
        return "string"
    if t == pa.bool_():
        return "bool"
    if t == pa.null():
        return "null"
    raise AssertionError(f"unexpected Arrow type {t} of {field.name}")


def canonical(value: Any) -> Any:
    """A value as the vectors write it: decimals with their digits (at the
    column's scale), dates ``YYYY-MM-DD``, timestamps ``YYYY-MM-DD
    HH:MM:SS[.ffffff]``, booleans ``true``/``false``; ``None`` for none."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime.datetime):
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, int):
        return str(value)
    assert isinstance(value, str), repr(value)
    return value


def check_row_value(got: Any, want: Any, kind: str, where: str) -> None:
    """A row dict's value against the vector: its Python type, then its
    canonical text (JSON columns: the value ``json.loads`` gives)."""
    if want is None:
        assert got is None, f"{where}: {got!r}"
        return
    expected_type: Any = {
        "bool": bool,
        "int": int,
        "date": datetime.date,
        "timestamp": datetime.datetime,
        "string": str,
    }.get(kind)
    if kind == "json":
        assert got == json.loads(want, parse_float=Decimal), f"{where}: {got!r} vs {want}"
        return
    if kind.startswith("decimal("):
        # Scale 0: Python's int holds what int64 cannot.
        expected_type = int if kind.endswith(",0)") else Decimal
    assert type(got) is expected_type, f"{where}: {got!r} is not a {expected_type.__name__}"
    assert canonical(got) == want, f"{where}: {got!r} vs {want!r}"


def typing_of(case: dict[str, Any], *, one_schema: bool) -> Typing:
    """The case's options through the public glue (a schema is a mapping,
    as ``schema_overrides`` is)."""
    options = case.get("options", {})
    return typing_options(
        options.get("schema"), options.get("infer_strings", True), one_schema=one_schema
    )


Decoded = tuple[pa.Schema, dict[str, list[Any]], dict[str, list[Any]]]


def columns_of(table: pa.Table) -> dict[str, list[Any]]:
    return {name: table.column(name).to_pylist() for name in table.column_names}


def rows_by_column(rows: list[dict[str, Any]], names: list[str]) -> dict[str, list[Any]]:
    for row in rows:
        assert list(row) == names, "every row has every column, in order"
    return {name: [row[name] for row in rows] for name in names}


def decode(case: dict[str, Any]) -> Decoded:
    """The schema, Arrow values and row values of a case's columns."""
    config = make_config(DEFAULT_RESPONSE_CONFIG)
    body = ('{"status":"success","data":' + case["data"] + "}").encode("utf-8")
    options = case.get("options", {})
    if "stream_batch_rows" in options:
        typing = typing_of(case, one_schema=True)
        decoder = TableDecoder(config, 200, batch_rows=options["stream_batch_rows"], typing=typing)
        batches: list[Batch] = []
        # In pieces, as a stream arrives.
        for start in range(0, len(body), 7):
            batches += decoder.feed(body[start : start + 7])
        rest, _, total = decoder.finish()
        batches += rest
        arrow = [pa.record_batch(b) for b in batches]
        assert arrow, "a stream of rows has batches"
        for batch in arrow[1:]:
            assert batch.schema == arrow[0].schema, (
                f"one schema for every batch: {batch.schema} vs {arrow[0].schema}"
            )
        table = pa.Table.from_batches(arrow)
        assert table.num_rows == total
        rows = [row for b in batches for row in b.to_rows()]
        return table.schema, columns_of(table), rows_by_column(rows, table.column_names)
    typing = typing_of(case, one_schema=False)
    if "batch_rows" in options:
        collecting = TableDecoder(
            config, 200, batch_rows=options["batch_rows"], collect=True, typing=typing
        )
        collecting.feed(body)
        whole = Table(collecting.finish_table())
    else:
        whole = config.parse_table(200, body, typing)
    arrow_table = whole.to_arrow()
    return (
        arrow_table.schema,
        columns_of(arrow_table),
        rows_by_column(list(whole), arrow_table.column_names),
    )


@pytest.mark.parametrize("case", TYPE_CASES)
def test_type_vector(case: dict[str, Any]) -> None:
    if "expect_error" in case:
        expected = case["expect_error"]
        with pytest.raises(erpdata.ErpError) as info:
            decode(case)
        err = info.value
        cls = ERRORS[expected["kind"]]
        assert type(err) is cls, f"expected {cls.__name__}, got {type(err).__name__}: {err}"
        for part in expected["message_contains"]:
            assert part in str(err), f"{part!r} not in {err}"
        if isinstance(err, erpdata.InvalidInputError):
            assert err.field.startswith("schema_overrides["), err.field
        return
    schema, values, rows = decode(case)
    want = case["expect"]["columns"]
    assert sorted(schema.names) == sorted(want), "columns"
    for field in schema:
        spec = want[field.name]
        kind = type_name(field)
        assert kind == spec["type"], f"{field.name}: {kind} vs {spec['type']}"
        assert [canonical(v) for v in values[field.name]] == spec["values"], f"{field.name} values"
        assert len(rows[field.name]) == len(spec["values"])
        for i, (got, text) in enumerate(zip(rows[field.name], spec["values"])):
            check_row_value(got, text, kind, f"{field.name} row {i}")


def test_zero_and_far_timestamps_reach_pandas_and_polars() -> None:
    # Years outside datetime64[ns]'s 1677-2262 keep their microseconds.
    import pandas as pd
    import polars as pl

    config = make_config(DEFAULT_RESPONSE_CONFIG)
    body = (
        b'{"status":"success","data":[{"t":"0001-01-01 00:00:00","d":"0001-01-01"},'
        b'{"t":"9999-12-31 23:59:59.999999","d":"0000-00-00"},{"t":"0000-00-00 00:00:00","d":"2025-04-01"}]}'
    )
    table = config.parse_table(200, body)
    assert table.to_arrow().schema.field("t").type == pa.timestamp("us")
    assert table[0]["t"] == datetime.datetime(1, 1, 1) and table[2]["t"] is None
    assert table[1]["d"] is None and table[0]["d"] == datetime.date(1, 1, 1)
    arrow_backed = table.to_pandas()
    assert arrow_backed["t"].dtype == pd.ArrowDtype(pa.timestamp("us"))
    assert arrow_backed["t"].tolist()[:2] == [
        datetime.datetime(1, 1, 1),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
    ]
    numpy = table.to_pandas(dtype_backend="numpy")
    assert str(numpy["t"].dtype) == "datetime64[us]"
    assert numpy["t"][0] == pd.Timestamp("0001-01-01") and pd.isna(numpy["t"][2])
    assert numpy["t"][1] == pd.Timestamp("9999-12-31 23:59:59.999999")
    assert pd.isna(numpy["d"][1]) and numpy["d"][0] == pd.Timestamp("0001-01-01")
    frame = table.to_polars()
    assert frame.schema["t"] == pl.Datetime("us") and frame.schema["d"] == pl.Date
    assert frame["t"].to_list()[0] == datetime.datetime(1, 1, 1)
