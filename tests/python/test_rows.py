"""Row dicts made from the typed columns: values exact whichever way they
were made (a repeated decimal shares one ``Decimal``; a column of mostly
distinct ones stops being cached)."""

from __future__ import annotations

import gc
from decimal import Decimal

from conftest import missing
from erpdata._core import Config, _datetimes_built_directly, _decimals_built_directly

CONFIG = Config("http://127.0.0.1:1/", project="demo", access_token="fake-token-for-tests")


def texts() -> list[str]:
    repeats = [f"{i % 7}.50" for i in range(3000)]
    distinct = [f"{i}.{i % 100:02d}" for i in range(6000)]
    negative = [f"-{i % 3}.05" for i in range(2000)]
    return repeats + distinct + negative + repeats


def test_decimals_exact_repeated_or_distinct() -> None:
    values = texts()
    body = '{{"status":"success","data":[{}]}}'.format(
        ",".join(f'{{"x":{v},"n":{i}}}' for i, v in enumerate(values))
    )
    table = CONFIG.parse_table(200, body.encode())
    rows = list(table)
    assert len(rows) == len(values)
    for row, text, i in zip(rows, values, range(len(values))):
        assert row == {"x": Decimal(text), "n": i}
        assert str(row["x"]) == text  # same digits and exponent as sent
    assert rows[0]["x"] is rows[7]["x"]  # a repeat shares its Decimal


def test_dates_and_strings_exact_however_they_repeat() -> None:
    """Dates whose days share a slot of the row reader's cache (1,024 days
    apart) and strings past the cached count: each row still has its own."""
    import datetime

    epoch = datetime.date(2020, 1, 1)
    days = [(i * 1024 + (i % 3)) % 3000 for i in range(9000)]
    words = [f"w{i % 5000}" if i % 2 else "same" for i in range(9000)]
    body = '{{"status":"success","data":[{}]}}'.format(
        ",".join(
            f'{{"d":"{epoch + datetime.timedelta(days=d)}","s":"{w}"}}' for d, w in zip(days, words)
        )
    )
    rows = list(CONFIG.parse_table(200, body.encode()))
    assert [r["d"] for r in rows] == [epoch + datetime.timedelta(days=d) for d in days]
    assert [r["s"] for r in rows] == words
    again = days.index(days[1], 2)
    assert rows[1]["d"] is rows[again]["d"]  # a repeat shares its date
    assert rows[0]["s"] is rows[2]["s"]  # and its string


def test_row_chunks_of_any_size_give_the_same_rows() -> None:
    # Rows are made a block at a time, column by column: chunks that start
    # and end anywhere (within a block, on a block's edge) hold exactly the
    # rows of the whole list, in order.
    body = '{{"status":"success","data":[{}]}}'.format(
        ",".join(
            f'{{"n":{i},"s":"r{i % 300}","x":{i % 9}.25,"t":"2025-01-01 00:00:{i % 60:02d}",'
            f'"o":{"null" if i % 5 else i}}}'
            for i in range(1500)
        )
    )
    table = CONFIG.parse_table(200, body.encode())
    whole = list(table)
    assert [r["n"] for r in whole] == list(range(1500))
    assert [r["o"] for r in whole] == [None if i % 5 else i for i in range(1500)]
    for size in (1, 7, 255, 256, 257, 699, 1000, 1500):
        chunks = list(table.row_chunks(size))
        assert [r for c in chunks for r in c] == whole, size
        assert all(len(c) == size for c in chunks[:-1]), size


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


