"""erpdata.aging and erpdata.credit_status: the shared vectors
(tests/vectors/aging.json, credit-status.json, pay-days.json,
account-ids.json), any Arrow input, and the clients' methods against the
sandbox."""

from __future__ import annotations

import asyncio
import datetime
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import erpdata
from conftest import need
from erpdata import _core, _finance
from erpdata._core import Config
from erpdata._typing import typing_options

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
ERRORS: dict[str, type[erpdata.ErpError]] = {
    "invalid_input": erpdata.InvalidInputError,
    "service": erpdata.ServiceError,
}


def load(name: str) -> list[Any]:
    cases = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    assert cases, f"no cases in {name}.json"
    return [pytest.param(c, id=f"{name}: {c['name']}") for c in cases]


def decode(data: str, schema: dict[str, str] | None = None) -> erpdata.Table:
    config = Config("https://erp.example.com/", project="demo", access_token="fake-token-for-tests")
    body = f'{{"status":"success","data":{data}}}'.encode()
    table: erpdata.Table = config.parse_table(200, body, typing_options(schema, True))
    return table


def type_name(t: pa.DataType) -> str:
    """An Arrow type as the vectors name the core's types."""
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    names = {pa.string(): "string", pa.int64(): "int", pa.date32(): "date", pa.bool_(): "bool"}
    return names.get(t, str(t))


def json_value(value: Any) -> Any:
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return {"$number": str(value)}
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def check(report: erpdata.Table, expect: dict[str, Any]) -> None:
    schema = [[f.name, type_name(f.type)] for f in report.to_arrow().schema]
    assert schema == expect["schema"]
    rows = [{k: json_value(v) for k, v in row.items()} for row in report]
    assert rows == expect["rows"]
    # Exact: the decimals keep the column's scale (as_tuple, not ==).
    for row, want in zip(report, expect["rows"]):
        for key, value in row.items():
            if isinstance(value, Decimal):
                assert value.as_tuple() == Decimal(want[key]["$number"]).as_tuple()


def check_error(err: BaseException, expected: dict[str, Any]) -> None:
    assert type(err) is ERRORS[expected["kind"]], repr(err)
    if expected.get("field") is not None:
        assert isinstance(err, erpdata.InvalidInputError)
        assert err.field == expected["field"], str(err)
    if "contains" in expected:
        assert expected["contains"] in str(err)


@pytest.mark.parametrize("case", load("aging"))
def test_aging_vectors(case: dict[str, Any]) -> None:
    dues = decode(case["data"], case.get("schema"))
    options = case["options"]
    kwargs: dict[str, Any] = {
        "as_of": options["as_of"],
        "due_date_column": options.get("due_date_column"),
        "balance_column": options.get("balance_column"),
    }
    if "buckets" in options:
        kwargs["buckets"] = options["buckets"]
    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            erpdata.aging(dues, **kwargs)
        check_error(info.value, case["expect_error"])
    else:
        check(erpdata.aging(dues, **kwargs), case["expect"])


@pytest.mark.parametrize("case", load("credit-status"))
def test_credit_status_vectors(case: dict[str, Any]) -> None:
    accounts, dues = decode(case["accounts"]), decode(case["dues"])
    pay_days = {acid: None if d is None else Decimal(d["$number"]) for acid, d in case["pay_days"]}

    def run() -> erpdata.Table:
        return erpdata.credit_status(
            accounts, dues, pay_days=pay_days, as_of=case["as_of"], acids=case.get("acids")
        )

    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            run()
        check_error(info.value, case["expect_error"])
    else:
        check(run(), case["expect"])


@pytest.mark.parametrize("case", load("pay-days"))
def test_pay_days_vectors(case: dict[str, Any]) -> None:
    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            _core.pay_days(case["acid"], case["answer"])
        check_error(info.value, case["expect_error"])
    else:
        expected = case["expect"]
        got = _core.pay_days(case["acid"], case["answer"])
        assert got == (None if expected is None else expected["$number"])


@pytest.mark.parametrize("case", load("account-ids"))
def test_account_ids_vectors(case: dict[str, Any]) -> None:
    accounts = decode(case["accounts"])
    if "expect_error" in case:
        with pytest.raises(erpdata.ErpError) as info:
            _finance.account_ids(accounts, case["kind"])
        check_error(info.value, case["expect_error"])
    else:
        assert _finance.account_ids(accounts, case["kind"]) == case["expect"]


