"""The native glue (erpdata._core): type conversions and redaction."""

from __future__ import annotations

import logging
import pickle
from decimal import Decimal

import pytest

import erpdata
from conftest import FAKE_TOKEN
from erpdata import DuesKind
from erpdata._core import Config, Request
from erpdata._core._testing import parse_table_rows

BASE = "https://erp.example.com/"


def dues_request(config: Config, acid: object, kind: object) -> Request:
    return config.invoke("dues", {"acid": acid, "kind": kind}).request()


def table_request(config: Config, name: str, **options: object) -> Request:
    return config.invoke("table", {"name": name, **options}).request()


def config(**kw: object) -> Config:
    settings: dict[str, object] = {
        "project": "demo",
        "access_token": FAKE_TOKEN,
        "company_id": 1,
        "year_id": 2025,
    }
    settings.update(kw)
    return Config(BASE, **settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "acid, sent",
    [("C001", "C001"), ("007", "007"), (7, "7"), (10**30, "1" + "0" * 30), (-3, "-3")],
)
def test_ids_as_str_or_int(acid: object, sent: str) -> None:
    request = dues_request(config(), acid, "RECEIPT")
    assert f"acid={sent}&" in request.url


@pytest.mark.parametrize(
    "bad, shown",
    [
        (1.5, "a value of type float"),
        (True, "true"),
        (b"C001", "a value of type bytes"),
        (["C001"], "a list"),
        (Decimal("1"), "a value of type Decimal"),
    ],
)
def test_other_id_types_are_invalid_input(bad: object, shown: str) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        dues_request(config(), bad, "RECEIPT")
    assert info.value.field == "acid"
    assert f"must be text or an integer, got {shown}" in str(info.value)


def test_a_missing_id_is_required() -> None:
    # None is "not given", so the core says the argument is missing.
    with pytest.raises(erpdata.InvalidInputError) as info:
        dues_request(config(), None, "RECEIPT")
    assert info.value.field == "acid" and "is required" in str(info.value)


def test_unknown_arguments_are_named() -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        config().invoke("table", {"table": "account"})
    assert info.value.field == "table"
    assert "is not an argument of table; it takes name" in str(info.value)


def test_company_and_year_types_are_checked_too() -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        table_request(config(), "account", company_id=1.0)
    assert info.value.field == "company_id"
    with pytest.raises(erpdata.InvalidInputError) as info:
        Config(BASE, year_id=False)
    assert info.value.field == "year_id"


def test_kind_enum_and_any_case() -> None:
    c = config()
    urls = {
        dues_request(c, "C1", k).url for k in (DuesKind.PAYMENT, "PAYMENT", "payment", "PayMent")
    }
    assert len(urls) == 1 and urls.pop().endswith("type=PAYMENT")
    for bad in ("REFUND", "", 1):
        with pytest.raises(erpdata.InvalidInputError) as info:
            dues_request(c, "C1", bad)
        assert info.value.field == "kind"


def test_request_shape() -> None:
    post = table_request(config(), "account")
    assert post.method == "POST"
    assert post.url == post.display_url == BASE + "apis/dataapi.php"
    assert ("content-type", "application/x-www-form-urlencoded") in post.headers
    assert isinstance(post.body, bytes) and b"table=account" in post.body
    get = dues_request(config(), "C1", "RECEIPT")
    assert get.method == "GET" and get.body == b""
    assert all(name != "content-type" for name, _ in get.headers)


def test_request_never_shows_the_token() -> None:
    c = config()
    for request in (table_request(c, "account"), table_request(c, "account", method="GET")):
        assert FAKE_TOKEN not in repr(request) + str(request) + request.display_url
    get = table_request(c, "account", method="GET")
    assert FAKE_TOKEN in get.url  # the transport needs it ...
    assert "[REDACTED]" in get.display_url  # ... nobody else sees it
    assert FAKE_TOKEN not in repr(c) + str(c)


