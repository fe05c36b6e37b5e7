"""Runs tests/vectors/catalogue.json (each operation by name through the
one entry point, ``Config.invoke``, and the request it builds) and
tests/vectors/plans.json (the core's flows through ``Plan``, each call
answered with its listed response, the running calls completed last
started first), as crates/erpdata/tests/integration/plan_vectors.rs does in Rust."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest

import erpdata
from erpdata import Table, _finance
from erpdata._core import Config, Plan, PlannedCall
from test_vectors import ERRORS, load

CATALOGUE_CASES = load("catalogue.json")
PLAN_CASES = load("plans.json")


def test_vectors_exist() -> None:
    # An empty parametrization would only be skipped; missing vectors must fail.
    assert CATALOGUE_CASES and PLAN_CASES


def make_config(settings: dict[str, Any]) -> Config:
    rest = {k: v for k, v in settings.items() if k != "base_url"}
    return Config(settings["base_url"], **rest)


def value(v: Any) -> Any:
    """A JSON argument as a Python user gives it: ``{"$date": ...}`` a
    ``datetime.date``, ``{"$datetime": ...}`` a ``datetime.datetime``,
    an object a dict (a mapping, in order), an array a list."""
    if isinstance(v, dict):
        if set(v) == {"$date"}:
            return datetime.date.fromisoformat(v["$date"])
        if set(v) == {"$datetime"}:
            return datetime.datetime.fromisoformat(v["$datetime"])
        return {k: value(item) for k, item in v.items()}
    if isinstance(v, list):
        return [value(item) for item in v]
    return v


def check_error(err: BaseException, expected: dict[str, Any]) -> None:
    cls = ERRORS[expected["kind"]]
    assert type(err) is cls, f"expected {cls.__name__}, got {type(err).__name__}: {err}"
    if "field" in expected:
        assert isinstance(err, erpdata.InvalidInputError)
        assert err.field == expected["field"], str(err)
    contains = expected.get("message_contains", [])
    for part in [contains] if isinstance(contains, str) else contains:
        assert part in str(err), str(err)
    shown = f"{err} {err!r} {getattr(err, 'reason', '')}"
    for secret in expected.get("not_contains", []):
        assert secret not in shown, shown
    if "status" in expected:
        if isinstance(err, erpdata.HttpStatusError):
            assert err.status_code == expected["status"]
        else:
            assert isinstance(err, erpdata.ServiceError)
            assert err.status == expected["status"]


def request_json(request: erpdata._core.Request) -> dict[str, str]:
    return {"method": request.method, "url": request.url, "body": request.body.decode()}


@pytest.mark.parametrize("case", CATALOGUE_CASES)
def test_catalogue(case: dict[str, Any]) -> None:
    def build() -> erpdata._core.Request:
        config = make_config(case["config"])
        args = {name: value(v) for name, v in case["args"].items()}
        return config.invoke(case["operation"], args).request()

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            build()
        check_error(info.value, case["expect_error"])
        return
    request = build()
    expect = case["expect"]
    assert request_json(request) == {k: expect[k] for k in ("method", "url", "body")}
    content_types = [v for k, v in request.headers if k.lower() == "content-type"]
    assert content_types == ([] if expect["content_type"] is None else [expect["content_type"]])


def plan_of(config: Config, plan: str, args: dict[str, Any]) -> Plan:
    """The plan through the binding, each argument as a user gives it
    (what the vectors leave out, the client's default)."""
    a = {name: value(v) for name, v in args.items()}
    where = {
        "accounts_table": a.get("accounts_table", "account"),
        "company_id": a.get("company_id"),
        "year_id": a.get("year_id"),
        "concurrency": a["concurrency"],
    }
    if plan == "dues_table":
        return Plan.dues_table(config, a["acids"], a["kind"], a["concurrency"])
    if plan == "aging":
        return Plan.aging(
            config,
            kind=a["kind"],
            accounts=a.get("accounts"),
            as_of=a["as_of"],
            buckets=a.get("buckets", _finance.DEFAULT_BUCKETS),
            **where,
        )
    assert plan == "credit_status", plan
    return Plan.credit_status(
        config,
        accounts=a.get("accounts"),
        as_of=a["as_of"],
        pay_days=a.get("pay_days", True),
        **where,
    )


def run(case: dict[str, Any]) -> tuple[Table, int]:
    """The case's plan run to its end: its table and the calls it made.
    On a wait, the running calls are completed last started first."""
    name = case["name"]
    config = make_config(case["config"])
    plan = plan_of(config, case["plan"], case["args"])
    concurrency = case["args"]["concurrency"]
    running: list[tuple[PlannedCall, dict[str, Any]]] = []
    made = 0
    while True:
        step = plan.next()
        if isinstance(step, PlannedCall):
            request = request_json(step.invocation.request())
            matches = [c for c in case["calls"] if c["request"] == request]
            assert matches, f"{name}: an unlisted request {request}"
            made += 1
            running.append((step, matches[0]))
            assert len(running) <= concurrency, f"{name}: over the concurrency"
            assert plan.running == len(running), name
        elif step is None:
            assert running, f"{name}: the plan waits with nothing running"
            call, listed = running.pop()
            response = listed["response"]
            plan.answer(call.id, response["status"], response["body"].encode("utf-8"))
        else:
            assert isinstance(step, Table), f"{name}: {step!r}"
            return step, made


def json_value(v: Any) -> Any:
    """A table value as the vectors write it, a number as its value (a
    decimal column holds each number at the column's scale, the vectors
    the digits sent)."""
    if isinstance(v, (Decimal, int)) and not isinstance(v, bool):
        return {"$number": Decimal(v)}
    if isinstance(v, datetime.datetime):
        return v.isoformat(" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v


def expected_value(v: Any) -> Any:
    if isinstance(v, dict) and set(v) == {"$number"}:
        return {"$number": Decimal(v["$number"])}
    return v


@pytest.mark.parametrize("case", PLAN_CASES)
def test_plan(case: dict[str, Any]) -> None:
    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            run(case)
        check_error(info.value, case["expect_error"])
        return
    table, made = run(case)
    expect = case["expect"]
    assert made == len(case["calls"]), "calls made"
    assert [list(s) for s in table.schema] == expect["schema"]
    assert table.notices == expect.get("notices", [])
    rows = [{k: json_value(v) for k, v in row.items()} for row in table]
    assert rows == [{k: expected_value(v) for k, v in row.items()} for row in expect["rows"]]
    # Exact: a decimal column's values are Decimals at its scale, an int
    # column's ints.
    types = dict(table.schema)
    for row in table:
        for key, v in row.items():
            if v is None:
                continue
            if types[key].startswith("decimal("):
                scale = int(types[key][len("decimal(") : -1].split(",")[1])
                assert type(v) is Decimal and v.as_tuple().exponent == -scale, (key, v)
            elif types[key] == "int":
                assert type(v) is int, (key, v)
