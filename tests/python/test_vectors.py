"""Runs every shared vector (tests/vectors/requests*.json, responses*.json)
through erpdata._core.Config, as tests/vectors/README.md specifies."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import erpdata
from erpdata import Dues, DuesKind, Table
from erpdata._core import Config, Plan, PlannedCall
from erpdata._core._testing import dues_table_of, parse_table_rows

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
DEFAULT_RESPONSE_CONFIG = {
    "base_url": "https://erp.example.com/",
    "project": "demo",
    "access_token": "fake-token-for-tests",
}
ERRORS: dict[str, type[erpdata.ErpError]] = {
    "invalid_input": erpdata.InvalidInputError,
    "transport": erpdata.TransportError,
    "http_status": erpdata.HttpStatusError,
    "service": erpdata.ServiceError,
    "decode": erpdata.DecodeError,
}


def load(pattern: str) -> list[Any]:
    params = []
    for path in sorted(VECTORS.glob(pattern)):
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
        params += [pytest.param(case, id=f"{path.stem}: {case['name']}") for case in cases]
    return params


REQUEST_CASES = load("requests*.json")
RESPONSE_CASES = load("responses*.json")
CONFIG_CASES = load("config.json")


def test_vectors_exist() -> None:
    # An empty parametrization would only be skipped; missing vectors must fail.
    assert REQUEST_CASES, f"no request cases in {VECTORS}"
    assert RESPONSE_CASES, f"no response cases in {VECTORS}"
    assert DUES_TABLE_CASES, f"no dues table cases in {VECTORS}"
    assert CONFIG_CASES, f"no config cases in {VECTORS}"


def make_config(settings: dict[str, Any]) -> Config:
    rest = {k: v for k, v in settings.items() if k != "base_url"}
    return Config(settings["base_url"], **rest)


def check_error(err: BaseException, expected: dict[str, Any]) -> None:
    cls = ERRORS[expected["kind"]]
    assert type(err) is cls, f"expected {cls.__name__}, got {type(err).__name__}: {err}"
    assert isinstance(err, erpdata.ErpError)
    text = str(err)
    if "field" in expected:
        assert isinstance(err, erpdata.InvalidInputError)
        assert err.field == expected["field"], text
    if "status" in expected:
        if isinstance(err, erpdata.HttpStatusError):
            assert err.status_code == expected["status"]
        else:
            assert isinstance(err, erpdata.ServiceError)
            assert err.status == expected["status"]
    contains = expected.get("message_contains", [])
    for part in [contains] if isinstance(contains, str) else contains:
        assert part in text, (part, text)
    everything = " ".join([text, repr(err), *(str(v) for v in vars(err).values())])
    for secret in expected.get("not_contains", []):
        assert secret not in everything


class Environ(dict[str, str]):
    """A case's variables, as os.environ; remembers which were read."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.read: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return super().get(key, default)


VARIABLES = {
    "base_url": "ERPDATA_BASE_URL",
    "project": "ERPDATA_PROJECT",
    "project_folder": "ERPDATA_PROJECT_FOLDER",
    "access_token": "ERPDATA_ACCESS_TOKEN",
    "company_id": "ERPDATA_COMPANY_ID",
    "year_id": "ERPDATA_YEAR_ID",
}


@pytest.mark.parametrize("case", CONFIG_CASES)
def test_config(case: dict[str, Any]) -> None:
    environ = Environ(case["vars"])
    try:
        config = Config(**case["settings"], environ=environ)
    except erpdata.ErpError as err:
        assert "expect_error" in case, f"unexpected error: {err}"
        check_error(err, case["expect_error"])
    else:
        assert "expect" in case, "expected an error"
        shown = {
            "base_url": config.base_url,
            "project": config.project,
            "project_folder": config.project_folder,
            "company_id": config.company_id,
            "year_id": config.year_id,
            "has_access_token": config.has_access_token,
        }
        assert shown == case["expect"]
    for setting in case["settings"]:
        if setting in VARIABLES:
            assert VARIABLES[setting] not in environ.read, f"read though {setting} was given"


