"""Aging and credit status: a row for every account asked for (zeros where
nothing is owed, in the order asked), and balances of any numeric type of
a DataFrame or Arrow table, converted exactly."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

import erpdata
from conftest import need

DAYS = [datetime.date(2025, 6, 1), datetime.date(2025, 6, 30)]
AS_OF = "2025-06-30"


def aged(balances: Any) -> list[dict[str, Any]]:
    table = pa.table({"acid": ["C1", "C1"], "due_date": DAYS, "balance": balances})
    return list(erpdata.aging(table, as_of=AS_OF))


def exactly(value: Any, text: str) -> None:
    assert isinstance(value, Decimal) and value.as_tuple() == Decimal(text).as_tuple(), value


def test_float_balances_convert_through_their_shortest_repr() -> None:
    (row,) = aged(pa.array([1500.1, 20.25]))
    exactly(row["1-30"], "1500.10")
    exactly(row["current"], "20.25")
    exactly(row["total"], "1520.35")
    # 0.1 + 0.2 is 0.30000000000000004 in floats; as decimals it is 0.3.
    exactly(aged(pa.array([0.1, 0.2]))[0]["total"], "0.3")
    exactly(aged(pa.array([1500.1, None], pa.float32()))[0]["total"], "1500.1")
    exactly(aged(pa.array([1e20, -1e-7]))[0]["total"], "99999999999999999999.9999999")


def test_integer_and_decimal_balances_convert_exactly() -> None:
    assert aged(pa.array([3, -1]))[0]["total"] == 2
    huge = 2**64 - 1  # past int64: a decimal of scale 0
    assert aged(pa.array([huge, 1], pa.uint64()))[0]["total"] == huge + 1
    exactly(aged(pa.array([Decimal("1.005"), Decimal("2")]))[0]["total"], "3.005")


def test_dataframes_of_floats_ints_and_decimals() -> None:
    pandas = need("pandas")
    polars = need("polars")
    for balances, total in (
        ([1500.1, 20.25], "1520.35"),
        ([Decimal("1500.10"), Decimal("20.25")], "1520.35"),
    ):
        columns = {"acid": ["C1", "C1"], "due_date": DAYS, "balance": balances}
        for frame in (pandas.DataFrame(columns), polars.DataFrame(columns)):
            exactly(erpdata.aging(frame, as_of=AS_OF)[0]["total"], total)
    columns = {"acid": ["C1", "C1"], "due_date": DAYS, "balance": [1500, 20]}
    for frame in (pandas.DataFrame(columns), polars.DataFrame(columns)):
        assert erpdata.aging(frame, as_of=AS_OF)[0]["total"] == 1520
    # pandas' NaN is its missing value: a null, which counts nowhere.
    frame = pandas.DataFrame({"acid": ["C1", "C2"], "due_date": DAYS, "balance": [1.5, None]})
    assert [r["total"] for r in erpdata.aging(frame, as_of=AS_OF)] == [Decimal("1.5"), 0]


@pytest.mark.parametrize(
    ("values", "type_", "shown"),
    [
        ([1.0, float("nan")], pa.float64(), "float64 and row 1 (counted from 0) is NaN"),
        ([float("inf"), 1.0], pa.float64(), "float64 and row 0 (counted from 0) is inf"),
        ([1.0, float("-inf")], pa.float32(), "float32 and row 1 (counted from 0) is -inf"),
        ([1.0, 1e300], pa.float64(), "float64 and row 1 (counted from 0) is 1e300"),
    ],
)
def test_floats_that_are_no_decimal_are_refused_naming_their_type(
    values: list[float], type_: pa.DataType, shown: str
) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        aged(pa.array(values, type_))
    assert info.value.field == "dues"
    assert f'column "balance" is {shown}' in str(info.value)


def test_other_types_are_refused_naming_their_own() -> None:
    for balances, name in ((pa.array(["1", "2"]), "string"), (pa.array([True, False]), "bool")):
        with pytest.raises(erpdata.InvalidInputError) as info:
            aged(balances)
        assert info.value.field == "balance_column"
        assert f'column "balance" is {name}, not a decimal' in str(info.value)


def test_credit_status_takes_float_limits_and_balances() -> None:
    accounts = pa.table(
        {"acid": ["C1", "C2"], "kind": ["customer", "customer"], "credit_limit": [100.5, 10.0]}
    )
    dues = pa.table({"acid": ["C1"], "due_date": DAYS[:1], "balance": [120.25]})
    report = erpdata.credit_status(accounts, dues, as_of=AS_OF, acids=["C2", "C1"])
    assert [r["acid"] for r in report] == ["C2", "C1"]
    exactly(report[0]["outstanding"], "0.00")
    exactly(report[1]["available"], "-19.75")
    assert report[1]["over_limit"] is True and report[0]["oldest_overdue_days"] is None


def test_client_gives_every_account_asked_for_a_row(client: erpdata.Client) -> None:
    owes = {d["acid"] for d in client.dues_table(["C008", "C001"], "receipt")}
    assert owes == {"C001"}, "the sandbox's C008 owes nothing"
    report = client.aging(accounts=["C008", "C001"], as_of="2025-12-31")
    assert [r["acid"] for r in report] == ["C008", "C001"]
    assert report[0]["total"] == 0 and report[1]["total"] > 0
    exactly(report[0]["91+"], "0.00")
    status = client.credit_status(accounts=["C008", "C001"], as_of="2025-12-31", pay_days=False)
    assert [r["acid"] for r in status] == ["C008", "C001"]
    row = status[0]
    exactly(row["outstanding"], "0.00")
    exactly(row["overdue"], "0.00")
    assert row["oldest_overdue_due_date"] is None and row["oldest_overdue_days"] is None
    assert row["over_limit"] is False and row["available"] == row["credit_limit"]
    # Nobody asked for owes anything: a row of zeros each (scale 0, as no
    # balance was seen: Python gives such decimals as ints).
    none = client.aging(accounts=["C009", "C008"], as_of="2025-12-31")
    assert [(r["acid"], r["total"]) for r in none] == [("C009", 0), ("C008", 0)]
    assert dict(none.schema)["total"] == "decimal(38,0)"
    # Every customer when none is named: as many aging rows as credit rows.
    assert [r["acid"] for r in client.aging(as_of="2025-12-31")] == [
        r["acid"] for r in client.credit_status(as_of="2025-12-31", pay_days=False)
    ]


def test_tables_of_no_rows_keep_their_columns(client: erpdata.Client) -> None:
    # Nobody owes anything: the dues table still has its acid column, and
    # the aging of it, or of any empty table (which Arrow may hand over as
    # no batches at all), its acid column and the balance's scale.
    dues = client.dues_table(["C008"], "receipt")
    assert len(dues) == 0 and dues.columns == ["acid"]
    assert list(dues.to_pandas().columns) == ["acid"]
    assert erpdata.aging(dues, as_of=AS_OF).columns[0] == "acid"
    empty = pa.table(
        {
            "acid": pa.array([], pa.string()),
            "due_date": pa.array([], pa.date32()),
            "balance": pa.array([], pa.decimal128(12, 2)),
        }
    )
    report = erpdata.aging(empty, as_of=AS_OF).to_arrow()
    assert report.num_rows == 0 and report.schema.names[0] == "acid"
    assert report.schema.field("total").type == pa.decimal128(38, 2)