def timestamp_texts() -> list[str]:
    """Timestamps across the calendar's edges: year 1 and 9999, leap days,
    before 1970, midnight and the last microsecond of a day, every count of
    fraction digits."""
    out = [
        "0001-01-01 00:00:00",
        "9999-12-31 23:59:59.999999",
        "1969-12-31 23:59:59.999999",
        "1970-01-01 00:00:00",
        "2000-02-29 12:00:00.5",
        "1900-03-01 00:00:01",
        "2024-02-29 23:59:59",
    ]
    for i in range(2000):
        year = 1 + (i * 389) % 9999
        month = 1 + i % 12
        day = 1 + (i * 7) % 28
        fraction = "" if i % 3 == 0 else "." + str(i * 7919 % 1_000_000).zfill(6)[: 1 + i % 6]
        out.append(
            f"{year:04d}-{month:02d}-{day:02d} {i % 24:02d}:{i % 60:02d}:{i * 7 % 60:02d}{fraction}"
        )
    return out


def test_dates_and_datetimes_equal_the_classes() -> None:
    import datetime

    texts = timestamp_texts()
    body = '{{"status":"success","data":[{}]}}'.format(
        ",".join(f'{{"t":"{t}","d":"{t[:10]}"}}' for t in texts)
    )
    rows = list(CONFIG.parse_table(200, body.encode()))
    assert len(rows) == len(texts)
    for row, text in zip(rows, texts):
        want = datetime.datetime.strptime(
            text, "%Y-%m-%d %H:%M:%S" + (".%f" if "." in text else "")
        )
        assert type(row["t"]) is datetime.datetime and row["t"] == want, text
        assert row["t"].tzinfo is None and str(row["t"]) == str(want), text
        assert type(row["d"]) is datetime.date and row["d"] == want.date(), text


def test_datetimes_are_built_directly_on_cpython() -> None:
    import platform

    assert _datetimes_built_directly() == (platform.python_implementation() == "CPython")