@pytest.mark.parametrize("case", REQUEST_CASES)
def test_request(case: dict[str, Any]) -> None:
    args = case["args"]

    def build() -> erpdata._core.Request:
        config = make_config(case["config"])
        if case["call"] in FUNCTIONS:
            return config.invoke(case["call"], function_args(args)).request()
        if case["call"] == "table":
            table = {("name" if k == "table" else k): v for k, v in args.items()}
            return config.invoke("table", table).request()
        assert case["call"] == "dues", case["call"]
        return config.invoke("dues", args).request()

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            build()
        check_error(info.value, case["expect_error"])
        return
    request = build()
    expect = case["expect"]
    assert request.method == expect["method"]
    assert request.url == expect["url"]
    assert request.body.decode("utf-8") == expect["body"]
    content_types = [v for k, v in request.headers if k.lower() == "content-type"]
    assert content_types == ([] if expect["content_type"] is None else [expect["content_type"]])
    token = case["config"].get("access_token")
    if token:
        assert token not in request.display_url + repr(request)


FUNCTIONS = (
    "dues_summary",
    "avg_pay_days",
    "net_profit",
    "gross_profit",
    "schedule_accounts",
    "ajax",
)


class Pairs(Mapping[str, Any]):
    """Name/value pairs in order, as a mapping (a name given twice stays
    twice, as a user's own mapping class could give it)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs

    def __getitem__(self, name: str) -> Any:
        return next(v for k, v in self.pairs if k == name)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def items(self) -> Any:
        return list(self.pairs)


def function_args(args: dict[str, Any]) -> dict[str, Any]:
    """A request case's arguments as ``Config.invoke`` takes them:
    ``params`` a mapping, in order."""
    out = dict(args)
    if "params" in out:
        out["params"] = Pairs([(name, value) for name, value in out["params"]])
    return out


INTEGER = re.compile(r"-?[0-9]+")


def check_value(actual: Any, expected: Any, where: str) -> None:
    if isinstance(expected, dict) and set(expected) == {"$number"}:
        text = expected["$number"]
        if INTEGER.fullmatch(text):
            assert type(actual) is int, f"{where}: {actual!r} is not an int"
            assert actual == int(text), where
        else:
            assert type(actual) is Decimal, f"{where}: {actual!r} is not a Decimal"
            # Same value, sign and exponent: the exact text survives.
            assert actual.as_tuple() == Decimal(text).as_tuple(), f"{where}: {actual!r} != {text}"
    elif isinstance(expected, dict) and set(expected) == {"$json"}:
        check_json(actual, json.loads(expected["$json"], parse_float=Decimal), where)
    elif isinstance(expected, str) and isinstance(actual, datetime.date):
        # A date or timestamp column: Python users get date and datetime
        # objects, the vectors the text sent.
        assert temporal_text(actual) == expected, f"{where}: {actual!r} vs {expected!r}"
    else:
        assert type(actual) is type(expected), f"{where}: {actual!r} vs {expected!r}"
        assert actual == expected, where


def temporal_text(value: datetime.date) -> str:
    """A date as ``YYYY-MM-DD``, a timestamp as ``YYYY-MM-DD HH:MM:SS``
    with ``.ffffff`` unless whole seconds: the core's canonical text."""
    return value.isoformat(" ") if isinstance(value, datetime.datetime) else value.isoformat()


