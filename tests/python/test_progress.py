"""Download progress through tqdm.auto: off where nobody watches, on past
the thresholds where someone does, always with progress=True, never with
progress=False; a caller's callable gets (bytes, rows)."""

from __future__ import annotations

import asyncio

import pytest

import erpdata
from erpdata import _progress


def test_nothing_when_output_is_not_interactive(
    client: erpdata.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not _progress.interactive()
    client.table("sales_invoice")
    assert capsys.readouterr().err == ""


def test_a_bar_with_true_and_none_with_false(
    client: erpdata.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    table = client.table("sales_invoice", progress=True)
    err = capsys.readouterr().err
    assert "sales_invoice" in err and f"rows={len(table):,}" in err
    client.table("sales_invoice", progress=False)
    assert capsys.readouterr().err == ""


def test_automatic_bar_only_past_the_thresholds(
    client: erpdata.Client, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_progress, "interactive", lambda: True)
    client.table("account")  # small and fast: under both thresholds
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_progress, "AFTER_BYTES", 1)
    client.table("account")
    assert "account" in capsys.readouterr().err


def test_a_callable_gets_bytes_and_rows(client: erpdata.Client, sandbox_url: str) -> None:
    seen: list[tuple[int, int]] = []
    table = client.table("sales_invoice", progress=lambda b, r: seen.append((b, r)))
    assert seen and seen[-1][1] == len(table) and seen[-1][0] > 0

    async def run() -> erpdata.Table:
        async with erpdata.AsyncClient(
            sandbox_url,
            project="demo",
            access_token="sandbox-token-not-secret",
            company_id=1,
            year_id=2025,
        ) as aclient:
            return await aclient.table("sales_invoice", progress=True)

    assert len(asyncio.run(run())) == len(table)