def test_errors_never_show_the_token() -> None:
    c = config()
    err = c.transport_error(
        "connect", f"GET {BASE}apis/dataapi.php?accesstoken={FAKE_TOKEN} failed"
    )
    assert isinstance(err, erpdata.TransportError) and not isinstance(err, erpdata.TimeoutError)
    assert FAKE_TOKEN not in str(err) + repr(err) + err.message
    timeout = c.transport_error("timeout", FAKE_TOKEN)
    assert isinstance(timeout, erpdata.TimeoutError) and isinstance(timeout, TimeoutError)
    with pytest.raises(erpdata.ServiceError) as info:
        c.parse_table(200, b'{"status":"error","message":"bad token ' + FAKE_TOKEN.encode() + b'"}')
    assert FAKE_TOKEN not in str(info.value) + repr(info.value) + info.value.message
    with pytest.raises(erpdata.InvalidInputError) as info2:
        Config("http://erp.example.com/", access_token=FAKE_TOKEN)
    assert FAKE_TOKEN not in str(info2.value) + repr(info2.value)


def test_error_classes_and_attributes() -> None:
    c = config()
    with pytest.raises(erpdata.HttpStatusError) as http:
        c.parse_table(503, b"<html>busy</html>")
    assert http.value.status_code == 503 and "busy" in http.value.excerpt
    with pytest.raises(erpdata.DecodeError) as dec:
        c.parse_table(200, b'{"status":"success","data":[{"a":1},')
    assert "truncated" in dec.value.reason
    # Whether trying later may help: the core's rule, on every class.
    assert (http.value.retryable, dec.value.retryable) == (True, False)
    # A parser used alone sees no headers: no wait asked for.
    assert http.value.retry_after is None
    assert erpdata.ErpError("made by hand").retryable is False
    for err in (http.value, dec.value):
        assert isinstance(err, erpdata.ErpError)
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == str(err)
        assert again.__dict__ == err.__dict__


def test_cells_become_python_values() -> None:
    body = (
        b'{"status":"success","data":[{"n":null,"b":false,"i":-7,"d":1234.50,'
        b'"big":12345678901234567890,"s":"x","j":{"x":1.50,"l":[1,2]}},{"d":2,"i":1}]}'
    )
    table = config().parse_table(200, body)
    row = table[0]
    assert row == {
        "n": None,
        "b": False,
        "i": -7,
        "d": Decimal("1234.50"),
        "big": 12345678901234567890,
        "s": "x",
        "j": {"x": Decimal("1.50"), "l": [1, 2]},
    }
    assert str(row["d"]) == "1234.50" and type(row["big"]) is int and row["b"] is False
    assert str(row["j"]["x"]) == "1.50"
    # One str object per column name, shared by every row.
    assert all(a is b for a, b in zip(table.columns, row))
    assert [k for k in table[1]][3] is table.columns[3]
    assert table.columns == ["n", "b", "i", "d", "big", "s", "j"]
    # Every row has every column; a number in a decimal column is a
    # Decimal at the column's scale.
    assert table[1:] == [
        {"n": None, "b": None, "i": 1, "d": Decimal("2"), "big": None, "s": None, "j": None}
    ]
    assert str(table[1]["d"]) == "2.00"
    # The row parse keeps each row's keys and each number's text as sent
    # (a decimal column's value is a Decimal even when sent without a
    # fraction).
    rows, columns, notices = parse_table_rows(config(), 200, body)
    assert rows[1] == {"d": Decimal("2"), "i": 1} and type(rows[1]["d"]) is Decimal
    assert str(rows[1]["d"]) == "2" and str(rows[0]["d"]) == "1234.50"
    assert columns == table.columns and notices == []


def test_get_form_urls_are_redacted_in_httpx_logs(
    caplog: pytest.LogCaptureFixture, refused_url: str
) -> None:
    with erpdata.Client(
        refused_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1
    ) as c:
        with caplog.at_level(logging.DEBUG):
            with pytest.raises(erpdata.TransportError):
                c.table("account", method="GET")
            logging.getLogger("httpx").info(
                "HTTP Request: GET %s", f"{refused_url}?accesstoken={FAKE_TOKEN}"
            )
    assert caplog.records
    assert FAKE_TOKEN not in caplog.text