def check_json(actual: Any, expected: Any, where: str) -> None:
    """Nested JSON compared strictly: types, key order, Decimal exponents."""
    assert type(actual) is type(expected), f"{where}: {actual!r} vs {expected!r}"
    if isinstance(expected, dict):
        assert list(actual) == list(expected), where
        for key in expected:
            check_json(actual[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            check_json(a, e, f"{where}[{i}]")
    elif isinstance(expected, Decimal):
        assert actual.as_tuple() == expected.as_tuple(), where
    else:
        assert actual == expected, where


def check_rows(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert len(actual) == len(expected)
    for i, (row, want) in enumerate(zip(actual, expected)):
        assert list(row) == list(want), f"row {i} keys"
        for key in want:
            check_value(row[key], want[key], f"row {i}, {key}")


def numeric(value: Any) -> Any:
    """A value with every number as a Decimal, for comparing by value: a
    table's typed column holds a number at the column's scale (1234.5 in a
    column of scale 2 is 1234.50), and an int in a decimal column is a
    Decimal."""
    if isinstance(value, dict) and set(value) == {"$number"}:
        return Decimal(value["$number"])
    if isinstance(value, dict) and set(value) == {"$json"}:
        return numeric(json.loads(value["$json"], parse_float=Decimal))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, dict):
        return {k: numeric(v) for k, v in value.items()}
    if isinstance(value, list):
        return [numeric(v) for v in value]
    return value


def check_table(table: Table, expected: list[dict[str, Any]], columns: list[str]) -> None:
    """The columnar table: every row has every column (None where the row
    had no value) and the same values as the exact row parse."""
    assert len(table) == len(expected)
    for i, (row, want) in enumerate(zip(table, expected)):
        assert list(row) == columns, f"row {i} keys"
        for key in columns:
            got, exp = numeric(row[key]), numeric(want.get(key))
            if isinstance(got, datetime.date):
                got = temporal_text(got)
            assert got == exp, f"row {i}, {key}: {row[key]!r} vs {want.get(key)!r}"
            if isinstance(exp, Decimal):
                assert not isinstance(row[key], float)


def check_typed(actual: Any, expected: Any, type_name: str, where: str) -> None:
    """A value of a column (or field) of type ``type_name``: a decimal
    column's values are all ``Decimal``, with the digits sent."""
    if type_name.startswith("decimal") and isinstance(expected, dict):
        assert type(actual) is Decimal, f"{where}: {actual!r} is not a Decimal"
        assert actual.as_tuple() == Decimal(expected["$number"]).as_tuple(), where
    else:
        check_value(actual, expected, where)


def check_ajax(case: dict[str, Any], config: Config, status: int, body: bytes) -> None:
    def parse() -> erpdata.AjaxAnswer:
        answer: erpdata.AjaxAnswer = config.invoke("ajax", {"func": case["func"]}).parse(
            status, body
        )
        return answer

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            parse()
        check_error(info.value, case["expect_error"])
        return
    answer = parse()
    expect = case["expect"]
    assert answer.func == case["func"]
    assert answer.shape == expect["shape"]
    if "schema" in expect:
        assert [list(s) for s in answer.schema] == expect["schema"]
    types = dict(answer.schema)
    if expect["shape"] == "rows":
        assert len(answer.rows) == len(expect["rows"])
        for i, (row, want) in enumerate(zip(answer.rows, expect["rows"])):
            assert list(row) == list(want), f"row {i} keys"
            for key in want:
                check_typed(row[key], want[key], types[key], f"row {i}, {key}")
        assert answer.value == answer.rows
        table = answer.to_table()
        assert len(table) == len(expect["rows"])
    elif expect["shape"] == "object":
        assert sorted(answer.fields) == sorted(expect["fields"])
        assert list(answer.fields) == [name for name, _ in answer.schema]
        for key, want in expect["fields"].items():
            check_typed(answer.fields[key], want, types[key], key)
        assert answer.value == answer.fields
    else:
        check_typed(answer.value, expect["value"], expect["type"], "value")
    assert answer.notices == expect["notices"]
    if "raw" in expect:
        assert answer.raw == expect["raw"]


DUES_TABLE_CASES = load("dues-tables*.json")


def planned(config: Config, dues: list[dict[str, Any]]) -> Table:
    """The dues_table plan of ``dues``' accounts, answered by hand."""
    bodies = {
        config.invoke("dues", {"acid": d["acid"], "kind": d["kind"]}).request().url: d["body"]
        for d in dues
    }
    kind = dues[0]["kind"] if dues else "RECEIPT"
    plan = Plan.dues_table(config, [d["acid"] for d in dues], kind, 8)
    while isinstance(step := plan.next(), PlannedCall) or step is None:
        if step is not None:
            body = bodies[step.invocation.request().url]
            plan.answer(step.id, 200, body.encode("utf-8"))
    assert isinstance(step, Table)
    return step


@pytest.mark.parametrize("case", DUES_TABLE_CASES)
def test_dues_table(case: dict[str, Any]) -> None:
    config = make_config(DEFAULT_RESPONSE_CONFIG)
    parsed = [
        config.invoke("dues", {"acid": d["acid"], "kind": d["kind"]}).parse(
            200, d["body"].encode("utf-8")
        )
        for d in case["dues"]
    ]
    kinds = {d["kind"].upper() for d in case["dues"]}

    def build() -> Table:
        # The core's join of parsed dues answers (as the JS runner does).
        table: Table = dues_table_of(config, [d._data for d in parsed])
        if len(kinds) <= 1:
            # One kind: the dues_table plan, each call answered with its
            # account's body, gives the same table.
            assert planned(config, case["dues"]) == table
        return table

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            build()
        check_error(info.value, case["expect_error"])
        return
    table = build()
    expect = case["expect"]
    if "dues_schemas" in expect:
        # Each account's dues typed alone: the same types whatever its values.
        each = [[list(c) for c in d.to_table().schema] for d in parsed]
        assert each == expect["dues_schemas"]
    assert [list(c) for c in table.schema] == expect["schema"]
    types = dict((name, t) for name, t in expect["schema"])
    assert table.columns == [name for name, _ in expect["schema"]]
    assert len(table) == len(expect["rows"])
    # A Table's columns hold each decimal at the column's scale; the rows of
    # the vectors keep the digits sent: compared by value.
    for i, (row, want) in enumerate(zip(table, expect["rows"])):
        for key in types:
            got, exp = numeric(row[key]), numeric(want.get(key))
            if isinstance(got, datetime.date):
                got = temporal_text(got)
            assert got == exp, f"row {i}, {key}: {row[key]!r} vs {want.get(key)!r}"
            if types[key].startswith("decimal") and exp is not None:
                assert type(row[key]) is Decimal


@pytest.mark.parametrize("case", RESPONSE_CASES)
def test_response(case: dict[str, Any]) -> None:
    config = make_config(case.get("config", DEFAULT_RESPONSE_CONFIG))
    response = case["response"]
    if "body_hex" in response:
        body = bytes.fromhex(response["body_hex"])
    else:
        body = response["body"].encode("utf-8")
    status = response["status"]
    if case["call"] == "ajax":
        check_ajax(case, config, status, body)
        return

    def parse() -> Any:
        if case["call"] == "dues":
            d = case["dues"]
            return config.invoke("dues", {"acid": d["acid"], "kind": d["kind"]}).parse(status, body)
        assert case["call"] == "table", case["call"]
        return parse_table_rows(config, status, body)

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            parse()
        check_error(info.value, case["expect_error"])
        if case["call"] == "table":
            # The columnar parse fails the same way.
            with pytest.raises(erpdata.ErpError) as columnar:
                config.parse_table(status, body)
            check_error(columnar.value, case["expect_error"])
        return
    result = parse()
    expect = case["expect"]
    if isinstance(result, Dues):
        assert isinstance(result.kind, DuesKind)
        assert result.acid == str(case["dues"]["acid"])
        check_rows(result.rows, expect["rows"])
        if "raw" in expect:
            assert result.raw == expect["raw"]
        notices = result.notices
    else:
        rows, columns, notices = result
        check_rows(rows, expect["rows"])
        if "columns" in expect:
            assert columns == expect["columns"]
        table = config.parse_table(status, body)
        assert isinstance(table, Table)
        assert table.columns == columns
        assert table.notices == notices
        check_table(table, expect["rows"], columns)
    if "notices" in expect:
        assert notices == expect["notices"]