DUES = (
    '[{"acid":"C1","due_date":"2025-06-01","balance":"10.25"},'
    '{"acid":"C1","due_date":"2025-07-10","balance":"5.00"},'
    '{"acid":"C2","due_date":"0000-00-00","balance":"1.10"}]'
)


def test_aging_reads_any_arrow_table_the_same() -> None:
    table = decode(DUES)
    expected = erpdata.aging(table, as_of="2025-07-01")
    pandas = need("pandas")
    polars = need("polars")
    for other in (table.to_arrow(), table.to_polars(), table.to_pandas()):
        assert list(erpdata.aging(other, as_of="2025-07-01")) == list(expected), type(other)
    frame = pandas.DataFrame(
        {
            "acid": ["C1"],
            "due_date": [datetime.date(2025, 6, 1)],
            "balance": [Decimal("10.25")],
        }
    )
    assert erpdata.aging(pa.Table.from_pandas(frame), as_of="2025-07-01")[0]["1-30"] == Decimal(
        "10.25"
    )
    # Polars' large strings and views read as strings.
    assert erpdata.aging(polars.from_arrow(table.to_arrow()), as_of="2025-07-01")[1]["acid"] == "C2"
    assert expected[0]["1-30"] == Decimal("10.25")
    assert expected[1]["undated"] == Decimal("1.10")


def test_aging_refuses_nan_and_non_tables() -> None:
    floats = pa.table(
        {"due_date": pa.array([datetime.date(2025, 1, 1)]), "balance": pa.array([float("nan")])}
    )
    with pytest.raises(erpdata.InvalidInputError) as info:
        erpdata.aging(floats, as_of="2025-07-01")
    assert info.value.field == "dues"
    assert 'column "balance" is float64 and row 0 (counted from 0) is NaN' in str(info.value)
    for bad in ([{"balance": 1}], "dues", None):
        with pytest.raises(erpdata.InvalidInputError) as info:
            erpdata.aging(bad, as_of="2025-07-01")
        assert info.value.field == "dues"
    for buckets in ([30, "60"], [0], "30", [-1]):
        with pytest.raises(erpdata.InvalidInputError) as info:
            erpdata.aging(decode(DUES), as_of="2025-07-01", buckets=buckets)  # type: ignore[arg-type]
        assert info.value.field == "buckets"
    with pytest.raises(erpdata.InvalidInputError) as info:
        erpdata.aging(decode(DUES), as_of=datetime.datetime(2025, 7, 1))
    assert info.value.field == "as_of"


def test_due_dates_with_a_time_zone_are_refused_not_aged_by_their_utc_day() -> None:
    # Midnight of 2025-12-31 in Asia/Kolkata is 18:30 on 2025-12-30 UTC:
    # read by its UTC day, it was a day past due on 2025-12-31.
    pandas = need("pandas")
    due = pandas.Series(pandas.to_datetime(["2025-12-31"])).dt.tz_localize("Asia/Kolkata")
    frame = pandas.DataFrame({"acid": ["C1"], "due_date": due, "balance": [Decimal("5.00")]})
    with pytest.raises(erpdata.InvalidInputError) as info:
        erpdata.aging(frame, as_of="2025-12-31")
    assert info.value.field == "dues"
    assert "time zone Asia/Kolkata" in str(info.value) and "tz_localize(None)" in str(info.value)
    frame["due_date"] = frame["due_date"].dt.tz_localize(None)
    assert erpdata.aging(frame, as_of="2025-12-31")[0]["current"] == Decimal("5.00")


def test_aging_as_of_defaults_to_today() -> None:
    today = datetime.date.today()
    due = (today - datetime.timedelta(days=45)).isoformat()
    table = decode(f'[{{"acid":"C1","due_date":"{due}","balance":"3.00"}}]')
    assert erpdata.aging(table)[0]["31-60"] == Decimal("3.00")


def test_credit_status_pay_days_inputs() -> None:
    accounts = decode('[{"acid":"C1","name":"A","kind":"customer","credit_limit":"10.00"}]')
    dues = decode(DUES)
    for value, expected in (
        (Decimal("4.5"), Decimal("4.5")),
        (3, Decimal(3)),
        ("2.25", Decimal("2.25")),
    ):
        report = erpdata.credit_status(accounts, dues, pay_days={"C1": value}, as_of="2025-07-01")
        assert report[0]["avg_pay_days"] == expected
    # Decimal() takes "NaN", " 12" and "1_0"; the core takes numbers as
    # JSON writes them, naming the account.
    for bad in (1.5, True, "soon", "NaN", " 12", "1_0", Decimal("Infinity")):
        with pytest.raises(erpdata.InvalidInputError) as info:
            erpdata.credit_status(accounts, dues, pay_days={"C1": bad}, as_of="2025-07-01")  # type: ignore[dict-item]
        assert info.value.field == "pay_days"
        assert "'C1'" in str(info.value) or '"C1"' in str(info.value), info.value