def test_where_the_check_fails_values_come_from_text() -> None:
    # `datetime.date` and `datetime.datetime` replaced by subclasses: the
    # C API's types are no longer the module's, its check refuses, and
    # every value is made the other way, equal all the same.
    code = """
import datetime
class D(datetime.date): pass
class T(datetime.datetime): pass
real_date, real_datetime = datetime.date, datetime.datetime
datetime.date, datetime.datetime = D, T
from erpdata._core import Config, _datetimes_built_directly
row = Config("http://127.0.0.1:1/", project="d", access_token="fake-token-for-tests").parse_table(
    200, b'{"status":"success","data":[{"t":"1969-12-31 23:59:59.999999","d":"2024-02-29"}]}')[0]
assert not _datetimes_built_directly()
assert row["t"] == real_datetime(1969, 12, 31, 23, 59, 59, 999999), row
assert row["d"] == real_date(2024, 2, 29), row
print("ok")
"""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def decimal_texts() -> list[str]:
    """Every shape a column's decimal takes: one and two 64-bit words of
    digits, both signs, zeros, trailing zeros, the widest 38 digits."""
    out = ["0.00", "-0.01", "1.10", "0.1", "1e-7", "123.45", "-99.999"]
    for digits in range(1, 39):
        for scale in {0, 1, digits // 2, digits - 1, digits}:
            if scale == 0:
                continue
            whole = "9" * digits
            for mag in (whole, "1" + "0" * (digits - 1), str(10 ** (digits - 1) + 7)[:digits]):
                text = mag[: digits - scale] + "." + mag[digits - scale :]
                if text.startswith("."):
                    text = "0" + text
                out += [text, "-" + text]
    return out


def test_direct_decimals_equal_the_constructors() -> None:
    # One column per value: each keeps its own scale, so the row's Decimal
    # must be Decimal(text) itself — digits, exponent, sign and hash.
    values = decimal_texts()
    body = '{{"status":"success","data":[{{{}}}]}}'.format(
        ",".join(f'"c{i}":{v}' for i, v in enumerate(values))
    )
    row = CONFIG.parse_table(200, body.encode())[0]
    for i, text in enumerate(values):
        got, want = row[f"c{i}"], Decimal(text)
        assert type(got) is Decimal, text
        assert got.as_tuple() == want.as_tuple(), text
        assert str(got) == str(want) and hash(got) == hash(want), text
        assert got + 1 == want + 1 and -got == -want, text


def test_decimals_are_built_directly_on_cpython() -> None:
    import platform
    import sys

    if platform.python_implementation() != "CPython" or sys.maxsize != 2**63 - 1:
        assert not _decimals_built_directly()
    else:
        assert _decimals_built_directly()


def test_without_the_c_decimal_values_come_from_text() -> None:
    # `_pydecimal` in place of `decimal` (as on interpreters without
    # `_decimal`): the probe refuses, and every value is made from text.
    code = """
import sys, _pydecimal
sys.modules["decimal"] = _pydecimal
from erpdata._core import Config, _decimals_built_directly
row = Config("http://127.0.0.1:1/", project="d", access_token="fake-token-for-tests").parse_table(
    200, b'{"status":"success","data":[{"a":-12345678901234567890123.45,"b":0.10}]}')[0]
assert not _decimals_built_directly()
assert type(row["a"]) is _pydecimal.Decimal, type(row["a"])
assert str(row["a"]) == "-12345678901234567890123.45" and str(row["b"]) == "0.10"
print("ok")
"""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# Run by every other CPython 3.9+ on this machine against the same abi3
# module: the layout probe must pass, and the values built must equal the
# constructor's, on each interpreter the wheel installs on.
OTHER_INTERPRETER_CHECK = """
import importlib.machinery, importlib.util, sys
from decimal import Decimal
loader = importlib.machinery.ExtensionFileLoader("erpdata._core", sys.argv[1])
core = importlib.util.module_from_spec(importlib.util.spec_from_loader("erpdata._core", loader))
loader.exec_module(core)
texts = sys.argv[2].split(",")
body = '{"status":"success","data":[{%s}]}' % ",".join('"c%d":%s' % (i, t) for i, t in enumerate(texts))
config = core.Config("http://127.0.0.1:1/", project="d", access_token="fake-token-for-tests")
decoder = core._testing.TableDecoder(config, 200)
decoder.feed(body.encode())
(batch,), _, _ = decoder.finish()
row = batch.to_rows()[0]
for i, t in enumerate(texts):
    got, want = row["c%d" % i], Decimal(t)
    assert type(got) is Decimal and got.as_tuple() == want.as_tuple() and hash(got) == hash(want), t
assert core._decimals_built_directly()
import datetime
stamps = sys.argv[3].split(",")
body = '{"status":"success","data":[%s]}' % ",".join('{"t":"%s","d":"%s"}' % (t, t[:10]) for t in stamps)
decoder = core._testing.TableDecoder(config, 200)
decoder.feed(body.encode())
rows = [r for batch in decoder.finish()[0] for r in batch.to_rows()]
for r, t in zip(rows, stamps):
    want = datetime.datetime.strptime(t, "%Y-%m-%d %H:%M:%S" + (".%f" if "." in t else ""))
    assert type(r["t"]) is datetime.datetime and r["t"] == want and str(r["t"]) == str(want), t
    assert type(r["d"]) is datetime.date and r["d"] == want.date(), t
assert len(rows) == len(stamps) and core._datetimes_built_directly()
print(sys.version_info[:2], "ok")
"""


def other_interpreters() -> list[str]:
    import glob
    import os
    import sys

    found = []
    for path in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))):
        minor = int(path.split("/versions/3.")[1].split(".")[0])
        if minor >= 9 and os.path.realpath(path) != os.path.realpath(sys.executable):
            found.append(path)
    return found


def test_direct_decimals_and_datetimes_on_every_other_interpreter_here() -> None:
    import subprocess

    from erpdata import _core

    texts = ",".join(t for t in decimal_texts() if "e" not in t)
    stamps = ",".join(timestamp_texts())
    interpreters = other_interpreters()
    if not interpreters:
        missing("no other CPython 3.9+ under ~/.pyenv on this machine")
    for python in interpreters:
        out = subprocess.run(
            [python, "-c", OTHER_INTERPRETER_CHECK, _core.__file__, texts, stamps],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 0 and out.stdout.strip().endswith("ok"), (python, out.stderr)
