"""The client's retry budget, shared by its calls (tests/vectors/budget.json):
each case run by Client and AsyncClient against the sandbox's faults."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import erpdata
import fault_api
from conftest import ROOT
from erpdata import AsyncClient, Client

CASES: list[dict[str, Any]] = json.loads((ROOT / "tests/vectors/budget.json").read_text())["cases"]
SETTINGS: dict[str, Any] = {
    "project": "demo",
    "access_token": "sandbox-token-not-secret",
    "company_id": 1,
    "year_id": 2025,
    "max_retries": 2,
}


def check(case: dict[str, Any], got: list[erpdata.ErpError | None], seen: list[int]) -> None:
    assert len(got) == len(case["calls"]) == len(seen)
    for i, (error, want, sent) in enumerate(zip(got, case["calls"], seen)):
        where = f"{case['name']}: call {i + 1}"
        assert sent == want["attempts"], f"{where}: the sandbox saw {sent} requests"
        if want["outcome"] == "ok":
            assert error is None, f"{where}: {error}"
            continue
        assert error is not None, f"{where}: no error"
        assert error.attempts == want["attempts"], f"{where}: {error.attempts} attempts reported"
        withheld = "not retried: recent requests" in str(error)
        assert withheld == want["withheld"], f"{where}: {error}"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_sync(sandbox_url: str, case: dict[str, Any]) -> None:
    key = fault_api.new_key("budget-sync")
    got: list[erpdata.ErpError | None] = []
    seen: list[int] = []
    with Client(fault_api.prefix(sandbox_url, case["fault"], key), **SETTINGS) as c:
        for _ in case["calls"]:
            before = fault_api.count(sandbox_url, key)
            try:
                c.receivables("C001")
                got.append(None)
            except erpdata.ErpError as err:
                got.append(err)
            seen.append(fault_api.count(sandbox_url, key) - before)
    check(case, got, seen)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_async(sandbox_url: str, case: dict[str, Any]) -> None:
    async def run() -> tuple[list[erpdata.ErpError | None], list[int]]:
        key = fault_api.new_key("budget-async")
        got: list[erpdata.ErpError | None] = []
        seen: list[int] = []
        async with AsyncClient(fault_api.prefix(sandbox_url, case["fault"], key), **SETTINGS) as c:
            for _ in case["calls"]:
                before = fault_api.count(sandbox_url, key)
                try:
                    await c.receivables("C001")
                    got.append(None)
                except erpdata.ErpError as err:
                    got.append(err)
                seen.append(fault_api.count(sandbox_url, key) - before)
        return got, seen

    check(case, *asyncio.run(run()))