def test_credit_status_acids_as_one_id_is_refused() -> None:
    """One id is not a list of ids, nor the list of its characters."""
    accounts = decode('[{"acid":"C1","name":"A","kind":"customer","credit_limit":"10.00"}]')
    dues = decode(DUES)
    for one in ("C1", b"C1", 7):
        with pytest.raises(erpdata.InvalidInputError) as info:
            erpdata.credit_status(accounts, dues, as_of="2025-07-01", acids=one)  # type: ignore[arg-type]
        assert info.value.field == "acids", info.value
    report = erpdata.credit_status(accounts, dues, as_of="2025-07-01", acids=("C1",))
    assert [r["acid"] for r in report] == ["C1"]


def test_client_aging_matches_the_dues(client: erpdata.Client) -> None:
    report = client.aging(as_of="2025-12-31")
    accounts = client.table("account")
    customers = [r["acid"] for r in accounts if r["kind"] == "customer"]
    dues = client.dues_table(customers, "receipt")
    # Every customer, in the account table's order, whether or not it owes.
    assert [r["acid"] for r in report] == customers
    assert set(customers) - {d["acid"] for d in dues}, "some customer owes nothing"
    for row in report:
        balances = [d["balance"] for d in dues if d["acid"] == row["acid"]]
        assert row["total"] == sum(balances, Decimal(0))
        buckets = ["current", "1-30", "31-60", "61-90", "91+", "undated"]
        assert sum((row[b] for b in buckets), Decimal(0)) == row["total"]
    payables = client.aging("payment", as_of="2025-12-31")
    assert payables and all(r["acid"].startswith("S") for r in payables)
    one = client.aging(accounts=["C002"], as_of="2025-12-31", buckets=[15])
    assert one.columns == ["acid", "current", "1-15", "16+", "undated", "total"]


def test_aging_of_a_dues_names_its_account(client: erpdata.Client) -> None:
    dues = client.receivables("C001")
    assert "acid" not in dues.to_table().columns
    report = erpdata.aging(dues, as_of="2025-12-31")
    assert [r["acid"] for r in report] == ["C001"]
    assert report[0]["total"] == sum((d["balance"] for d in dues.rows), Decimal(0))
    assert report[0] == client.aging(accounts=["C001"], as_of="2025-12-31")[0]


def test_client_credit_status(client: erpdata.Client) -> None:
    report = client.credit_status(as_of="2025-12-31")
    accounts = {r["acid"]: r for r in client.table("account")}
    assert [r["acid"] for r in report] == [
        a for a, r in accounts.items() if r["kind"] == "customer"
    ]
    dues = client.dues_table([r["acid"] for r in report], "receipt")
    for row in report:
        owed = sum((d["balance"] for d in dues if d["acid"] == row["acid"]), Decimal(0))
        assert row["outstanding"] == owed
        assert row["credit_limit"] == accounts[row["acid"]]["credit_limit"]
        assert row["available"] == row["credit_limit"] - owed
        assert row["over_limit"] is (owed > row["credit_limit"])
        days = client.avg_pay_days(row["acid"]).fields["avg_pay_days"]
        assert row["avg_pay_days"] == days
    assert any(r["over_limit"] for r in report) and not all(r["over_limit"] for r in report)
    one = client.credit_status(accounts=["C002"], as_of="2025-12-31", pay_days=False)
    assert [r["acid"] for r in one] == ["C002"] and one[0]["avg_pay_days"] is None
    with pytest.raises(erpdata.InvalidInputError) as info:
        client.credit_status(accounts=["S001"])
    assert info.value.field == "accounts" and "S001" in str(info.value)


def test_async_client_matches_the_sync_one(client: erpdata.Client, sandbox_url: str) -> None:
    async def both() -> tuple[erpdata.Table, erpdata.Table]:
        async with erpdata.AsyncClient(
            sandbox_url,
            project="demo",
            access_token="sandbox-token-not-secret",
            company_id=1,
            year_id=2025,
        ) as aclient:
            return (
                await aclient.aging(as_of="2025-12-31"),
                await aclient.credit_status(as_of="2025-12-31"),
            )

    aging, status = asyncio.run(both())
    assert list(aging) == list(client.aging(as_of="2025-12-31"))
    assert list(status) == list(client.credit_status(as_of="2025-12-31"))
