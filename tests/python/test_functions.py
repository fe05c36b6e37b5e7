"""The other functions of ajax.php through Client and AsyncClient against the
sandbox: each answer's shape and types, the generic call, dues as tables,
and the access token sent only when asked."""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Iterator
from decimal import Decimal

import pytest

import erpdata
from conftest import SANDBOX_TOKEN, _sandbox


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    """A sandbox whose ajax.php wants the access token too."""
    yield from _sandbox(["--ajax-token"])


def test_each_function_answers_typed(client: erpdata.Client) -> None:
    summary = client.dues_summary()
    assert summary.shape == "rows" and summary.func == "getduesSumm"
    assert all(isinstance(r["balance"], Decimal) for r in summary.rows)
    assert all(isinstance(r["oldest_due_date"], datetime.date) for r in summary.rows)
    assert dict(summary.schema)["documents"] == "int"

    avg = client.avg_pay_days("C001")
    assert avg.shape == "object"
    assert isinstance(avg.fields["payments"], int)
    assert isinstance(avg.fields["avg_pay_days"], Decimal)

    net = client.net_profit(datetime.date(2025, 1, 1), "2025-12-31")
    assert net.value["net_profit"] == net.value["income"] - net.value["expenses"]
    assert net.value["sdate"] == datetime.date(2025, 1, 1)
    gross = client.gross_profit("2025-01-01", "2025-06-30")
    assert gross.fields["gross_profit"] == gross.fields["sales"] - gross.fields["cost_of_sales"]

    debtors = client.schedule_accounts("Sundry Debtors", "2025-01-01", "2025-12-31")
    frame = debtors.to_pandas()
    assert list(frame.columns) == ["acid", "name", "debit", "credit", "balance"]
    assert len(frame) == len(debtors.rows) >= 5

    assert summary.to_arrow().num_rows == summary.to_polars().height == len(summary.rows)
    with pytest.raises(erpdata.InvalidInputError, match="only rows") as caught:
        avg.to_table()
    assert caught.value.field == "shape"

    generic = client.ajax("avgPayDays", {"acid": "C001"})
    assert generic == avg
    assert "avgPayDays" in repr(generic)


def test_the_summary_equals_the_dues_table(client: erpdata.Client) -> None:
    summary = client.dues_summary()
    acids = [r["acid"] for r in summary.rows]
    table = client.dues_table(acids, "receipt", concurrency=3)
    assert table.columns[0] == "acid"
    for row in summary.rows:
        owed = sum((r["balance"] for r in table if r["acid"] == row["acid"]), Decimal(0))
        assert owed == row["balance"], row["acid"]
    arrow = table.to_arrow()
    assert arrow.num_rows == len(table)
    frame = client.receivables("C001").to_pandas()
    assert len(frame) == len(client.receivables("C001").rows)


def test_input_is_refused_before_sending(client: erpdata.Client) -> None:
    for call, field in (
        (lambda: client.net_profit("2025-02-30", "2025-03-01"), "start"),
        (lambda: client.gross_profit("2025-03-02", "2025-03-01"), "end"),
        (lambda: client.net_profit(datetime.datetime(2025, 1, 1), "2025-03-01"), "start"),
        (lambda: client.schedule_accounts("", "2025-01-01", "2025-01-31"), "schedule"),
        (lambda: client.avg_pay_days(""), "acid"),
        (lambda: client.ajax("get dues"), "func"),
        (lambda: client.ajax("f", {"accesstoken": "x"}), "params"),
        (lambda: client.ajax("f", {"a": 1.5}), "a"),  # type: ignore[dict-item]
        (lambda: client.dues_table(["C001"], "receipt", concurrency=0), "concurrency"),
    ):
        with pytest.raises(erpdata.InvalidInputError) as err:
            call()
        assert err.value.field == field


def test_the_service_errors_are_typed(client: erpdata.Client) -> None:
    with pytest.raises(erpdata.ServiceError) as err:
        client.schedule_accounts("Fixed Assets", "2025-01-01", "2025-01-31")
    assert err.value.message == "Unknown schedule: Fixed Assets"


def test_the_token_goes_only_when_asked(guarded_url: str) -> None:
    with erpdata.Client(guarded_url, project="demo", access_token=SANDBOX_TOKEN) as plain:
        with pytest.raises(erpdata.ServiceError):
            plain.dues_summary()
        with pytest.raises(erpdata.ServiceError):
            plain.receivables("C001")
        assert plain.dues_summary(send_token=True).rows
        assert plain.dues_summary(send_token=True, method="GET").rows
        assert plain.dues("C001", "receipt", send_token=True).rows
    with erpdata.Client(
        guarded_url, project="demo", access_token=SANDBOX_TOKEN, ajax_token=True
    ) as everywhere:
        assert everywhere.dues_summary().rows
        assert everywhere.receivables("C001").rows
        assert everywhere.dues_table(["C001", "C002"], "receipt")
        with pytest.raises(erpdata.ServiceError):
            everywhere.dues_summary(send_token=False)
    with pytest.raises(erpdata.InvalidInputError) as err:
        erpdata.Client(guarded_url, project="demo", access_token=None, ajax_token=True)
    assert err.value.field in ("ajax_token", "access_token")


def test_async_client_has_them_too(sandbox_url: str, guarded_url: str) -> None:
    async def main() -> None:
        async with erpdata.AsyncClient(
            sandbox_url, project="demo", access_token=SANDBOX_TOKEN
        ) as c:
            summary, avg, net, gross, debtors, generic = await asyncio.gather(
                c.dues_summary(),
                c.avg_pay_days("C001"),
                c.net_profit("2025-01-01", "2025-12-31"),
                c.gross_profit("2025-01-01", "2025-12-31"),
                c.schedule_accounts("Sundry Creditors", "2025-01-01", "2025-12-31"),
                c.ajax("avgPayDays", {"acid": "C001"}),
            )
            assert summary.shape == "rows" and avg == generic
            assert net.shape == gross.shape == "object"
            assert debtors.rows and all(r["acid"].startswith("S") for r in debtors.rows)
            table = await c.dues_table([r["acid"] for r in summary.rows], "receipt")
            assert len({r["acid"] for r in table}) == len(summary.rows)
        async with erpdata.AsyncClient(
            guarded_url, project="demo", access_token=SANDBOX_TOKEN, ajax_token=True
        ) as g:
            assert (await g.dues_summary()).rows

    asyncio.run(main())
