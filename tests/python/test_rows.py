"""Row dicts made from the typed columns: values exact whichever way they
were made (a repeated decimal shares one ``Decimal``; a column of mostly
distinct ones stops being cached)."""

from __future__ import annotations

import gc
from decimal import Decimal

from erpdata._core import Config

CONFIG = Config("http://127.0.0.1:1/", project="demo", access_token="fake-token-for-tests")


def texts() -> list[str]:
    repeats = [f"{i % 7}.50" for i in range(3000)]
    distinct = [f"{i}.{i % 100:02d}" for i in range(6000)]
    negative = [f"-{i % 3}.05" for i in range(2000)]
    return repeats + distinct + negative + repeats


def test_decimals_exact_repeated_or_distinct() -> None:
    values = texts()
    body = '{"status":"success","data":[%s]}' % ",".join(
        '{"x":%s,"n":%d}' % (v, i) for i, v in enumerate(values)
    )
    table = CONFIG.parse_table(200, body.encode())
    rows = list(table)
    assert len(rows) == len(values)
    for row, text, i in zip(rows, values, range(len(values))):
        assert row == {"x": Decimal(text), "n": i}
        assert str(row["x"]) == text  # same digits and exponent as sent
    assert rows[0]["x"] is rows[7]["x"]  # a repeat shares its Decimal


def test_collector_back_on_after_rows() -> None:
    body = b'{"status":"success","data":[' + b",".join(b'{"a":1.5}' for _ in range(1000)) + b"]}"
    table = CONFIG.parse_table(200, body)
    assert gc.isenabled()
    assert len(list(table)) == 1000
    assert gc.isenabled()
    gc.disable()
    try:
        assert len(CONFIG.parse_table(200, body)[0:10]) == 10
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()
